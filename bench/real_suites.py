"""Real libraries' own pytest suites, run against their own (correct) code three ways on the
sandbox interpreter: plain `python -m pytest`, Sandbox.run_pytest, and judged (judge.run_judged:
the suite is the trusted tests, the library is the model's workspace), once with generous limits
and once with the defaults. A correct solution should pass judged as it passes plain; the rows
say how far that holds, and the failure groups say why not. Prints a table; asserts nothing.

    .venv/bin/python bench/real_suites.py [--only NAME] [--layer basic|basic+namespaces|bwrap]
        [--cpu-seconds 3000] [--timeout 600] [--addopts OPTIONS] [--cache DIR] [--keep]
        [--sdist FILE.tar.gz ...]

Pinned sdists are downloaded once with pip into the cache (~/.cache/tdd-agent/real-suites).
Test files plain pytest cannot run here (they import a module the sandbox interpreter lacks, read
a binary data file, or need a plugin's fixture) are left out of all three modes alike, and the
output says which. --addopts=--continue-on-collection-errors shows what one module's collection
error hides.
"""
from __future__ import annotations

import argparse
import collections
import configparser
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
import tomllib
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import NamedTuple, Optional

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import isolation  # noqa: E402
from config import SandboxConfig  # noqa: E402
from judge import run_judged  # noqa: E402
from sandbox import Sandbox, parse_junit, pytest_config_args  # noqa: E402


class Library(NamedTuple):
    name: str
    version: str
    deps: tuple = ()       # pinned libraries it needs at run time: their code joins the workspace
    test_data: tuple = ()  # files or folders of the sdist its tests read or import (trusted, with the tests)


PINNED = [Library("inflection", "0.5.1"), Library("text-unidecode", "1.3"), Library("more-itertools", "11.2.1"),
          Library("python-slugify", "9.2.0", ("text-unidecode",), ("README.md", "tools")),
          Library("six", "1.17.0"), Library("cachetools", "8.0.2"), Library("isodate", "0.7.2"),
          Library("toolz", "1.2.0"), Library("humanize", "4.17.0"),
          # pytest depends on packaging: the workspace's copy meets an installed one of the same name
          Library("packaging", "26.4")]
DEFAULT_CACHE = Path.home() / ".cache" / "tdd-agent" / "real-suites"
TEST_DIRS = {"tests", "test", "testing"}
NOT_CODE = {"setup.py", "conftest.py", "noxfile.py", "fabfile.py"}
# ini options that need plugins or name paths outside the suite; everything else is kept
DROPPED_OPTIONS = {"addopts", "testpaths"}


@dataclass
class Suite:
    """A task-like pair: the library's importable code (the workspace) and its own tests."""
    name: str
    code: dict[str, bytes] = field(default_factory=dict)
    tests: dict[str, str] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)


@dataclass
class Counts:
    passed: int = 0
    failed: int = 0
    errors: int = 0
    skipped: int = 0
    seconds: float = 0.0
    outcome: str = "completed"
    ok: Optional[bool] = None

    def short(self) -> str:
        return f"{self.passed}/{self.failed}/{self.errors}"


# ---------------------------------------------------------------------------------------------
# Getting the sdists and turning each into a suite.

def download(name: str, version: str, cache: Path) -> Path:
    """The sdist from the cache, else from the index with pip (source only, no dependencies)."""
    cache.mkdir(parents=True, exist_ok=True)
    stems = {f"{n}-{version}" for n in (name, name.replace("-", "_"), name.replace("-", "."))}
    found = [p for p in cache.iterdir() if p.name.lower().removesuffix(".tar.gz").removesuffix(".zip") in stems]
    if found:
        return found[0]
    cmd = [sys.executable, "-m", "pip", "download", "-q", "--disable-pip-version-check", "--no-deps",
           "--no-binary", ":all:", f"{name}=={version}", "-d", str(cache)]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    if done.returncode:
        raise RuntimeError(f"pip download {name}=={version} failed: {done.stderr.strip()[-500:]}")
    return download(name, version, cache)


def unpack(sdist: Path, into: Path) -> Path:
    """The sdist's top folder, unpacked below `into`."""
    with tarfile.open(sdist) as archive:
        archive.extractall(into, filter="data")
    tops = [p for p in into.iterdir() if p.is_dir()]
    if len(tops) != 1:
        raise RuntimeError(f"{sdist.name}: expected one top folder, found {[p.name for p in tops]}")
    return tops[0]


def _files(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*") if p.is_file() and "__pycache__" not in p.parts
                  and p.suffix not in (".pyc", ".pyo"))


def _is_test_module(name: str) -> bool:
    return name.endswith(".py") and (name.startswith("test_") or name.endswith("_test.py"))


def build_suite(root: Path, test_data: tuple = ()) -> Suite:
    """Workspace: the top-level packages and modules (src/ layout flattened) with their data
    files, and the distribution's metadata (an installed library has it). Tests: the test
    folder(s), top-level test modules and conftest.py, the `test_data` paths, and the library's
    pytest settings as a pytest.ini. Test folders inside a package move to tests/<pkg>_<sub>_tests/
    (in every mode, so the judge's test folder does not hold half a model package)."""
    suite = Suite(root.name)
    src = root / "src" if (root / "src").is_dir() else root
    moved: list[Path] = []
    for entry in sorted(src.iterdir()):
        if entry.is_dir() and (entry / "__init__.py").is_file() and entry.name not in TEST_DIRS:
            inner = [d for d in entry.rglob("*") if d.is_dir() and d.name in TEST_DIRS]
            moved += inner
            for path in _files(entry):
                if not any(d in path.parents for d in inner):
                    suite.code[path.relative_to(src).as_posix()] = path.read_bytes()
        elif (entry.is_file() and entry.suffix == ".py" and entry.name not in NOT_CODE
              and not _is_test_module(entry.name)):
            suite.code[entry.name] = entry.read_bytes()
    if not suite.code:
        raise RuntimeError(f"{root.name}: no top-level package or module found")
    egg_info = [d for d in (*src.glob("*.egg-info"), *root.glob("*.egg-info")) if d.is_dir()]
    if egg_info:
        for path in _files(egg_info[0]):
            suite.code[f"{egg_info[0].name}/{path.relative_to(egg_info[0]).as_posix()}"] = path.read_bytes()
    elif (root / "PKG-INFO").is_file():  # the same metadata, as an installed dist-info folder
        meta = (root / "PKG-INFO").read_text(encoding="utf-8")
        dist = re.sub(r"[-.]+", "_", _meta(meta, "Name")) + "-" + _meta(meta, "Version") + ".dist-info"
        suite.code[f"{dist}/METADATA"] = meta.encode()
    binary = []
    tests: dict[str, Path] = {}
    for folder in [root / d for d in sorted(TEST_DIRS) if (root / d).is_dir()]:
        for path in _files(folder):
            tests[path.relative_to(root).as_posix()] = path
    for folder in moved:
        rel = folder.relative_to(src).as_posix().replace("/", "_")
        for path in _files(folder):
            tests[f"tests/{rel}/{path.relative_to(folder).as_posix()}"] = path
        suite.notes.append(f"tests in {folder.relative_to(src)}/ moved to tests/{rel}/ (all modes)")
    for rel in test_data:
        for path in _files(root / rel) if (root / rel).is_dir() else [root / rel]:
            tests[path.relative_to(root).as_posix()] = path
    for path in sorted(root.glob("*.py")):
        if _is_test_module(path.name) or path.name == "conftest.py":
            tests[path.name] = path
    for rel, path in tests.items():
        try:
            with open(path, encoding="utf-8", newline="") as f:  # a lone \r stays a \r
                suite.tests[rel] = f.read()
        except UnicodeDecodeError:
            binary.append(rel)
    if binary:  # hidden tests are text; left out of every mode alike
        suite.notes.append(f"binary test data left out (all modes): {', '.join(binary)}")
    ini, note = pytest_ini(root)
    if ini:
        suite.tests["pytest.ini"] = ini
    if note:
        suite.notes.append(note)
    return suite


def _meta(text: str, key: str) -> str:
    match = re.search(rf"^{key}: *(.+)$", text, re.MULTILINE)
    return match.group(1).strip() if match else "unknown"


def _ini_value(value) -> str:
    if isinstance(value, list):
        return "\n    " + "\n    ".join(str(v) for v in value)
    if isinstance(value, bool):
        return str(value).lower()
    return "\n    ".join(str(value).split("\n"))  # a multi-line value read by configparser


def pytest_ini(root: Path) -> tuple[Optional[str], Optional[str]]:
    """The library's pytest settings (pytest.ini, pyproject.toml, tox.ini, setup.cfg; the first
    that has them) as a pytest.ini, without the options that need plugins or other folders."""
    options: dict = {}
    where = ""
    if (root / "pytest.ini").is_file():
        options, where = _ini_section(root / "pytest.ini", "pytest"), "pytest.ini"
    if not options and (root / "pyproject.toml").is_file():
        tool = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8")).get("tool", {})
        table = tool.get("pytest", {})
        options = table.get("ini_options") or {k: v for k, v in table.items() if not isinstance(v, dict)}
        where = "pyproject.toml"
    for name, section in (("tox.ini", "pytest"), ("setup.cfg", "tool:pytest")):
        if not options and (root / name).is_file():
            options, where = _ini_section(root / name, section), name
    if not options:
        return None, None
    kept = {k: v for k, v in options.items() if k not in DROPPED_OPTIONS}
    dropped = {k: v for k, v in options.items() if k in DROPPED_OPTIONS}
    text = "[pytest]\n" + "".join(f"{k} = {_ini_value(v)}\n" for k, v in kept.items())
    note = f"pytest settings from {where}: kept {', '.join(kept) or 'nothing'}"
    if dropped:
        note += "; dropped " + "; ".join(f"{k}={' '.join(map(str, v)) if isinstance(v, list) else v}"
                                         for k, v in dropped.items())
    return text, note


def _ini_section(path: Path, section: str) -> dict:
    parser = configparser.RawConfigParser()
    try:
        parser.read(path, encoding="utf-8")
    except configparser.Error:
        return {}
    return dict(parser[section]) if parser.has_section(section) else {}


# ---------------------------------------------------------------------------------------------
# The three ways to run it.

def write_tree(folder: Path, code: dict[str, bytes], tests: dict[str, str]) -> None:
    for rel, data in code.items():
        path = folder / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    for rel, text in tests.items():  # as judge._write_tests writes them
        path = folder / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def plain_command(python: Path, copy: Path, report: Path, *extra: str) -> list[str]:
    """`python -m pytest` with the flags Sandbox.run_pytest and the judge pass too."""
    return [str(python), "-m", "pytest", "-q", "-p", "no:cacheprovider", "--color=no", "--tb=short",
            f"--junitxml={report}", "-o", "junit_logging=out-err", *pytest_config_args(copy), *extra]


def _plain_env(home: Path) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "PYTEST"))}
    return {**env, "HOME": str(home), "PYTHONDONTWRITEBYTECODE": "1"}


def _blocks(stdout: str, header: str) -> list[tuple[str, str]]:
    """(title, body) of each `____ HEADER title ____` section of pytest's output."""
    pattern = re.compile(rf"^_+ {header} (.+?) _+$\n(.*?)(?=^_+ |^=+ )", re.DOTALL | re.MULTILINE)
    return pattern.findall(stdout)


def _why(text: str) -> str:
    lines = [ln[1:].strip() for ln in text.splitlines() if ln.startswith("E ") and ln[1:].strip()]
    return (lines or ["?"])[-1][:120]


def drop_unrunnable(suite: Suite, python: Path, folder: Path) -> None:
    """Test files that plain pytest cannot collect (a module the sandbox interpreter lacks, a
    binary data file left out) or whose tests need a fixture no installed plugin provides leave
    the suite, for every mode alike. `--setup-plan` collects and resolves fixtures without
    running a test; collection errors stop it, hence the loop."""
    for _ in range(10):
        copy = folder / "probe"
        shutil.rmtree(copy, ignore_errors=True)
        write_tree(copy, suite.code, suite.tests)
        done = subprocess.run(plain_command(python, copy, folder / "probe.xml", "--setup-plan"), cwd=copy,
                              capture_output=True, text=True, timeout=600, env=_plain_env(folder))
        shutil.rmtree(copy, ignore_errors=True)
        dropped = {}
        for rel, text in _blocks(done.stdout, "ERROR collecting"):
            dropped[rel] = f"plain pytest cannot collect it: {_why(text)}"
        if not dropped:
            for _, text in _blocks(done.stdout, "ERROR at setup of"):
                where = re.search(r"^file (\S+), line \d+", text, re.MULTILINE)
                fixture = re.search(r"^E +fixture '(\w+)' not found", text, re.MULTILINE)
                if where and fixture and where.group(1).startswith(str(copy) + "/"):
                    rel = where.group(1)[len(str(copy)) + 1:]
                    dropped[rel] = f"its tests need the fixture {fixture.group(1)!r}, from a plugin not installed"
        dropped = {rel: why for rel, why in dropped.items() if rel in suite.tests}
        if not dropped:
            return
        for rel, why in dropped.items():
            del suite.tests[rel]
            suite.notes.append(f"left out (all modes): {rel}: {why}")
    suite.notes.append("still cannot be collected plainly after 10 rounds of leaving files out")


def run_plain(python: Path, copy: Path, scratch: Path, timeout: float) -> Counts:
    scratch.mkdir(parents=True, exist_ok=True)
    report = scratch / "report.xml"
    start = time.monotonic()
    try:
        done = subprocess.run(plain_command(python, copy, report), cwd=copy, capture_output=True, text=True,
                              timeout=timeout, env=_plain_env(scratch))
        (scratch / "pytest.log").write_text(done.stdout + done.stderr)
        outcome, code = "completed", done.returncode
    except subprocess.TimeoutExpired:
        outcome, code = "timeout", None
    parsed = parse_junit(report)
    counts = Counts(**(parsed[0] if parsed else {}), seconds=time.monotonic() - start,
                    outcome=outcome if parsed else "no_report")
    counts.ok = counts.outcome == "completed" and code == 0 and counts.passed > 0
    return counts


def timed(call) -> Counts:
    start = time.monotonic()
    run = call()
    return Counts(run.passed, run.failed, run.errors, run.skipped, time.monotonic() - start, run.outcome, run.ok)


# ---------------------------------------------------------------------------------------------
# What failed judged, grouped by the first line that says why.

def failure_lines(report: Path) -> list[tuple[str, str]]:
    """(first line of the cause, test id) for each failure or error in a JUnit report: the first
    `E   ` line of the traceback when there is one, else the message."""
    try:
        root = ET.parse(report).getroot()
    except (OSError, ET.ParseError):
        return []
    found = []
    for case in root.iter("testcase"):
        test_id = "::".join(p for p in (case.get("classname", ""), case.get("name", "")) if p)
        for child in case:
            if child.tag not in ("failure", "error"):
                continue
            text = child.text or ""
            lines = [ln[1:].strip() for ln in text.splitlines() if ln.startswith("E ") and ln[1:].strip()]
            line = lines[0] if lines else (child.get("message") or text or child.tag).strip().splitlines()[0]
            found.append((re.sub(r"0x[0-9a-f]+", "0x…", line)[:200], test_id))
    return found


def empty_cases(report: Path) -> int:
    """<testcase/> elements without a name: pytest writes one when a KeyboardInterrupt ends the
    session, and parse_junit counts it as passed."""
    try:
        return sum(1 for case in ET.parse(report).getroot().iter("testcase") if not case.get("name"))
    except (OSError, ET.ParseError):
        return 0


def grouped(lines: list[tuple[str, str]], top: int = 10) -> list[tuple[int, str, str]]:
    """(count, first line, one test id) for the `top` most frequent first lines."""
    counter = collections.Counter(line for line, _ in lines)
    example = {}
    for line, test_id in lines:
        example.setdefault(line, test_id)
    return [(n, line, example[line]) for line, n in counter.most_common(top)]


# ---------------------------------------------------------------------------------------------

COLUMNS = (f"{'library':24} {'plain p/f/e':>13} {'s':>6} {'sandboxed p/f/e':>16} {'s':>6} "
           f"{'judged p/f/e':>13} {'outcome':>10} {'s':>6} {'ratio':>6} {'default-limits p/f/e':>21} "
           f"{'outcome':>10} {'s':>6}")


def row(name: str, plain: Counts, boxed: Counts, judged: Counts, default: Counts) -> str:
    ratio = judged.seconds / plain.seconds if plain.seconds else float("nan")
    return (f"{name:24} {plain.short():>13} {plain.seconds:>6.1f} {boxed.short():>16} {boxed.seconds:>6.1f} "
            f"{judged.short():>13} {judged.outcome:>10} {judged.seconds:>6.1f} {ratio:>5.1f}x "
            f"{default.short():>21} {default.outcome:>10} {default.seconds:>6.1f}")


def markdown(rows: list[tuple]) -> str:
    lines = ["| library | plain passed/failed/errors | plain s | sandboxed passed/failed/errors | sandboxed s | "
             "judged passed/failed/errors | judged outcome (verdict) | judged s | judged/plain | "
             "default limits: judged p/f/e | outcome | s |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for name, plain, boxed, judged, default in rows:
        verdict = "ok" if judged.ok else "not ok"
        lines.append(f"| {name} | {plain.short()} | {plain.seconds:.1f} | {boxed.short()} | {boxed.seconds:.1f} | "
                     f"{judged.short()} | {judged.outcome} ({verdict}) | {judged.seconds:.1f} | "
                     f"{judged.seconds / plain.seconds:.1f}x | {default.short()} | {default.outcome} | "
                     f"{default.seconds:.1f} |")
    return "\n".join(lines)


def sandbox_for(layer: str, **limits) -> Sandbox:
    return Sandbox(SandboxConfig(isolation=layer.split("+")[0], namespaces="namespaces" in layer, **limits))


def measure(suite: Suite, work: Path, generous: Sandbox, default: Sandbox, timeout: float) -> tuple:
    """plain, sandboxed, judged (generous limits), judged (default limits); the same files each time."""
    workspace, copy = work / "workspace", work / "plain"
    write_tree(workspace, suite.code, {})
    write_tree(copy, suite.code, suite.tests)
    plain = run_plain(generous.python, copy, work / "plain-scratch", timeout)
    boxed = timed(lambda: generous.run_pytest(copy, work / "sandboxed-scratch"))
    judged = timed(lambda: run_judged(generous, workspace, suite.tests, work / "judged-scratch"))
    at_default = timed(lambda: run_judged(default, workspace, suite.tests, work / "default-scratch"))
    return plain, boxed, judged, at_default


def prepare(sdist: Path, work: Path, deps: list[Path], test_data: tuple, python: Path, addopts: str) -> Suite:
    """The suite of one sdist: its code plus its dependencies' code, its runnable tests, and
    `addopts` added to its pytest settings (the same in every mode)."""
    suite = build_suite(unpack(sdist, work / "sdist"), test_data)
    for dep in deps:
        code = build_suite(unpack(dep, work / "deps" / dep.name)).code
        suite.code.update({rel: data for rel, data in code.items() if rel not in suite.code})
        suite.notes.append(f"the workspace also holds {dep.name.removesuffix('.tar.gz')} (a dependency)")
    if addopts:
        ini = suite.tests.get("pytest.ini", "[pytest]\n")
        suite.tests["pytest.ini"] = re.sub(r"^\[pytest\]\n", f"[pytest]\naddopts = {addopts}\n", ini)
        suite.notes.append(f"addopts {addopts!r} in every mode")
    drop_unrunnable(suite, python, work)
    tops = sorted({PurePosixPath(rel).parts[0].removesuffix(".py") for rel in suite.code if "-info/" not in rel})
    probe = "import importlib.util as u, sys; print(' '.join(n for n in sys.argv[1:] if u.find_spec(n)))"
    installed = subprocess.run([str(python), "-I", "-c", probe, *tops], capture_output=True, text=True,
                               cwd="/", timeout=60).stdout.split()
    if installed:
        suite.notes.append(f"also installed in the sandbox interpreter: {', '.join(installed)} (the judge "
                           "takes such a name from the installation, plain pytest from the workspace)")
    return suite


def main(argv: Optional[list[str]] = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", action="append", default=[], help="a library name (repeatable)")
    parser.add_argument("--layer", default="basic", choices=["basic", "basic+namespaces", "bwrap"])
    parser.add_argument("--cpu-seconds", type=int, default=3000, help="the generous runs' RLIMIT_CPU")
    parser.add_argument("--timeout", type=float, default=600, help="the generous runs' wall-clock limit")
    parser.add_argument("--addopts", default="", help="pytest options for every mode, e.g. "
                        "--continue-on-collection-errors (written into the suite's pytest.ini)")
    parser.add_argument("--cache", type=Path, default=DEFAULT_CACHE, help="where the sdists are kept")
    parser.add_argument("--keep", action="store_true", help="keep the unpacked suites and run folders")
    parser.add_argument("--sdist", type=Path, action="append", default=[],
                        help="a local sdist to measure instead of the pinned ones (repeatable)")
    args = parser.parse_args(argv)
    # generous: also room for the test threads of a suite (RLIMIT_NPROC counts every process and
    # thread of the sandbox user, other sandboxes on the machine included)
    generous = sandbox_for(args.layer, cpu_seconds=args.cpu_seconds, timeout=args.timeout, max_processes=1024)
    default = sandbox_for(args.layer)
    print(f"layer {generous.describe()}")
    print(f"generous limits: {args.cpu_seconds} CPU-s, {args.timeout:.0f} s wall, 1024 processes; default limits: "
          f"{default.cfg.cpu_seconds} CPU-s, {default.cfg.timeout:.0f} s wall, {default.cfg.max_processes} processes")
    if args.sdist:
        jobs = [(path.resolve(), [], ()) for path in args.sdist]
    else:
        versions = {lib.name: lib.version for lib in PINNED}
        jobs = [(download(lib.name, lib.version, args.cache), [download(d, versions[d], args.cache) for d in lib.deps],
                 lib.test_data) for lib in PINNED if not args.only or lib.name in args.only]
    folder = Path(tempfile.mkdtemp(prefix="real-suites-"))
    folder.chmod(0o755)  # the sandbox user walks in
    rows, details = [], []
    print(f"\n{COLUMNS}", flush=True)
    try:
        for sdist, deps, test_data in jobs:
            work = folder / sdist.name.removesuffix(".tar.gz")
            suite = prepare(sdist, work, deps, test_data, generous.python, args.addopts)
            results = measure(suite, work, generous, default, args.timeout)
            rows.append((suite.name, *results))
            print(row(suite.name, *results), flush=True)
            lines = failure_lines(work / "judged-scratch" / "report.xml")
            empty = empty_cases(work / "judged-scratch" / "report.xml")
            if empty:
                suite.notes.append(f"judged report: {empty} empty <testcase/> (counted as passed above)")
            details.append((suite.name, suite.notes, lines, results[2]))
        print("\n" + markdown(rows))
        for name, notes, lines, judged in details:
            print(f"\n## {name}")
            for note in notes:
                print(f"  note: {note}")
            print(f"  judged: {judged.short()} (passed/failed/errors), {judged.skipped} skipped, {judged.outcome}")
            for count, line, example in grouped(lines):
                print(f"  {count:5} x {line}\n          e.g. {example}")
        print("\n## judged failures (generous limits), all libraries, by first line (top 10)")
        for count, line, example in grouped([item for *_, lines, _ in details for item in lines]):
            print(f"  {count:5} x {line}\n          e.g. {example}")
    finally:
        if args.keep:
            print(f"\nkept: {folder}")
        else:
            isolation.remove_tree(folder)


if __name__ == "__main__":
    main()

"""The test interpreter and one pytest run: which Python runs the model's tests (a path, a conda
env, or a venv this project makes once), running pytest confined (see isolation.py), and turning
its JUnit XML into the short result the model reads.
"""
from __future__ import annotations

import json
import os
import re
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from contextlib import contextmanager
from dataclasses import asdict, dataclass, replace
from pathlib import Path, PurePath, PurePosixPath, PureWindowsPath
from typing import Iterator, Optional

import isolation
import procs
import prompts
import runtime_files
import warm
from config import SandboxConfig
from runtime_files import cache_dir, running_as_root
from workspace_files import PYTEST_SETUP_FILES, SKIPPED_FOLDERS, put_file, read_regular_file, write_atomic


class SandboxError(Exception):
    """The sandbox cannot be set up; the message says what to change."""


@dataclass
class TestRun:
    __test__ = False  # a result, not a pytest test class
    passed: int
    failed: int
    errors: int
    skipped: int
    exit_code: Optional[int]
    seconds: float
    outcome: str  # completed | timeout | killed | no_report | tampered | not_run
    output: str   # what the model reads: failures first, no timings, bounded
    leftover_processes: int = 0  # still running after pytest ended, then killed
    collected: Optional[int] = None  # items the judge collected (judged runs only)

    @property
    def ok(self) -> bool:
        """Green: pytest finished normally, ran at least one test, none failed or errored."""
        return (self.outcome == "completed" and self.exit_code == 0 and self.passed > 0
                and self.failed == 0 and self.errors == 0)

    def counts(self) -> str:
        return f"{self.passed} passed, {self.failed} failed, {self.errors} errors, {self.skipped} skipped"

    def to_dict(self) -> dict:
        return {**asdict(self), "ok": self.ok}

    @classmethod
    def from_event(cls, event: dict) -> "TestRun":
        """The run a transcript's test_run event recorded."""
        return cls(**{k: event[k] for k in cls.__dataclass_fields__ if k in event})


# ---------------------------------------------------------------------------------------------
# Which interpreter.

def _base_interpreter() -> str:
    if not running_as_root() or isolation.reachable(Path(sys.base_prefix), isolation.NOBODY):
        return sys.executable
    for candidate in (f"/usr/bin/python{sys.version_info.major}.{sys.version_info.minor}", "/usr/bin/python3"):
        if Path(candidate).exists():
            return candidate
    raise SandboxError(f"{sys.executable} lives where uid {isolation.NOBODY} cannot reach it and there is no "
                       "/usr/bin/python3; set sandbox.python to an interpreter with pytest")


def _quiet(cmd: list[str]) -> None:
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    if done.returncode:
        raise SandboxError(f"creating the sandbox venv failed: {' '.join(cmd)}: {done.stderr.strip()[-500:]}")


def venv_python(venv: Path, windows: bool = sys.platform == "win32") -> Path:
    """A venv's interpreter: Scripts\\python.exe on Windows, bin/python elsewhere."""
    return venv / "Scripts" / "python.exe" if windows else venv / "bin" / "python"


@contextmanager
def _locked(path: Path) -> Iterator[None]:
    """Only one process at a time past this point (an exclusive lock on `path`)."""
    with open(path, "a+b") as lock:
        if sys.platform == "win32":
            import msvcrt
            while True:
                try:
                    msvcrt.locking(lock.fileno(), msvcrt.LK_NBLCK, 1)
                    break
                except OSError:
                    time.sleep(0.2)
        else:
            try:
                import fcntl
                fcntl.flock(lock, fcntl.LOCK_EX)
            except ImportError:  # a system without fcntl: parallel first runs may both make the venv
                pass
        yield


def default_venv() -> Path:
    """A venv with only pytest, made once and reused (a lock keeps parallel runs from racing)."""
    folder = cache_dir()
    folder.mkdir(parents=True, exist_ok=True)
    venv = folder / f"sandbox-py{sys.version_info.major}{sys.version_info.minor}"
    python = venv_python(venv)
    with _locked(folder / "sandbox.lock"):
        if (venv / "ready").exists():
            return python
        shutil.rmtree(venv, ignore_errors=True)
        base = _base_interpreter()
        print(f"Creating the sandbox interpreter (a venv with pytest) in {venv} ...", file=sys.stderr)
        if shutil.which("uv"):
            _quiet(["uv", "venv", "-q", "--python", base, str(venv)])
            _quiet(["uv", "pip", "install", "-q", "--python", str(python), "pytest"])
        else:
            _quiet([base, "-m", "venv", str(venv)])
            _quiet([str(python), "-m", "pip", "install", "-q", "--disable-pip-version-check", "pytest"])
        for path in (folder, venv):
            path.chmod(0o755)
        (venv / "ready").write_text("ok\n")
    return python


def conda_python(name: str, windows: bool = sys.platform == "win32") -> PurePath:
    """The interpreter of the conda env called `name`, as `conda env list --json` places it:
    ENV\\python.exe on Windows, ENV/bin/python elsewhere (not checked here: find_interpreter does)."""
    conda = shutil.which("conda") or os.environ.get("CONDA_EXE")
    if not conda:
        raise SandboxError(f"sandbox.conda_env is '{name}' but conda is not on PATH; "
                           "set sandbox.python to that env's interpreter instead")
    try:
        envs = json.loads(subprocess.run([conda, "env", "list", "--json"], capture_output=True,
                                         text=True, timeout=60).stdout)["envs"]
    except (OSError, ValueError, KeyError, subprocess.TimeoutExpired) as e:
        raise SandboxError(f"`conda env list --json` failed: {e}") from None
    flavour: type[PurePath] = PureWindowsPath if windows else PurePosixPath
    for prefix in envs:
        if flavour(prefix).name == name or (name == "base" and prefix == envs[0]):
            return flavour(prefix, "python.exe") if windows else flavour(prefix, "bin", "python")
    raise SandboxError(f"conda env '{name}' not found; create it with: conda create -n {name} python=3.11 pytest -y")


def find_interpreter(cfg: SandboxConfig) -> Path:
    if cfg.python:
        path = Path(cfg.python).expanduser()
        if not (path.is_file() and os.access(path, os.X_OK)):
            raise SandboxError(f"sandbox.python: {path} is not an executable file")
        return path
    if cfg.conda_env:
        path = Path(conda_python(cfg.conda_env))
        if not path.is_file():
            raise SandboxError(f"conda env '{cfg.conda_env}' has no interpreter at {path}; install one with: "
                               f"conda install -n {cfg.conda_env} python=3.11 pytest -y")
        return path
    return default_venv()


_FACTS = ("import json, os, sys, pytest; print(json.dumps({'paths': [sys.prefix, sys.base_prefix, "
          "os.path.realpath(sys.executable)], 'pytest': os.path.realpath(pytest.__file__)}))")


def _stamp(files: list[Path]) -> list:
    """Which files these are, as the file system says: device, inode, size, mtime (None: missing)."""
    stamps = []
    for f in files:
        try:
            st = os.stat(f)
            stamps.append([str(f), st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns])
        except OSError:
            stamps.append([str(f), None])
    return stamps


def interpreter_paths(python: Path) -> list[str]:
    """Folders the interpreter needs that are not under /usr (bound read-only under bwrap), after
    checking that it runs and imports pytest. That costs an interpreter start with pytest (the
    largest part of our start-up), so it is done once per interpreter: the answer is kept in our
    cache folder and used only while the interpreter, its pyvenv.cfg and pytest's own file are
    still the same files (else checked again)."""
    cache = cache_dir() / "interpreters.json"
    files = [python, python.resolve(), python.parent.parent / "pyvenv.cfg"]
    try:
        entry = json.loads(cache.read_text()).get(str(python), {})
    except (OSError, ValueError, AttributeError):
        entry = {}
    if entry and entry.get("stamp") == _stamp([*files, Path(entry.get("pytest", "/nonexistent"))]):
        return entry["paths"]
    try:
        done = subprocess.run([str(python), "-c", _FACTS], capture_output=True, text=True, timeout=120)
    except subprocess.TimeoutExpired:
        raise SandboxError(f"{python} did not start within 120 s") from None
    except OSError as e:
        raise SandboxError(f"{python} does not run: {e.strerror or e}") from None
    if "No module named 'pytest'" in done.stderr:
        raise SandboxError(f"{python} cannot import pytest; install it with: {python} -m pip install pytest")
    if done.returncode:
        raise SandboxError(f"{python} does not run: {done.stderr.strip()[-300:]}")
    facts = json.loads(done.stdout)
    prefix, base, real = facts["paths"]
    paths = sorted(p for p in {prefix, base, str(Path(real).parent.parent), str(python.parent.parent)}
                   if not p.startswith("/usr/"))
    _remember(cache, str(python), {"paths": paths, "pytest": facts["pytest"],
                                   "stamp": _stamp([*files, Path(facts["pytest"])])})
    return paths


def _remember(cache: Path, key: str, entry: dict) -> None:
    """Add one entry to a JSON cache file (written whole, then renamed: never half a file)."""
    try:
        cache.parent.mkdir(parents=True, exist_ok=True)
        try:
            entries = json.loads(cache.read_text())
        except (OSError, ValueError):
            entries = {}
        entries = {**(entries if isinstance(entries, dict) else {}), key: entry}
        write_atomic(cache, json.dumps(entries, indent=1))
    except OSError:
        pass  # no cache: checked again next time


# ---------------------------------------------------------------------------------------------
# Reading pytest's report.

CAPTURED_CHARS = 1000  # printed output of a failing test: its end, where the clues usually are
_TIMINGS = re.compile(r"\s*\bin \d+(?:\.\d+)?s\b(?: \(\d+:\d+:\d+\))?|\[\s*\d+%\]")


def strip_timings(text: str) -> str:
    return _TIMINGS.sub("", text)


def _tail(path: Path, limit: int) -> str:
    try:
        with open(path, "rb") as f:
            f.seek(max(0, f.seek(0, os.SEEK_END) - limit))
            data = f.read()
    except OSError:
        return ""
    return strip_timings(data.decode("utf-8", errors="replace").replace("\x00", "")).strip()


REPORT_LIMIT = 32 * 1024 * 1024


_CAPTURE_HEADER = re.compile(r"^-+ Captured \w+ -+$", re.MULTILINE)


def parse_junit(xml_path: Path) -> Optional[tuple[dict[str, int], list[tuple[str, str, str]]]]:
    """Counts, and (kind, test id, text) for each failure or error; None if there is no report."""
    data = read_regular_file(xml_path, REPORT_LIMIT)
    try:
        root = ET.fromstring(data) if data else None
    except ET.ParseError:
        root = None
    if root is None:
        return None
    counts = {"passed": 0, "failed": 0, "errors": 0, "skipped": 0}
    problems = []
    for case in root.iter("testcase"):
        test_id = "::".join(p for p in (case.get("classname", ""), case.get("name", "")) if p)
        kinds = {child.tag for child in case}
        captured = "\n".join(_CAPTURE_HEADER.sub("", c.text or "").strip() for c in case if c.tag in ("system-out", "system-err")).strip()
        for child in case:
            if child.tag in ("failure", "error"):
                text = (child.text or child.get("message") or "").strip()
                if captured:
                    text += f"\n--- captured output ---\n{captured[-CAPTURED_CHARS:]}"
                problems.append(("FAILED" if child.tag == "failure" else "ERROR", test_id, text))
        if "error" in kinds:
            counts["errors"] += 1
        elif "failure" in kinds:
            counts["failed"] += 1
        elif "skipped" in kinds:
            counts["skipped"] += 1
        else:
            counts["passed"] += 1
    return counts, problems


def _signal_name(code: int) -> str:
    try:
        return signal.Signals(code - 128).name
    except ValueError:
        return f"signal {code - 128}"


def summarize(report: Optional[tuple], exit_code: Optional[int], timed_out: bool, seconds: float,
              log: Path, cfg: SandboxConfig) -> TestRun:
    limit = cfg.output_chars
    counts = report[0] if report else {"passed": 0, "failed": 0, "errors": 0, "skipped": 0}
    if timed_out:
        outcome, head = "timeout", prompts.run_timeout(cfg.timeout)
    elif exit_code is not None and exit_code > 128:
        outcome = "killed"
        head = prompts.run_killed(_signal_name(exit_code), cfg.cpu_seconds, cfg.memory_mb, cfg.file_size_mb)
    elif report is None:
        outcome, head = "no_report", prompts.run_no_report(exit_code)
    else:
        outcome = "completed"
        head = prompts.NO_TESTS if exit_code == 5 or not sum(counts.values()) else prompts.run_counts(counts)
    parts = [head]
    if report and report[1]:
        share = max(300, (limit - len(head)) // len(report[1]))
        for kind, test_id, text in report[1]:
            text = strip_timings(text)
            parts.append(f"{kind} {test_id}\n{text[-share:] if len(text) > share else text}")
    elif outcome != "completed":
        tail = _tail(log, limit)
        if tail:
            parts.append("Last output:\n" + tail)
    output = "\n\n".join(parts)
    if len(output) > limit:
        output = output[:limit] + "\n[... output cut]"
    return TestRun(exit_code=exit_code, seconds=round(seconds, 3), outcome=outcome, output=output, **counts)


_INI_SECTIONS = {"pytest.ini": "", "pyproject.toml": "[tool.pytest.ini_options]", "tox.ini": "[pytest]",
                 "setup.cfg": "[tool:pytest]"}


def pytest_config_args(workdir: Path, only: Optional[set[str]] = None) -> list[str]:
    """Only the workspace's own pytest settings count: never a pytest.ini or conftest.py found in
    a folder above it (pytest searches upward when the workspace has none); `only`: of these
    files, the ones named there (the others configure nothing)."""
    config = os.devnull
    for name, section in _INI_SECTIONS.items():
        if only is not None and name not in only:
            continue
        data = read_regular_file(workdir / name, 1024 * 1024)
        if data is not None and section.encode() in data:
            config = str(workdir / name)
            break
    return ["-c", config, f"--rootdir={workdir}", f"--confcutdir={workdir}"]


# ---------------------------------------------------------------------------------------------

class Sandbox:
    """Runs pytest for the orchestrator; one per agent process."""

    def __init__(self, cfg: SandboxConfig):
        self.cfg = cfg
        self.python = find_interpreter(cfg)
        paths = interpreter_paths(self.python)
        run_as = cfg.user if running_as_root() and sys.platform == "linux" else -1
        if run_as == isolation.JUDGE:
            raise SandboxError(f"sandbox.user {run_as} is the judge's user: the tests must run as another (default 65534)")
        layer = cfg.isolation
        if layer in ("auto", "bwrap"):
            if isolation.bwrap_works():
                layer = "bwrap"
            elif layer == "bwrap":
                raise SandboxError("sandbox.isolation is bwrap but `bwrap ... true` fails here; "
                                   "install bubblewrap (apt-get install bubblewrap) or use isolation: basic")
            else:
                layer = "basic"
        namespaces = layer == "basic" and cfg.namespaces and isolation.unshare_works()
        self.runtime = runtime_files.runtime_root()
        self.confinement = isolation.Confinement(layer, run_as, [*paths, str(self.runtime)], namespaces,
                                                 runtime=str(self.runtime))
        self.confinement.limits = procs.rlimits_in_effect(isolation.rlimit_values(cfg, run_as))
        if layer == "basic" and run_as >= 0 and not isolation.reachable(self.python.resolve(), run_as):
            raise SandboxError(f"{self.python} is not reachable for uid {run_as}, which runs the tests when the "
                               "agent is root; install bubblewrap or use an interpreter outside /root")
        procs.become_subreaper()
        self.warm = None
        self._judge_warm: Optional[warm.Runner] = None
        self._judge_warm_usable = True
        if cfg.warm and warm.applies(self.confinement):
            env = isolation.clean_environment(Path("/nonexistent"), Path("/tmp"), self.python.parent)
            self.warm = warm.Runner(self.python, self.runtime, env)

    def judge_runner(self) -> Optional[warm.Runner]:
        """The judge's warm runner (warm.judge_applies): started at the first judged run, then each
        judged run's judge is a fresh fork of it; None where it does not apply or it is gone."""
        if self._judge_warm is None and warm.judge_applies(self.confinement) and self._judge_warm_usable:
            env = isolation.clean_environment(Path("/nonexistent"), Path("/tmp"), self.python.parent)
            try:
                self._judge_warm = warm.Runner(self.python, self.runtime, env, preload=warm.JUDGE_PRELOAD)
            except OSError:  # it did not start (no process to spare): every judged run starts cold
                self._judge_warm_usable = False
        return self._judge_warm

    def server_pids(self) -> set[int]:
        """The warm runners' server processes: they live as long as this Sandbox (nothing of a run
        stays below them: each run's tree is killed after it)."""
        return {runner.proc.pid for runner in (self.warm, self._judge_warm) if runner is not None}

    def judge_runner_gone(self) -> None:
        """It ended (killed, or it failed to start a run): the judged runs start cold from now on."""
        self._judge_warm, self._judge_warm_usable = None, False

    def pytest_main(self) -> str:
        """The script that runs pytest in the sandbox (sandbox_runtime/pytest_main.py, our copy)."""
        return runtime_files.entry(self.runtime, "pytest_main.py")

    def gives(self) -> dict:
        """What the sandbox gives on this machine, as data (result.json)."""
        return {**self.confinement.gives(), "interpreter": str(self.python), "warm": self.warm is not None}

    def hide(self, folders: list[Path]) -> None:
        """Folders the tests must not see (the task's files with its hidden tests, the runs with
        their transcripts): under bwrap nothing outside the run's copy is visible anyway; the
        basic layer with namespaces mounts an empty tmpfs over each (what the run needs below
        it is bound back), and refuses to start when one is the root folder; plain basic cannot."""
        folders = [f for f in folders if f.is_dir()]
        if self.confinement.layer == "basic" and self.confinement.namespaces and any(len(f.parts) < 2 for f in folders):
            raise SandboxError("the task file or the runs folder is in /, which cannot be hidden from the tests "
                               "(they would read the hidden tests); move it into a folder of its own")
        self.confinement.hidden = [str(f) for f in folders]

    def describe(self) -> str:
        how = ("; warm runner (pytest imported once, a fresh fork per run)" if self.warm else
               "; warm runner not used (it needs the basic layer with namespaces, as root)" if self.cfg.warm else "")
        return f"{self.confinement.describe()}; interpreter {self.python}{how}"

    def run_pytest(self, source: Path, scratch: Path, network: Optional[bool] = None,
                   targets: tuple[str, ...] = (), trusted: Optional[dict[str, str]] = None,
                   trusted_setup_only: bool = False) -> TestRun:
        """One pytest run on a fresh copy of `source`, and what that run may prove.

        The copy is what test code can touch: the files the agent keeps never change under a test,
        and nothing a run leaves behind (bytecode, a deleted file, a chmod) reaches the next run.
        `trusted` files (the task's own tests: path -> content) are laid over the copy and must be
        byte-identical after the run. A run during which test code changed a trusted file, created or changed a
        pytest set-up file, or planted bytecode is `tampered`: it proves nothing. A run whose
        sandbox never started is `not_run`. `scratch` keeps the log beside it, out of the tests' reach.
        `trusted_setup_only`: only trusted files set pytest up (the verdict's plain run: the model's
        conftest.py or pytest.ini does not decide how the task's tests run, as in the judge; its
        other conftest.py files are removed from the copy, its ini files stay for its code to read)."""
        trusted = trusted or {}
        scratch.mkdir(parents=True, exist_ok=True)
        stage = self.stage(scratch)
        workdir = stage / "workspace"
        copy_files(source, workdir)
        for rel, content in trusted.items():
            put_file(workdir, rel, content)
        before = setup_files(workdir)
        if trusted_setup_only:
            for rel in [rel for rel in before if rel not in trusted and PurePosixPath(rel).name == "conftest.py"]:
                (workdir / rel).unlink()
                del before[rel]
        for sub in ("home", "tmp"):
            (stage / sub).mkdir()
        report, log = stage / "report.xml", scratch.with_name(scratch.name + ".log")
        env = isolation.clean_environment(stage / "home", stage / "tmp", self.python.parent)
        args = ["-q", "-p", "no:cacheprovider", "--color=no", "--tb=short", f"--junitxml={report}",
                "-o", "junit_logging=out-err", *pytest_config_args(workdir, set(trusted) if trusted_setup_only else None),
                "--", *targets]
        try:
            network = self.cfg.network if network is None else network
            result = self.warm.run(self.confinement, args, workdir, [stage], env, log, self.cfg, network) if self.warm else None
            if result is None:  # cold: a new interpreter (also when the warm runner is gone)
                self.warm = None
                result = isolation.run(self.confinement, self.python, [self.pytest_main(), *args], workdir, [stage],
                                       env, log, self.cfg, network)
            if not result.started:
                return TestRun(0, 0, 0, 0, result.exit_code, round(result.seconds, 3), "not_run",
                               prompts.run_not_started(result.problem))
            run = summarize(parse_junit(report), result.exit_code, result.timed_out, result.seconds, log, self.cfg)
            run.leftover_processes = result.leftovers_killed
            tampering = find_tampering(workdir, before, trusted)
        finally:
            if stage.parent != scratch:  # a stage outside the run folder is not kept
                isolation.remove_tree(stage)
        if tampering:
            return replace(run, outcome="tampered", output=prompts.run_tampered(tampering, run.output))
        return run

    def stage(self, scratch: Path, also: tuple[int, ...] = ()) -> Path:
        """A fresh folder for one run: in the run folder when the test user (and the users in
        `also`, unconfined: the judge's) can reach it, else (root, a private run folder) in a
        reachable scratch area, so the permissions of the user's own folders never change."""
        conf = self.confinement
        users = (() if conf.layer == "bwrap" else (conf.run_as,)) + also
        if all(uid < 0 or isolation.reachable(scratch, uid) for uid in users):
            stage = scratch / "stage"
            isolation.remove_tree(stage)
            stage.mkdir()
            return stage
        base = cache_dir() / "stage"
        base.mkdir(parents=True, exist_ok=True)
        base.chmod(0o755)
        return Path(tempfile.mkdtemp(prefix="stage-", dir=base))


# ---------------------------------------------------------------------------------------------
# The copy a run works on, and what test code may not change in it.



def is_test_file(rel: str) -> bool:
    """pytest's default test file names."""
    name = Path(rel).name
    return name.endswith(".py") and (name.startswith("test_") or name.endswith("_test.py"))


def copy_files(source: Path, dest: Path) -> None:
    """Copy regular files and symlinks (as links, never followed); caches are left out."""
    dest.mkdir(parents=True)
    for folder, dirs, names in os.walk(source):
        dirs[:] = [d for d in dirs if d not in SKIPPED_FOLDERS]
        rel_folder = Path(folder).relative_to(source)
        for name in names + [d for d in dirs if os.path.islink(os.path.join(folder, d))]:
            src, target = Path(folder) / name, dest / rel_folder / name
            target.parent.mkdir(parents=True, exist_ok=True)
            if src.is_symlink():
                os.symlink(os.readlink(src), target)
            elif stat.S_ISREG(src.lstat().st_mode):
                shutil.copyfile(src, target, follow_symlinks=False)


def setup_files(root: Path) -> dict[str, Optional[bytes]]:
    """Every pytest set-up file and cached bytecode file below root, with its content."""
    found = {}
    for folder, dirs, names in os.walk(root):
        for name in names:
            if name in PYTEST_SETUP_FILES or name.endswith((".pyc", ".pyo")) or os.path.basename(folder) == "__pycache__":
                path = Path(folder) / name
                found[path.relative_to(root).as_posix()] = read_regular_file(path, 1024 * 1024)
    return found


def find_tampering(root: Path, before: dict[str, Optional[bytes]], trusted: dict[str, str]) -> list[str]:
    """What test code changed that only the task may set."""
    problems = []
    for rel, content in trusted.items():
        now = read_regular_file(root / rel, len(content.encode()) + 1)
        if now != content.encode():
            problems.append(f"{rel} was {'deleted' if now is None else 'changed'}")
    try:
        after = setup_files(root)
    except OSError:
        return problems + ["the workspace was made unreadable"]
    for rel, now in after.items():
        if before.get(rel, b"<new>") != now:
            problems.append(f"{rel} was {'created' if rel not in before else 'changed'}")
    return problems

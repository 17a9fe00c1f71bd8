"""Start-up: from the command to the first model request, what that time is made of, and the
first run on a machine (making the sandbox's venv with pytest: `venv` + pip against `uv`).
Prints tables; asserts nothing.

    .venv/bin/python bench/startup_bench.py [--runs 5] [--venv-runs 2] [--skip-venv]

The command is the README's, against a scripted KoboldCPP on a free port (tests/fake_servers.py),
timed from starting the process to the model request arriving. "first start" removes the
interpreter check's cache before each run (what a run after installing or changing the sandbox
interpreter pays); both kinds run interleaved. The venv table uses the sandbox's own commands
(sandbox.default_venv) with the package caches off and on; uv comes from the dev extra.
"""
from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

import isolation  # noqa: E402
import llm_client  # noqa: E402
import sandbox  # noqa: E402
from config import Config, SandboxConfig  # noqa: E402
from fake_servers import FakeKoboldCpp, action  # noqa: E402


class TimedKobold(FakeKoboldCpp):
    """Notes when the first generation request arrives."""

    def route(self, method, path, body):
        if method == "POST" and "generate" in path or "chat/completions" in path:
            self.first_request = getattr(self, "first_request", None) or time.perf_counter()
        return super().route(method, path, body)


def ms(values: list[float]) -> str:
    return f"{statistics.median(values) * 1000:>9.1f} {min(values) * 1000:>8.1f} {max(values) * 1000:>8.1f}"


def command_to_request(folder: Path, first_start: bool) -> float:
    if first_start:
        (sandbox.cache_dir() / "interpreters.json").unlink(missing_ok=True)
    with TimedKobold([action("list_files")]) as server:
        start = time.perf_counter()
        subprocess.run([sys.executable, "run_task.py", "--task", "example_tasks/fizzbuzz.txt", "--server", server.url,
                        "--max-steps", "1", "--runs-dir", str(folder / "runs")], cwd=ROOT,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=120)
        return server.first_request - start


def timed(func) -> float:
    start = time.perf_counter()
    func()
    return time.perf_counter() - start


def parts(runs: int) -> dict[str, list[float]]:
    """Each piece of the start-up on its own, interleaved."""
    python = sandbox.find_interpreter(SandboxConfig())
    cache = sandbox.cache_dir() / "interpreters.json"
    times: dict[str, list[float]] = {}
    with FakeKoboldCpp() as server:
        for _ in range(runs):
            for name, func in [
                ("bare interpreter (python -c pass)", lambda: subprocess.run([sys.executable, "-c", "pass"])),
                ("interpreter + our imports", lambda: subprocess.run([sys.executable, "-c", "import run_task"], cwd=ROOT)),
                ("server probe (connect)", lambda: llm_client.connect(Config(server=server.url), True, say=lambda _: None)),
                ("bwrap probe", isolation.bwrap_works),
                ("unshare probe (basic layer)", isolation.unshare_works),
                ("venv lookup (ready?)", lambda: sandbox.find_interpreter(SandboxConfig())),
                ("interpreter check, uncached", lambda: (cache.unlink(missing_ok=True), sandbox.interpreter_paths(python))),
                ("interpreter check, cached", lambda: sandbox.interpreter_paths(python)),
                ("Sandbox() with the cache", lambda: sandbox.Sandbox(SandboxConfig())),
            ]:
                times.setdefault(name, []).append(timed(func))
    return times


def make_venv(tool: str, folder: Path, caches: bool) -> None:
    """The sandbox venv as sandbox.default_venv makes it, with `tool`."""
    venv, python = folder / "venv", folder / "venv" / "bin" / "python"
    shutil.rmtree(venv, ignore_errors=True)
    if tool == "uv":
        uv = str(Path(sys.executable).parent / "uv")
        subprocess.run([uv, "venv", "-q", "--python", sandbox._base_interpreter(), str(venv)], check=True)
        subprocess.run([uv, "pip", "install", "-q", *([] if caches else ["--no-cache"]), "--python", str(python),
                        "pytest"], check=True)
    else:
        subprocess.run([sandbox._base_interpreter(), "-m", "venv", str(venv)], check=True)
        subprocess.run([str(python), "-m", "pip", "install", "-q", "--disable-pip-version-check",
                        *([] if caches else ["--no-cache-dir"]), "pytest"], check=True, stderr=subprocess.DEVNULL)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--venv-runs", type=int, default=2)
    parser.add_argument("--skip-venv", action="store_true")
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="tdd-agent-bench-"))
    head = f"{'median ms':>9} {'min ms':>8} {'max ms':>8}"

    starts: dict[str, list[float]] = {"first start (no interpreter cache)": [], "later starts": []}
    for _ in range(args.runs):
        for name, first in (("first start (no interpreter cache)", True), ("later starts", False)):
            starts[name].append(command_to_request(folder, first))
    print(f"run_task.py --task example_tasks/fizzbuzz.txt --server <scripted KoboldCPP>: start to first model "
          f"request, {args.runs} runs each, interleaved")
    print(f"{'':<36} {head}")
    for name, values in starts.items():
        print(f"{name:<36} {ms(values)}")

    print(f"\nthe pieces, in this process, {args.runs} runs each, interleaved")
    print(f"{'':<36} {head}")
    for name, values in parts(args.runs).items():
        print(f"{name:<36} {ms(values)}")

    if not args.skip_venv:
        venvs: dict[str, list[float]] = {}
        for _ in range(args.venv_runs):
            for caches in (False, True):
                for tool in ("venv + pip", "uv"):
                    name = f"{tool}, package cache {'on' if caches else 'off'}"
                    venvs.setdefault(name, []).append(timed(lambda: make_venv(tool.split()[0], folder, caches)))
        print(f"\nfirst run on a machine: the sandbox venv with pytest, {args.venv_runs} runs each, interleaved")
        print(f"{'':<36} {'median s':>9} {'min s':>8} {'max s':>8}")
        for name, values in venvs.items():
            print(f"{name:<36} {statistics.median(values):>9.2f} {min(values):>8.2f} {max(values):>8.2f}")
    shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()

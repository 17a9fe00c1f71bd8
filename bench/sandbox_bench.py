"""Median wall time of one pytest run (3 tests) per sandbox layer (each on a fresh copy of the
workspace, checked afterwards, as the agent runs it), and with the warm runner (sandbox.warm),
side by side with a bare `python -m pytest` in the same interpreter. Prints a table; asserts nothing.

    .venv/bin/python bench/sandbox_bench.py [--runs 15]
"""
from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import isolation  # noqa: E402
from config import SandboxConfig  # noqa: E402
from sandbox import Sandbox  # noqa: E402

TESTS = "def test_a():\n    assert 1\n\ndef test_b():\n    assert 'x'\n\ndef test_c():\n    assert [0]\n"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=15)
    runs = parser.parse_args().runs
    folder = Path(tempfile.mkdtemp(prefix="tdd-agent-bench-"))
    folder.chmod(0o755)
    workspace = folder / "workspace"
    workspace.mkdir()
    (workspace / "test_three.py").write_text(TESTS)
    layers = (["basic", "basic+warm"] + (["basic+ns", "basic+ns+warm"] if isolation.unshare_works() else [])
              + (["bwrap"] if isolation.bwrap_works() else []))
    sandboxes = {layer: Sandbox(SandboxConfig(isolation=layer.split("+")[0], namespaces="+ns" in layer,
                                              warm="+warm" in layer)) for layer in layers}
    python = str(next(iter(sandboxes.values())).python)
    times: dict[str, list[float]] = {name: [] for name in ["bare", *layers]}
    for _ in range(runs):  # interleaved, so load from other jobs hits every column alike
        start = time.perf_counter()
        subprocess.run([python, "-m", "pytest", "-q", "-p", "no:cacheprovider"], cwd=workspace,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
        times["bare"].append(time.perf_counter() - start)
        for layer, sandbox in sandboxes.items():
            start = time.perf_counter()
            result = sandbox.run_pytest(workspace, folder / f"sandbox-{layer}")
            times[layer].append(time.perf_counter() - start)
            assert result.ok and result.passed == 3, result.output
    bare = statistics.median(times["bare"])
    print(f"pytest, 3 tests, {runs} runs each, interpreter {python}")
    print(f"{'how':<14} {'median ms':>10} {'min ms':>8} {'max ms':>8} {'vs bare':>9} {'ratio':>6}")
    for name, values in times.items():
        median = statistics.median(values)
        print(f"{name:<14} {median * 1000:>10.1f} {min(values) * 1000:>8.1f} {max(values) * 1000:>8.1f} "
              f"{(median - bare) * 1000:>+8.1f} {median / bare:>6.2f}")
    pieces(python, runs)
    shutil.rmtree(folder, ignore_errors=True)


def pieces(python: str, runs: int) -> None:
    """What the cold path adds to a bare run: the launcher's interpreter, and bwrap or unshare
    in front of it (interleaved, as above)."""
    launcher = [python, "-I", "-S", "-c", "pass"]
    run_as = isolation.NOBODY if os.getuid() == 0 else -1
    commands = {"python -I -S -c pass (the launcher)": launcher,
                "python -c 'import pytest'": [python, "-c", "import pytest"]}
    if isolation.unshare_works():
        commands["unshare ... + the launcher"] = isolation.unshare_command(run_as, network=False) + launcher
    if isolation.bwrap_works():
        conf = isolation.Confinement("bwrap", run_as, [str(Path(python).parent.parent), "/usr"])
        commands["bwrap ... + the launcher"] = isolation.bwrap_command(conf, [], Path("/"), network=False) + launcher
    times: dict[str, list[float]] = {name: [] for name in commands}
    for _ in range(runs):
        for name, cmd in commands.items():
            start = time.perf_counter()
            subprocess.run(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, check=True)
            times[name].append(time.perf_counter() - start)
    print(f"\nthe pieces, {runs} runs each, interleaved")
    for name, values in times.items():
        print(f"{name:<40} {statistics.median(values) * 1000:>8.1f} ms")


if __name__ == "__main__":
    main()

"""Median wall time of the stats task's hidden tests (reference solution) run judged
(judge.run_judged) and run plainly in one process (Sandbox.run_pytest), per isolation layer;
then what one call into the model's code costs judged (a test calling a model function
--calls times: wall and CPU seconds of the whole run, ours and our children's, the warm judge's
server included, over the calls).
Prints tables; asserts nothing.

    .venv/bin/python bench/judge_bench.py [--runs 7] [--calls 10000]
"""
from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import isolation  # noqa: E402
from config import SandboxConfig  # noqa: E402
from judge import run_judged  # noqa: E402
from sandbox import Sandbox  # noqa: E402
from tasks import load_task  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--calls", type=int, default=10000, help="calls into the model's code in the second table (0: none)")
    args = parser.parse_args()
    runs = args.runs
    task = load_task(ROOT / "example_tasks" / "stats")
    files = {**task.spec.files, "stats.py": (ROOT / "tests" / "solutions" / "stats" / "stats.py").read_text()}
    layers = ["basic"] + (["bwrap"] if isolation.bwrap_works() else [])
    print(f"{'layer':8} {'plain run_pytest':>18} {'judged':>10}   (median of {runs}, stats hidden tests)")
    for layer in layers:
        sandbox = Sandbox(SandboxConfig(isolation=layer))
        folder = Path(tempfile.mkdtemp(prefix="judge-bench-"))
        folder.chmod(0o755)
        try:
            times = {"plain": [], "judged": []}
            for _ in range(runs):
                for kind in times:
                    workspace = folder / kind / "workspace"
                    shutil.rmtree(workspace.parent, ignore_errors=True)
                    workspace.mkdir(parents=True)
                    for rel, content in files.items():
                        (workspace / rel).write_text(content)
                    start = time.monotonic()
                    if kind == "plain":
                        for rel, content in task.spec.hidden_tests.items():
                            (workspace / rel).write_text(content)
                        result = sandbox.run_pytest(workspace, folder / kind / "scratch",
                                                    targets=tuple(task.spec.hidden_tests))
                    else:
                        result = run_judged(sandbox, workspace, task.spec.hidden_tests, folder / kind / "scratch")
                    times[kind].append(time.monotonic() - start)
                    assert result.ok and result.passed == 6, result.output
            print(f"{layer:8} {statistics.median(times['plain']):>17.3f}s {statistics.median(times['judged']):>9.3f}s")
        finally:
            shutil.rmtree(folder, ignore_errors=True)
    if args.calls:
        per_call(layers, runs, args.calls)


CALLS_TEST = """from mod import f

def test_calls():
    total = 0
    for i in range({n}):
        total += f(i)
    assert total == sum(range({n})) + {n}
"""


def per_call(layers: list[str], runs: int, calls: int) -> None:
    """A judged run that calls the model's code `calls` times, and one that calls it once: the
    difference over the calls is one call's cost (a round trip between the judge and the worker)."""
    print(f"\n{'layer':8} {'1 call':>14} {f'{calls} calls':>16} {'per call':>18}   (median of {runs}; wall / CPU s)")
    for layer in layers:
        sandbox = Sandbox(SandboxConfig(isolation=layer))
        folder = Path(tempfile.mkdtemp(prefix="judge-bench-"))
        folder.chmod(0o755)
        try:
            workspace = folder / "workspace"
            workspace.mkdir()
            (workspace / "mod.py").write_text("def f(x):\n    return x + 1\n")
            figures = {}
            for n in (1, calls):
                walls, cpus = [], []
                for i in range(runs):
                    before = _cpu(sandbox)
                    start = time.monotonic()
                    result = run_judged(sandbox, workspace, {"test_calls.py": CALLS_TEST.format(n=n)}, folder / f"s{n}-{i}")
                    walls.append(time.monotonic() - start)
                    cpus.append(_cpu(sandbox) - before)
                    assert result.ok and result.passed == 1, result.output
                figures[n] = statistics.median(walls), statistics.median(cpus)
            (w1, c1), (wn, cn) = figures[1], figures[calls]
            per = f"{(wn - w1) / (calls - 1) * 1e6:.0f} / {(cn - c1) / (calls - 1) * 1e6:.0f} us"
            print(f"{layer:8} {w1:>6.2f} / {c1:<5.2f} {wn:>7.2f} / {cn:<6.2f} {per:>18}")
        finally:
            shutil.rmtree(folder, ignore_errors=True)


def _cpu(sandbox: Sandbox) -> float:
    """CPU seconds of this process, its reaped children, and the sandbox's warm servers with the
    runs they reaped (a warm judge is the server's child, not ours)."""
    import resource

    import psutil
    total = 0.0
    for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN):
        usage = resource.getrusage(who)
        total += usage.ru_utime + usage.ru_stime
    for pid in sandbox.server_pids():
        times = psutil.Process(pid).cpu_times()
        total += times.user + times.system + times.children_user + times.children_system
    return total


if __name__ == "__main__":
    main()

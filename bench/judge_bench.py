"""Median wall time of the stats task's hidden tests (reference solution) run judged
(judge.run_judged) and run plainly in one process (Sandbox.run_pytest), per isolation layer.
Prints a table; asserts nothing.

    .venv/bin/python bench/judge_bench.py [--runs 7]
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
    runs = parser.parse_args().runs
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


if __name__ == "__main__":
    main()

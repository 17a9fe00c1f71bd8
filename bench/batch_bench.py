"""What a batch costs beyond its runs: N small tasks solved by a scripted KoboldCPP (one per task,
same replies), as a batch with --jobs 1 and --jobs 2. Per run: the run's own time (result.json
seconds.total) and its process's wall time as the batch saw it; their difference is the
overhead of one run (interpreter start, imports, connecting, sandbox set-up, writing results).
Prints a table; asserts nothing.

    .venv/bin/python bench/batch_bench.py [--tasks 8]
"""
from __future__ import annotations

import argparse
import json
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

import yaml  # noqa: E402

import isolation  # noqa: E402
from fake_servers import PerTaskKoboldCpp, action  # noqa: E402


def task(key: str) -> str:
    return yaml.safe_dump({"prompt": f"{key}: write calc_{key}.py with f(x) returning x + 1.",
                           "hidden_tests": {f"test_h_{key}.py": f"from calc_{key} import f\n\ndef test_f():\n    assert f(1) == 2\n"}})


def script(key: str) -> list:
    return [action("write_file", path=f"calc_{key}.py", content="def f(x):\n    return x + 1\n"),
            action("write_file", path=f"test_{key}.py", content=f"from calc_{key} import f\n\ndef test_f():\n    assert f(0) == 1\n"),
            action("run_tests"), action("finish", summary="done")]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=int, default=8)
    n = parser.parse_args().tasks
    folder = Path(tempfile.mkdtemp(prefix="batch-bench-"))
    folder.chmod(0o755)
    keys = [f"task{i:03d}" for i in range(n)]
    (folder / "tasks").mkdir()
    for key in keys:
        (folder / "tasks" / f"{key}.yaml").write_text(task(key))
    jobs = [1] + ([2] if isolation.bwrap_works() else [])
    print(f"{n} tasks, each: 2 writes, a test run, finish (a second test run is not needed), judged hidden tests")
    print(f"{'jobs':>4} {'batch wall s':>12} {'sum of runs s':>14} {'median run s':>13} {'median overhead s':>18}")
    try:
        for j in jobs:
            with PerTaskKoboldCpp({k: script(k) for k in keys}) as server:
                start = time.monotonic()
                proc = subprocess.run([sys.executable, str(ROOT / "run_task.py"), "--batch", "tasks", "--server", server.url,
                                       "--jobs", str(j), "--batch-id", f"jobs{j}"] + (["--isolation", "bwrap"] if j > 1 else []),
                                      cwd=folder, capture_output=True, text=True)
                wall = time.monotonic() - start
            summary = json.loads((folder / "runs" / f"jobs{j}" / "summary.json").read_text())
            runs = summary["runs"]
            assert proc.returncode == 0 and summary["totals"]["solved"] == n, proc.stdout + proc.stderr
            print(f"{j:>4} {wall:>12.1f} {sum(r['seconds'] for r in runs):>14.1f} "
                  f"{statistics.median(r['seconds'] for r in runs):>13.2f} "
                  f"{statistics.median(r['overhead_seconds'] for r in runs):>18.2f}")
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()

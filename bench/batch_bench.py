"""What a batch costs beyond its runs: N small tasks solved by a scripted KoboldCPP (one per task,
same replies), as a batch with --jobs 1 and --jobs 2, with the local executor and the Ray one
side by side (interleaved) on the same machine. Per run: the run's own time (result.json
seconds.total) and its process's wall time as the batch saw it; their difference is the
overhead of one run (interpreter start, imports, connecting, sandbox set-up, writing results;
with Ray also scheduling the task and its answer). Ray: a one-node cluster on this machine
(ray.cluster_utils, a `sandbox` per core), started once (its start-up is printed), and before it
a batch with no cluster running, which starts its own Ray (its start-up is in its wall time;
with a cluster already running here it joins that one instead; Ray 2.60 writes its token to
~/.ray/auth_token then).
Without Ray installed, local only. Prints a table; asserts nothing.

    .venv/bin/python bench/batch_bench.py [--tasks 8]
"""
from __future__ import annotations

import argparse
import json
import os
import re
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


def batch(folder: Path, keys: list[str], executor: str, jobs: int, extra: list[str]) -> str:
    """One batch of every task; its row of the table."""
    batch_id = re.sub(r"\W+", "-", f"{executor} {jobs}")
    with PerTaskKoboldCpp({k: script(k) for k in keys}) as server:
        start = time.monotonic()
        proc = subprocess.run([sys.executable, str(ROOT / "run_task.py"), "--batch", "tasks", "--server", server.url,
                               "--jobs", str(jobs), "--batch-id", batch_id, *extra] + (["--isolation", "bwrap"] if jobs > 1 else []),
                              cwd=folder, capture_output=True, text=True)
        wall = time.monotonic() - start
    summary = json.loads((folder / "runs" / batch_id / "summary.json").read_text())
    runs = summary["runs"]
    assert proc.returncode == 0 and summary["totals"]["solved"] == len(keys), proc.stdout + proc.stderr
    return (f"{executor:>16} {jobs:>4} {wall:>12.1f} {sum(r['seconds'] for r in runs):>14.1f} "
            f"{statistics.median(r['seconds'] for r in runs):>13.2f} "
            f"{statistics.median(r['overhead_seconds'] for r in runs):>18.2f}")


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
    try:
        from ray.cluster_utils import Cluster
    except ImportError:
        Cluster = None
    print(f"{n} tasks, each: 2 writes, a test run, finish (a second test run is not needed), judged hidden tests")
    print(f"{'executor':>16} {'jobs':>4} {'batch wall s':>12} {'sum of runs s':>14} {'median run s':>13} {'median overhead s':>18}")
    cluster = None
    try:
        if Cluster is not None:  # no cluster running yet: the batch starts Ray on this machine itself
            print(batch(folder, keys, "ray (own Ray)", 1, ["--executor", "ray"]))
            start = time.monotonic()
            cores = os.cpu_count() or 1
            cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": cores, "resources": {"sandbox": cores},
                                                                    "include_dashboard": False})
            cluster.wait_for_nodes()
            startup = time.monotonic() - start
        for j in jobs:
            print(batch(folder, keys, "local", j, []))
            if cluster is not None:
                print(batch(folder, keys, "ray", j, ["--executor", "ray", "--ray-address", cluster.address]))
        if cluster is not None:
            print(f"Ray cluster start-up (one node, {cores} sandboxes, until it takes tasks): {startup:.1f} s")
    finally:
        if cluster is not None:
            cluster.shutdown()
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()

"""Batches with `--executor ray` on a real Ray cluster on this machine (ray.cluster_utils: a head
that runs nothing, and two worker nodes with 1 CPU and one `sandbox` each), against the scripted
servers and tasks of test_batch: the same results as the local executor, a worker node lost
mid-batch, Ctrl-C and --resume, packed run folders. Real runs (real pytest, real sandbox)."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import psutil
import pytest

from fake_servers import PerTaskKoboldCpp
from test_batch import needs_bwrap, solve, statuses, summary, wait_for, wander, write_tasks, wrong
from test_cli_as_typed import clone, user  # noqa: F401  (the fixture and the user's command)

ray = pytest.importorskip("ray")
from ray.cluster_utils import Cluster  # noqa: E402

# one xdist worker runs the whole module: one cluster (not one per worker), and the lost-node test last
pytestmark = [pytest.mark.ray, pytest.mark.xdist_group("ray")]


@pytest.fixture(scope="module")
def cluster():
    """One cluster for the module (starting one takes seconds): the head schedules nothing, so a
    worker node can be removed while the cluster lives on."""
    ignored = signal.signal(signal.SIGINT, signal.SIG_IGN)  # as `ray start ... &` from a script: nodes ignore SIGINT
    try:
        made = Cluster(initialize_head=True, head_node_args={"num_cpus": 0, "include_dashboard": False})
        workers = [made.add_node(num_cpus=1, resources={"sandbox": 1}) for _ in range(2)]
    finally:
        signal.signal(signal.SIGINT, ignored)
    made.wait_for_nodes()
    yield made, workers
    made.shutdown()


def on_ray(cluster, *args: str) -> list[str]:
    return ["--executor", "ray", "--ray-address", cluster[0].address, *args]


def runs_left(batch_dir: Path) -> list[str]:
    """run_task.py processes still running for this batch, on any node (all are on this machine)."""
    left = []
    for proc in psutil.process_iter(["cmdline"]):
        cmd = " ".join(proc.info["cmdline"] or [])
        if "run_task.py" in cmd and str(batch_dir) in cmd:
            left.append(cmd)
    return left


def folder(run: Path) -> dict[str, str]:
    """What a run folder holds that does not depend on when or where it ran: its files, the
    workspace's contents, the result's verdict."""
    files = {str(p.relative_to(run)): "" for p in run.rglob("*") if p.is_file() and "__pycache__" not in p.parts}
    files.update({str(p.relative_to(run)): p.read_text() for p in (run / "workspace").rglob("*.py")
                  if "__pycache__" not in p.parts})
    result = json.loads((run / "result.json").read_text())
    files["result.json"] = json.dumps({k: result[k] for k in ("status", "steps", "finish_accepted", "hidden_tests",
                                                               "invalid_replies", "tokens")}, sort_keys=True)
    return files


def same_totals(t: dict) -> dict:
    return {k: v for k, v in t.items() if k not in ("seconds", "wall_seconds", "overhead_seconds_per_run")}


@needs_bwrap
def test_a_batch_on_two_nodes_ends_as_the_local_batch_does(clone, cluster):
    write_tasks(clone, {"alpha": 1, "beta": 2, "gamma": 3, "delta": 4})
    scripts = {"alpha": solve("alpha", 1), "beta": solve("beta", 2), "gamma": wrong("gamma"), "delta": wander("delta")}
    procs = {}
    for name, extra in (("local", []), ("ray", on_ray(cluster))):
        with PerTaskKoboldCpp(scripts) as one, PerTaskKoboldCpp(scripts) as two:
            procs[name] = user(clone, "--batch", "batch_tasks", "--server", f"{one.url},{two.url}", "--jobs", "2",
                               "--batch-id", name, "--isolation", "bwrap", *extra)
    assert [p.returncode for p in procs.values()] == [1, 1], procs["ray"].stdout + procs["ray"].stderr
    local, remote = summary(clone, "local"), summary(clone, "ray")
    assert statuses(remote) == statuses(local) == {"alpha": "solved", "beta": "solved", "delta": "step_limit",
                                                  "gamma": "unsolved"}
    assert same_totals(remote["totals"]) == same_totals(local["totals"]) and remote["totals"]["solved"] == 2
    for task_id in statuses(local):
        assert folder(clone / "runs" / "ray" / task_id) == folder(clone / "runs" / "local" / task_id)
    # where each run ran: this machine, or one of the cluster's worker nodes (the head takes none)
    workers = {node.node_id for node in cluster[1]}
    assert {r["executor"] for r in local["runs"]} == {"local"} and {r["node"] for r in local["runs"]} == {os.uname().nodename}
    assert {r["executor"] for r in remote["runs"]} == {"ray"} and {r["node"] for r in remote["runs"]} <= workers
    assert remote["settings"]["executor"] == "ray"
    page = (clone / "runs" / "ray" / "report.html").read_text()
    assert "ran on" in page and remote["runs"][0]["node"][:12] in page
    assert runs_left(clone / "runs" / "ray") == []


def test_ctrl_c_stops_the_runs_on_the_nodes_and_resume_runs_only_what_is_not_done(clone, cluster):
    write_tasks(clone, {"alpha": 1, "beta": 2})
    beta = solve("beta", 2)
    scripts = {"alpha": solve("alpha", 1), "beta": [beta[0], {"delay": 120, "text": "x"}, *beta[1:]]}
    env = {k: v for k, v in os.environ.items() if not k.startswith("AGENT_")}
    with PerTaskKoboldCpp(scripts) as server:
        batch = subprocess.Popen([sys.executable, "run_task.py", "--batch", "batch_tasks", "--server", server.url,
                                  "--batch-id", "stopped", "--isolation", "basic", *on_ray(cluster)], cwd=clone,
                                 env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        transcript = clone / "runs" / "stopped" / "beta" / "transcript.jsonl"
        wait_for(lambda: server.served["beta"] == 2)  # the server holds the slow reply: the run waits mid-request
        batch.send_signal(signal.SIGINT)
        out, err = batch.communicate(timeout=120)
        assert batch.returncode == 1, out + err
        data = summary(clone, "stopped")
        assert statuses(data) == {"alpha": "solved", "beta": "interrupted"}, (out, err, data["runs"][-1]["reason"],
                                                                          (clone / "runs" / "stopped" / "beta" / "console.log").read_text()[-3000:])
        assert "--resume runs/stopped" in out
        assert runs_left(clone / "runs" / "stopped") == []  # nothing left running on any node
        before = dict(server.served)
        again = user(clone, "--resume", "runs/stopped", *on_ray(cluster))
        after = dict(server.served)
    assert again.returncode == 0, again.stdout + again.stderr
    assert statuses(summary(clone, "stopped")) == {"alpha": "solved", "beta": "solved"}
    assert after["alpha"] == before["alpha"] and after["beta"] == before["beta"] + 3  # the finished run is not run again
    events = [json.loads(line)["type"] for line in transcript.read_text().splitlines()]
    assert events.count("start") == 1 and events.count("resume") == 1


@needs_bwrap
def test_packed_run_folders_come_back_as_the_shared_ones(clone, cluster):
    write_tasks(clone, {"alpha": 1, "gamma": 3})
    scripts = {"alpha": solve("alpha", 1), "gamma": wrong("gamma")}
    for mode in ("shared", "packed"):  # a server each (KoboldCPP's token count is of its last generation, any run's)
        with PerTaskKoboldCpp(scripts) as one, PerTaskKoboldCpp(scripts) as two:
            proc = user(clone, "--batch", "batch_tasks", "--server", f"{one.url},{two.url}", "--batch-id", mode,
                        "--isolation", "bwrap", *on_ray(cluster, "--ray-run-folders", mode))
        assert proc.returncode == 1, proc.stdout + proc.stderr
    assert statuses(summary(clone, "packed")) == statuses(summary(clone, "shared")) == {"alpha": "solved", "gamma": "unsolved"}
    for task_id in ("alpha", "gamma"):
        packed = clone / "runs" / "packed" / task_id
        assert folder(packed) == folder(clone / "runs" / "shared" / task_id)
        assert "Result:" in (packed / "console.log").read_text()
    shown = user(clone, "--show", "runs/packed/alpha")  # an ordinary run folder afterwards
    assert shown.returncode == 0 and "finish" in shown.stdout


def test_without_ray_the_executor_says_how_to_install_it(clone):
    stub = clone / "no_ray"
    (stub / "ray").mkdir(parents=True)
    (stub / "ray" / "__init__.py").write_text("raise ImportError('No module named ray')\n")
    write_tasks(clone, {"alpha": 1})
    with PerTaskKoboldCpp({}) as server:
        proc = user(clone, "--batch", "batch_tasks", "--server", server.url, "--executor", "ray", "--isolation", "basic",
                    env={"PYTHONPATH": str(stub)})
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1, proc.stderr
    assert proc.stderr.startswith("error: ") and "pip install -e '.[ray]'" in proc.stderr
    assert not (clone / "runs").exists() or not any((clone / "runs").iterdir())


def test_a_lost_worker_node_s_run_goes_on_on_the_other_node(clone, cluster):
    """Last in the module: it takes a worker node away."""
    write_tasks(clone, {"alpha": 1, "beta": 2})
    alpha = solve("alpha", 1)
    # the stalled generation runs on after its run is lost (no one is left to abort it), and the
    # resumed run waits behind it: long enough to remove the node, short enough for the suite
    scripts = {"alpha": [alpha[0], {"delay": 10, "text": "x"}, *alpha[1:]], "beta": solve("beta", 2)}
    env = {k: v for k, v in os.environ.items() if not k.startswith("AGENT_")}
    with PerTaskKoboldCpp(scripts) as server:
        batch = subprocess.Popen([sys.executable, "run_task.py", "--batch", "batch_tasks", "--server", f"{server.url}#2",
                                  "--batch-id", "lost", "--isolation", "bwrap", *on_ray(cluster)], cwd=clone,
                                 env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        transcript = clone / "runs" / "lost" / "alpha" / "transcript.jsonl"
        wait_for(lambda: server.served["alpha"] == 2)  # the server holds the slow reply: the run waits mid-request
        line = (clone / "runs" / "lost" / "alpha.console.log").read_text().splitlines()[0]
        first = next(node for node in cluster[1] if node.node_id in line)
        cluster[0].remove_node(first)
        out, err = batch.communicate(timeout=180)
        served = dict(server.served)
    assert batch.returncode == 0, out + err
    data = summary(clone, "lost")
    assert statuses(data) == {"alpha": "solved", "beta": "solved"} and data["totals"]["done"] == 2
    run = next(r for r in data["runs"] if r["task_id"] == "alpha")
    assert run["attempts"] == 2 and run["node"] != first.node_id and run["steps"] == 4
    assert served == {"alpha": 5, "beta": 4}  # the stalled request, then the rest once: nothing twice
    events = [json.loads(line)["type"] for line in transcript.read_text().splitlines()]
    assert events.count("start") == 1 and events.count("resume") == 1
    assert "retry  alpha" in out and runs_left(clone / "runs" / "lost") == []

"""Batch runs as a user types them (`python run_task.py --batch ...` from a copy of the repository,
relative paths) against scripted KoboldCPP servers that answer per task: statuses and totals,
two servers, a server killed mid-batch, Ctrl-C and --resume. The runs are real: real pytest in
the real sandbox, real judged hidden tests."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

import isolation
from batch import find_tasks, open_servers
from config import Config, ConfigError
from conftest import ROOT, SIGINT_IGNORED
from fake_servers import FakeKoboldCpp, FakeLlamaServer, PerTaskKoboldCpp, action
from test_cli_as_typed import clone, user  # noqa: F401  (the fixture and the user's command)

needs_bwrap = pytest.mark.skipif(not isolation.bwrap_works(), reason="--jobs 2 needs the bwrap layer")


def task_yaml(key: str, add: int) -> str:
    """A task whose prompt holds `key` (the scripted server picks the task's replies by it)."""
    return yaml.safe_dump({"prompt": f"{key}: write calc_{key}.py with f(x) returning x + {add}.",
                           "hidden_tests": {f"test_hidden_{key}.py": f"from calc_{key} import f\n\n"
                                                                      f"def test_f():\n    assert f(1) == {1 + add}\n"}})


def solve(key: str, add: int) -> list:
    return [action("write_file", path=f"calc_{key}.py", content=f"def f(x):\n    return x + {add}\n"),
            action("write_file", path=f"test_{key}.py", content=f"from calc_{key} import f\n\ndef test_f():\n    assert f(0) == {add}\n"),
            action("run_tests"), action("finish", summary="done")]


def wrong(key: str) -> list:
    """Passes its own (weak) tests, fails the hidden ones: finish accepted, unsolved."""
    return [action("write_file", path=f"calc_{key}.py", content="def f(x):\n    return x\n"),
            action("write_file", path=f"test_{key}.py", content=f"from calc_{key} import f\n\ndef test_f():\n    assert f(0) == 0\n"),
            action("run_tests"), action("finish", summary="done")]


def wander(key: str) -> list:
    """A different file each turn: never stuck, never finished: the step limit."""
    return [action("write_file", path=f"calc_{key}.py", content=f"# draft {n}\n") for n in range(6)]


def write_tasks(clone: Path, keys: dict[str, int]) -> None:
    folder = clone / "batch_tasks"
    folder.mkdir()
    for key, add in keys.items():
        (folder / f"{key}.yaml").write_text(task_yaml(key, add))
    # quick runs and a quick end when a server goes away
    (clone / "agent.yaml").write_text(yaml.safe_dump({"retries": 1, "max_steps": 5, "sandbox": {"timeout": 30}}))


def summary(clone: Path, batch_id: str) -> dict:
    return json.loads((clone / "runs" / batch_id / "summary.json").read_text())


def statuses(data: dict) -> dict[str, str]:
    return {r["task_id"]: r["status"] for r in data["runs"]}


@needs_bwrap
def test_a_batch_on_two_servers_gives_each_task_its_status_and_the_totals(clone):
    write_tasks(clone, {"alpha": 1, "beta": 2, "gamma": 3, "delta": 4})
    scripts = {"alpha": solve("alpha", 1), "beta": solve("beta", 2), "gamma": wrong("gamma"), "delta": wander("delta")}
    with PerTaskKoboldCpp(scripts) as one, PerTaskKoboldCpp(scripts) as two:
        proc = user(clone, "--batch", "batch_tasks", "--server", f"{one.url},{two.url}", "--jobs", "2",
                    "--batch-id", "four", "--isolation", "bwrap")
        served = {key: one.served[key] + two.served[key] for key in scripts}
        both_used = sum(one.served.values()) > 0 and sum(two.served.values()) > 0
    assert proc.returncode == 1, proc.stdout + proc.stderr  # it ran, and not every task was solved
    data = summary(clone, "four")
    assert statuses(data) == {"alpha": "solved", "beta": "solved", "delta": "step_limit", "gamma": "unsolved"}
    t = data["totals"]
    assert (t["tasks"], t["done"], t["solved"], t["unsolved"], t["step_limit"], t["stuck"], t["error"]) == (4, 4, 2, 1, 1, 0, 0)
    assert t["finish_accepted"] == 3  # gamma's finish was accepted, its hidden tests failed
    assert both_used and served == {"alpha": 4, "beta": 4, "gamma": 4, "delta": 5}
    gamma = next(r for r in data["runs"] if r["task_id"] == "gamma")
    assert gamma["hidden_tests"]["failed"] == 1 and gamma["steps"] == 4 and gamma["seconds"] > 0
    assert gamma["tokens"]["prompt"] > 0 and set(data["settings"]) >= {"servers", "jobs"}
    # every run is an ordinary run folder, with its console output beside its transcript
    for task_id in statuses(data):
        run = clone / "runs" / "four" / task_id
        assert json.loads((run / "result.json").read_text())["task_id"] == task_id
        assert (run / "console.log").read_text().count("Result:") == 1
    md = (clone / "runs" / "four" / "summary.md").read_text()
    assert "| gamma | unsolved |" in md and "2 of 4 solved" in md
    page = (clone / "runs" / "four" / "report.html").read_text()  # the batch page links every run's page
    assert all(f'href="{task_id}/report.html"' in page and (clone / "runs" / "four" / task_id / "report.html").exists()
               for task_id in statuses(data))
    # the per-run console detail stays out of the batch's own output unless --verbose
    assert "thought:" not in proc.stdout and "solved" in proc.stdout


def test_the_default_batch_id_never_overwrites_an_earlier_batch(clone):
    write_tasks(clone, {"alpha": 1})
    with PerTaskKoboldCpp({"alpha": solve("alpha", 1) * 3}) as server:
        first = user(clone, "--batch", "batch_tasks/*.yaml", "--server", server.url, "--isolation", "basic")
        second = user(clone, "--batch", "batch_tasks/*.yaml", "--server", server.url, "--isolation", "basic")
        again = user(clone, "--batch", "batch_tasks", "--server", server.url, "--batch-id", "x", "--isolation", "basic",
                     "--verbose")
        taken = user(clone, "--batch", "batch_tasks", "--server", server.url, "--batch-id", "x", "--isolation", "basic")
    assert first.returncode == 0 and second.returncode == 0 and again.returncode == 0, first.stderr + second.stderr
    batches = sorted(p.name for p in (clone / "runs").iterdir())
    assert len(batches) == 3 and all(summary(clone, b)["totals"]["solved"] == 1 for b in batches)
    assert taken.returncode == 2 and taken.stderr.startswith("error: ") and "already exists" in taken.stderr
    assert "thought:" in again.stdout and not (clone / "runs" / "x" / "alpha" / "console.log").exists()  # --verbose
    assert "thought:" not in first.stdout and "thought:" in (clone / "runs" / batches[0] / "alpha" / "console.log").read_text()


def test_parallel_runs_under_the_basic_layer_are_refused(clone):
    write_tasks(clone, {"alpha": 1, "beta": 2})
    with PerTaskKoboldCpp({}) as server:
        proc = user(clone, "--batch", "batch_tasks", "--server", f"{server.url}#2", "--isolation", "basic")
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1 and "bwrap" in proc.stderr
    assert not (clone / "runs").exists() or not any((clone / "runs").iterdir())


def test_bad_batch_input_is_one_line(clone):
    missing = user(clone, "--batch", "nowhere")
    assert missing.returncode == 2 and missing.stderr.startswith("error: ") and missing.stderr.count("\n") == 1
    (clone / "list.txt").write_text("example_tasks/fizzbuzz.txt\nexample_tasks/nope.yaml\n")
    listed = user(clone, "--batch", "list.txt")
    assert listed.returncode == 2 and "list.txt:2: example_tasks/nope.yaml: task not found" in listed.stderr
    single = user(clone, "--task", "example_tasks/fizzbuzz.txt", "--server", "http://127.0.0.1:9,http://127.0.0.1:10")
    assert single.returncode == 2 and single.stderr == "error: several servers are for --batch; a single run takes one --server\n"
    named = user(clone, "--batch", "example_tasks", "--run-id", "x")
    assert named.returncode == 2 and named.stderr.startswith("error: --run-id is for a single run")
    gone = user(clone, "--batch", "example_tasks", "--server", "http://127.0.0.1:9")
    assert gone.returncode == 3 and gone.stderr.strip().splitlines()[-1].startswith("error: no model server answers")


def test_tasks_are_found_in_a_folder_a_glob_and_a_list(tmp_path):
    names = [p.name for p in find_tasks("example_tasks", ROOT)]
    assert names == ["bank", "fizzbuzz.txt", "invoice", "slugify.yaml", "stats", "todo"]  # not fizzbuzz.hidden_tests
    assert [p.name for p in find_tasks("example_tasks/*.yaml", ROOT)] == ["slugify.yaml"]
    (tmp_path / "tasks.list").write_text(f"# two of them\n{ROOT}/example_tasks/stats\n\n{ROOT}/example_tasks/todo\n")
    assert [p.name for p in find_tasks("tasks.list", tmp_path)] == ["stats", "todo"]
    with pytest.raises(ConfigError, match="no tasks there"):
        find_tasks(".", tmp_path / ".." / tmp_path.name)


def test_each_server_says_its_slots_or_the_user_does():
    with FakeLlamaServer(slots=3) as llama, FakeKoboldCpp() as kobold:
        servers = open_servers(Config(server=f"{llama.url},{kobold.url},{kobold.url}#2"), print)
    assert [(s.url, s.slots) for s in servers] == [(llama.url, 3), (kobold.url, 1), (kobold.url, 2)]
    down = open_servers(Config(server="http://127.0.0.1:9"), lambda _: None)
    assert [(s.alive, s.slots) for s in down] == [(False, 1)]


def test_servers_come_from_the_flag_or_agent_yaml():
    listed = Config(servers=["http://a:1#2", "http://b:2/"])
    assert listed.server_list() == ["http://a:1#2", "http://b:2/"] and listed.server_url() == "http://a:1"
    flag = Config(server="http://x:1, http://y:2#3", servers=["http://a:1"])
    assert flag.server_list() == ["http://x:1", "http://y:2#3"]
    assert Config().server_list() == [] and Config().server_url() == "http://127.0.0.1:5001"


def serve_in_process(clone: Path, scripts: dict) -> tuple[subprocess.Popen, str]:
    """A scripted server in a process of its own, so it can be killed like a real one."""
    path = clone / f"scripts-{len(list(clone.glob('scripts-*')))}.json"
    path.write_text(json.dumps(scripts))
    proc = subprocess.Popen([sys.executable, str(ROOT / "tests" / "fake_servers.py"), str(path)],
                            stdout=subprocess.PIPE, text=True)
    return proc, proc.stdout.readline().strip()


@needs_bwrap
def test_a_server_killed_mid_batch_takes_no_more_runs_and_its_run_goes_on_elsewhere(clone):
    write_tasks(clone, {"alpha": 1, "beta": 2, "gamma": 3})
    # alpha starts on the first server, which dies while alpha waits for its second reply
    first, first_url = serve_in_process(clone, {"alpha": [solve("alpha", 1)[0], {"delay": 120, "text": "x"}]})
    try:
        with PerTaskKoboldCpp({"alpha": solve("alpha", 1)[1:], "beta": solve("beta", 2), "gamma": solve("gamma", 3)}) as second:
            batch = subprocess.Popen([sys.executable, "run_task.py", "--batch", "batch_tasks", "--server",
                                      f"{first_url},{second.url}", "--jobs", "2", "--batch-id", "killed",
                                      "--isolation", "bwrap"], cwd=clone, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True,
                                     env={k: v for k, v in os.environ.items() if not k.startswith("AGENT_")})
            transcript = clone / "runs" / "killed" / "alpha" / "transcript.jsonl"
            wait_for(lambda: transcript.exists() and transcript.read_text().count('"llm_request"') == 2)
            first.kill()
            out, err = batch.communicate(timeout=300)
    finally:
        first.kill()
        first.wait()
    assert batch.returncode == 0, out + err
    data = summary(clone, "killed")
    assert statuses(data) == {"alpha": "solved", "beta": "solved", "gamma": "solved"}
    alpha = next(r for r in data["runs"] if r["task_id"] == "alpha")
    assert alpha["server"] == second.url and alpha["attempts"] == 2 and alpha["steps"] == 4
    assert f"Server {first_url} is gone" in out
    events = [json.loads(line)["type"] for line in transcript.read_text().splitlines()]
    assert events.count("start") == 1 and events.count("resume") == 1  # one run folder, continued


def wait_for(condition, seconds: float = 120) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "timed out waiting"
        time.sleep(0.1)


def test_ctrl_c_stops_the_batch_and_resume_finishes_only_what_is_not_done(clone):
    write_tasks(clone, {"alpha": 1, "beta": 2})
    beta = solve("beta", 2)
    scripts = {"alpha": solve("alpha", 1), "beta": [beta[0], {"delay": 120, "text": "x"}, *beta[1:]]}
    env = {k: v for k, v in os.environ.items() if not k.startswith("AGENT_")}
    with PerTaskKoboldCpp(scripts) as server:
        batch = subprocess.Popen([sys.executable, "run_task.py", "--batch", "batch_tasks", "--server", server.url,
                                  "--batch-id", "stopped", "--isolation", "basic"], cwd=clone, env=env,
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        wait_for(lambda: server.served["beta"] == 2)  # the server holds the slow reply: the run waits mid-request
        batch.send_signal(signal.SIGINT)
        out, err = batch.communicate(timeout=120)
        assert batch.returncode == 1, out + err
        data = summary(clone, "stopped")
        assert statuses(data) == {"alpha": "solved", "beta": "interrupted"}
        assert data["totals"]["done"] == 1 and "--resume runs/stopped" in out
        before = dict(server.served)
        again = user(clone, "--resume", "runs/stopped")  # the batch's server and flags are kept
        after = dict(server.served)
    assert again.returncode == 0, again.stdout + again.stderr
    assert statuses(summary(clone, "stopped")) == {"alpha": "solved", "beta": "solved"}
    assert after["alpha"] == before["alpha"] and after["beta"] == before["beta"] + 3  # the finished run is not run again
    result = json.loads((clone / "runs" / "stopped" / "beta" / "result.json").read_text())
    assert result["steps"] == 4 and result["sandbox"] == "basic"


def test_ctrl_c_stops_a_batch_started_with_sigint_ignored(clone):
    """As a script's background job starts it: the batch and its runs make SIGINT their own."""
    write_tasks(clone, {"beta": 2})
    env = {k: v for k, v in os.environ.items() if not k.startswith("AGENT_")}
    with PerTaskKoboldCpp({"beta": [solve("beta", 2)[0], {"delay": 120, "text": "x"}]}) as server:
        batch = subprocess.Popen([*SIGINT_IGNORED, sys.executable, "run_task.py", "--batch", "batch_tasks", "--server",
                                  server.url, "--batch-id", "ignored", "--isolation", "basic"], cwd=clone, env=env,
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        wait_for(lambda: server.served["beta"] == 2)  # the server holds the slow reply: the run waits mid-request
        batch.send_signal(signal.SIGINT)
        try:
            out, err = batch.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            batch.kill()
            out, err = batch.communicate()
    assert batch.returncode == 1, out + err
    assert statuses(summary(clone, "ignored")) == {"beta": "interrupted"}


EXAMPLES = {"bank": "overdraft", "invoice": "invoice_total", "stats": "bugs in stats.py", "todo": "todo app",
            "fizzbuzz": "fizzbuzz(n)", "slugify": "URL slug"}  # folder of the solution -> a word of the prompt


@needs_bwrap
def test_the_example_tasks_run_as_a_batch(clone):
    scripts = {key: [action("write_file", path=p.name, content=p.read_text())
                     for p in sorted((ROOT / "tests" / "solutions" / name).iterdir())] + [action("finish", summary="done")]
               for name, key in EXAMPLES.items()}
    with PerTaskKoboldCpp(scripts) as server:
        proc = user(clone, "--batch", "example_tasks", "--server", f"{server.url}#2", "--batch-id", "examples",
                    "--isolation", "bwrap")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    data = summary(clone, "examples")
    assert statuses(data) == {name: "solved" for name in EXAMPLES} and data["settings"]["jobs"] == 2
    assert all(r["hidden_tests"]["ok"] and r["hidden_tests"]["passed"] > 0 for r in data["runs"])
    assert data["totals"]["solved"] == data["totals"]["tasks"] == 6


@pytest.mark.slow
def test_a_two_task_batch_with_the_real_small_model_ends_with_a_summary(clone):
    pytest.importorskip("llama_cpp")
    (clone / "two.txt").write_text("example_tasks/fizzbuzz.txt\nexample_tasks/stats\n")
    (clone / "agent.yaml").write_text(yaml.safe_dump({"max_tokens": 512, "max_steps": 1}))
    proc = user(clone, "--batch", "two.txt", "--batch-id", "smol", timeout=900)  # no server: the bundled SmolLM2
    assert proc.returncode in (0, 1), proc.stdout + proc.stderr
    data = summary(clone, "smol")
    assert data["totals"]["tasks"] == data["totals"]["done"] == 2 and set(statuses(data)) == {"fizzbuzz", "stats"}
    assert all(r["model"] and r["tokens"]["completion"] > 0 and r["steps"] >= 1 for r in data["runs"])
    assert (clone / "runs" / "smol" / "summary.md").exists()


MAKE_VENV = """
import sys
from pathlib import Path
sys.path.insert(0, {root!r})
import sandbox
sandbox.cache_dir = lambda: Path({cache!r})  # a fresh cache: this test makes the interpreter itself
print(sandbox.default_venv())
"""


def test_runs_starting_together_make_the_shared_sandbox_interpreter_once(scratch):
    code = MAKE_VENV.format(root=str(ROOT), cache=str(scratch / "cache"))
    procs = [subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for _ in range(3)]
    outputs = [p.communicate(timeout=600) for p in procs]
    assert all(p.returncode == 0 for p in procs), outputs
    pythons = {out.strip() for out, _ in outputs}
    assert len(pythons) == 1 and sum("Creating the sandbox interpreter" in err for _, err in outputs) == 1
    python = pythons.pop()
    assert subprocess.run([python, "-c", "import pytest"]).returncode == 0


@needs_bwrap
def test_parallel_runs_cannot_see_each_other(clone):
    """Under bwrap a run's test code sees neither the other runs' folders, nor the tasks, nor
    the scratch area where, as root, the judged copies of every run live."""
    write_tasks(clone, {"alpha": 1})
    runs = clone / "runs" / "apart"
    spy_test = ("import os\n\ndef test_no_other_run_is_visible():\n"
                f"    assert os.listdir({str(runs)!r}) == ['spy']  # only the path to its own copy\n"
                f"    assert not os.path.exists({str(runs / 'alpha')!r})\n"
                "    assert not os.path.exists('/var/cache/tdd-agent/stage')\n"
                f"    assert not os.path.exists({str(clone / 'batch_tasks')!r})\n")
    (clone / "batch_tasks" / "spy.yaml").write_text(yaml.safe_dump({
        "prompt": "spy: look around.", "prove_tests": False,
        "hidden_tests": {"test_hidden_spy.py": "def test_nothing_to_see():\n    pass\n"}}))
    scripts = {"alpha": solve("alpha", 1), "spy": [action("write_file", path="test_spy.py", content=spy_test),
                                                   action("run_tests"), action("finish", summary="done")]}
    with PerTaskKoboldCpp(scripts) as server:
        proc = user(clone, "--batch", "batch_tasks", "--server", f"{server.url}#2", "--batch-id", "apart",
                    "--isolation", "bwrap")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert statuses(summary(clone, "apart")) == {"alpha": "solved", "spy": "solved"}
    spy = json.loads((runs / "spy" / "result.json").read_text())
    assert spy["last_test_run"]["passed"] == 1 and spy["finish_accepted"]

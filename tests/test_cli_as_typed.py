"""The README's command exactly as a user types it: a copy of the repository, the current folder at
its root, relative paths, default settings (no --config, no --runs-dir), against a scripted
KoboldCPP, under each sandbox layer this machine has. Only what a user would add is added:
--server (the scripted model is not on port 5001) and --isolation (to pick the layer)."""
from __future__ import annotations

import functools
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import isolation
from conftest import ROOT
from fake_servers import FakeKoboldCpp, FakeLlamaServer, action

LAYERS = ["basic"] + (["bwrap"] if isolation.bwrap_works() else [])
FIZZBUZZ = (ROOT / "tests" / "solutions" / "fizzbuzz" / "fizzbuzz.py").read_text()
FIZZ_TESTS = "from fizzbuzz import fizzbuzz\n\ndef test_fizz():\n    assert fizzbuzz(9) == 'Fizz'\n"
SOLVE_FIZZBUZZ = [action("write_file", path="fizzbuzz.py", content=FIZZBUZZ),
                  action("write_file", path="test_fizzbuzz.py", content=FIZZ_TESTS),
                  action("run_tests"), action("finish", summary="done")]


def copy_repository(dest: Path) -> Path:
    """The repository's files as a user's clone has them (tracked files, as they are now), and the
    bytecode of its modules a first run leaves (conftest.compile_the_agent; copy2 keeps the
    modification times it is checked against)."""
    for rel in _tracked_files() + [p.relative_to(ROOT).as_posix() for p in (ROOT / "__pycache__").glob("*.pyc")]:
        if (ROOT / rel).is_file():
            (dest / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / rel, dest / rel)
    return dest


@functools.lru_cache(maxsize=1)
def _tracked_files() -> list:
    files = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    return list(filter(None, files.split("\0")))


@pytest.fixture
def clone(scratch) -> Path:
    return copy_repository(scratch / "tdd-agent")


def user(clone: Path, *args: str, timeout: float = 300, env: dict = None) -> subprocess.CompletedProcess:
    env = {**{k: v for k, v in os.environ.items() if not k.startswith("AGENT_")}, **(env or {})}
    return subprocess.run([sys.executable, "run_task.py", *args], cwd=clone, capture_output=True, text=True,
                          env=env, timeout=timeout)


def result(clone: Path, run_id: str) -> dict:
    return json.loads((clone / "runs" / run_id / "result.json").read_text())


@pytest.mark.parametrize("layer", LAYERS)
def test_the_readme_command_ends_solved(clone, layer):
    with FakeKoboldCpp(SOLVE_FIZZBUZZ) as server:
        proc = user(clone, "--task", "example_tasks/fizzbuzz.txt", "--server", server.url, "--isolation", layer)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    res = result(clone, "fizzbuzz")
    assert res["status"] == "solved" and res["sandbox"] == layer
    counts = {"passed": 9, "failed": 0, "errors": 0, "skipped": 0}
    assert res["hidden_tests"] == {**counts, "ok": True, "outcome": "completed",
                                   "plain": {**counts, "ok": True, "outcome": "completed"}}  # judged, then plain
    assert "9 passed" in (clone / "runs" / "fizzbuzz" / "hidden-plain.log").read_text()
    assert (clone / "agent.yaml").exists() and (clone / "runs" / "fizzbuzz" / "workspace" / "fizzbuzz.py").exists()


@pytest.mark.parametrize("layer", LAYERS)
def test_a_run_stopped_at_the_step_limit_is_resumed_to_solved(clone, layer):
    with FakeKoboldCpp(SOLVE_FIZZBUZZ[:2]) as server:
        first = user(clone, "--task", "example_tasks/fizzbuzz.txt", "--server", server.url, "--isolation", layer,
                     "--max-steps", "2")
    assert first.returncode == 1 and result(clone, "fizzbuzz")["status"] == "step_limit"
    with FakeKoboldCpp(SOLVE_FIZZBUZZ[2:]) as server:
        again = user(clone, "--resume", "runs/fizzbuzz", "--server", server.url, "--isolation", layer)
    assert again.returncode == 0, again.stdout + again.stderr
    res = result(clone, "fizzbuzz")
    assert res["status"] == "solved" and res["steps"] == 4 and res["hidden_tests"]["ok"] is True


SLOW_HIDDEN = """\
prompt: Write fizzbuzz.py with fizzbuzz(n).
hidden_tests:
  test_slow_hidden.py: |
    import time
    from fizzbuzz import fizzbuzz

    def test_slowly():
        time.sleep(30)
        assert fizzbuzz(3) == "Fizz"
"""


@pytest.mark.parametrize("layer", LAYERS)
def test_ctrl_c_during_the_hidden_tests_is_not_solved(clone, layer):
    (clone / "slow.yaml").write_text(SLOW_HIDDEN)
    env = {k: v for k, v in os.environ.items() if not k.startswith("AGENT_")}
    with FakeKoboldCpp(SOLVE_FIZZBUZZ) as server:
        proc = subprocess.Popen([sys.executable, "run_task.py", "--task", "slow.yaml", "--server", server.url,
                                 "--isolation", layer], cwd=clone, env=env, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)
        transcript = clone / "runs" / "slow" / "transcript.jsonl"
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not (transcript.exists() and '"finish_accepted"' in transcript.read_text()):
            time.sleep(0.1)
        time.sleep(1.5)  # the hidden run has started and sleeps
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=60)
    assert proc.returncode == 1, out + err
    res = result(clone, "slow")
    assert res["status"] == "interrupted" and res["finish_accepted"] is True
    assert res["hidden_tests"]["ok"] is False and res["hidden_tests"]["outcome"].startswith("not run")


CALC = """\
prompt: Fix calc.py so that add adds.
files:
  calc.py: |
    def add(a, b):
        return a - b
  test_calc.py: |
    from calc import add

    def test_add():
        assert add(2, 3) == 5
"""
FORGE = ("import pathlib\n"
         "pathlib.Path(__file__).with_name('test_calc.py').write_text('def test_add():\\n    pass\\n')\n"
         "def add(a, b):\n    return a - b\n")


@pytest.mark.parametrize("layer", LAYERS)
def test_the_gates_rerun_that_rewrites_a_protected_test_is_not_solved(clone, layer):
    """A task without hidden tests: only the gate stands between a forged test and `solved`."""
    (clone / "calc.yaml").write_text(CALC)
    script = [action("write_file", path="calc.py", content="def add(a, b):\n    return a + b\n"),
              action("run_tests"),  # green, honestly
              action("write_file", path="calc.py", content=FORGE),
              action("write_file", path="test_a.py", content="import calc\n\ndef test_imports():\n    pass\n"),
              action("finish", summary="done")]  # the gate re-runs: test_a imports calc, which rewrites test_calc
    with FakeKoboldCpp(script) as server:
        proc = user(clone, "--task", "calc.yaml", "--server", server.url, "--isolation", layer, "--max-steps", "5")
    assert proc.returncode == 1, proc.stdout + proc.stderr
    res = result(clone, "calc")
    assert res["status"] == "step_limit" and res["finish_accepted"] is False
    assert res["last_test_run"]["outcome"] == "tampered"
    assert (clone / "runs" / "calc" / "workspace" / "test_calc.py").read_text() == "from calc import add\n\ndef test_add():\n    assert add(2, 3) == 5\n"


@pytest.mark.skipif(os.getuid() != 0, reason="only root runs the tests as another user")
# false: a container where unshare fails too; there, a second agent's own test user (sandbox.user)
@pytest.mark.parametrize("namespaces, test_user", [("true", "65534"), ("false", "65099")])
def test_root_without_bubblewrap_in_a_private_folder(scratch, namespaces, test_user):
    private = scratch / "home"
    private.mkdir(mode=0o700)
    clone = copy_repository(private / "tdd-agent")
    settings = {"AGENT_SANDBOX_NAMESPACES": namespaces, **({"AGENT_SANDBOX_USER": test_user} if test_user != "65534" else {})}
    with FakeKoboldCpp(SOLVE_FIZZBUZZ) as server:
        proc = user(clone, "--task", "example_tasks/fizzbuzz.txt", "--server", server.url, "--isolation", "basic",
                    env=settings)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert result(clone, "fizzbuzz")["status"] == "solved"
    assert (private.stat().st_mode & 0o777) == 0o700  # the user's folders keep their permissions
    ran_as = [e for e in map(json.loads, (clone / "runs" / "fizzbuzz" / "transcript.jsonl").read_text().splitlines())
              if e["type"] == "start"][0]["sandbox"]
    assert f"uid {test_user}" in ran_as


def test_a_long_run_in_a_small_context_is_compacted_and_solved(clone):
    """A user with a 4K-context server and a setting in the environment: the history is compacted
    (the transcript says so, with token counts) and the run still ends solved."""
    from test_context import long_script
    with FakeLlamaServer(long_script(8), context=4096) as server:
        proc = user(clone, "--task", "example_tasks/stats", "--server", server.url, "--isolation", "basic",
                    "--max-steps", "40", env={"AGENT_MAX_TOKENS": "1024", "AGENT_COMPACT_AT": "0.6"})
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert result(clone, "stats")["status"] == "solved" and "context compacted:" in proc.stdout
    events = [json.loads(line) for line in (clone / "runs" / "stats" / "transcript.jsonl").read_text().splitlines()]
    compacted = [e for e in events if e["type"] == "context_compacted"]
    assert compacted and all(e["tokens_after"] < e["tokens_before"] <= 0.6 * (4096 - 1024) + 400 for e in compacted)


@pytest.mark.parametrize("namespaces", ["true", "false"])
def test_the_warm_runner_as_typed(clone, namespaces):
    """sandbox.warm with the basic layer: solved, and a protected test that the model's code
    rewrites at test time is still caught (the runner is used only with namespaces, as root)."""
    env = {"AGENT_SANDBOX_WARM": "true", "AGENT_SANDBOX_NAMESPACES": namespaces}
    with FakeKoboldCpp(SOLVE_FIZZBUZZ) as server:
        proc = user(clone, "--task", "example_tasks/fizzbuzz.txt", "--server", server.url, "--isolation", "basic", env=env)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    used = namespaces == "true" and os.getuid() == 0 and isolation.unshare_works()
    assert ("warm runner (pytest imported once" if used else "warm runner not used") in proc.stdout
    (clone / "calc.yaml").write_text(CALC)
    script = [action("write_file", path="calc.py", content=FORGE),
              action("write_file", path="test_a.py", content="import calc\n\ndef test_imports():\n    pass\n"),
              action("finish", summary="done")]
    with FakeKoboldCpp(script) as server:
        proc = user(clone, "--task", "calc.yaml", "--server", server.url, "--isolation", "basic", "--max-steps", "3", env=env)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert result(clone, "calc")["last_test_run"]["outcome"] == "tampered"

"""The loop's pieces, in-process: an Orchestrator built directly with a scripted backend (no
subprocess, no HTTP), the run state that live runs and --resume share, and the verdict rules."""
from __future__ import annotations

import json

import pytest

import verdict
from config import Config, SandboxConfig
from conftest import ROOT
from fake_servers import ScriptedBackend, action
from orchestrator import Orchestrator
from context import RunState
from runlog import read_transcript
from sandbox import Sandbox
from tasks import load_task

STATS = ROOT / "example_tasks" / "stats"
GOOD_STATS = (ROOT / "tests" / "solutions" / "stats" / "stats.py").read_text()


@pytest.fixture(scope="module")
def sandbox():
    return Sandbox(SandboxConfig(timeout=30))


def run(scratch, sandbox, script, **settings):
    config = Config(runs_dir=str(scratch / "runs"), **settings)
    run_dir = scratch / "runs" / "stats"
    run_dir.mkdir(parents=True)
    backend = ScriptedBackend(script)
    orchestrator = Orchestrator(load_task(STATS), backend, sandbox, config, run_dir, say=lambda line: None)
    return orchestrator, orchestrator.run(), backend


def test_a_run_in_process_counts_like_its_transcript(scratch, sandbox):
    script = ["{bad", "I think I am done.", action("write_file", path="stats.py", content=GOOD_STATS),
              {"text": '{"thought": "cut', "truncated": True}, action("run_tests"), action("finish", summary="fixed")]
    orchestrator, result, backend = run(scratch, sandbox, script)
    assert result["status"] == "solved" and result["steps"] == 6 and result["invalid_replies"] == 3
    live = orchestrator.state
    assert (live.nudges, live.invalid_in_row, live.finish_accepted) == (1, 0, True)
    replayed = RunState([dict(m) for m in backend.sent[0][:2]])
    for event in read_transcript(orchestrator.run_dir):
        replayed.apply(event)
    same = ("step", "invalid_total", "invalid_in_row", "nudges", "tokens", "finish_accepted", "messages")
    assert {k: getattr(replayed, k) for k in same} == {k: getattr(live, k) for k in same}
    assert replayed.last_run["ok"] and replayed.last_run["workspace_state"]


def test_what_the_model_was_sent_is_the_history(scratch, sandbox):
    orchestrator, result, backend = run(scratch, sandbox, [action("list_files"), action("run_tests")], max_steps=2)
    last = backend.sent[-1]
    assert last[0]["role"] == "system" and '"action": "write_file"' in last[0]["content"]
    assert last[2] == {"role": "assistant", "content": action("list_files")}
    assert last[3]["content"] == "Observation:\nstats.py\ntest_stats.py"
    assert result["status"] == "step_limit"


@pytest.mark.parametrize("finish, changed, judged, why", [
    (True, [], {"hidden tests": {"ok": True}, "protected tests": None}, None),
    (True, [], {"hidden tests": None, "protected tests": None}, None),
    (False, [], {"hidden tests": {"ok": True}}, "finish was not accepted"),
    (True, ["test_x.py"], {"hidden tests": {"ok": True}}, "the protected tests were changed at the end: test_x.py"),
    (True, [], {"hidden tests": {"ok": False, "outcome": "not run: interrupted"}},
     "finish was accepted but the hidden tests did not pass when judged (not run: interrupted)"),
    (True, [], {"hidden tests": {"ok": True}, "protected tests": {"ok": False, "outcome": "completed"}},
     "finish was accepted but the protected tests did not pass when judged (completed)"),
])
def test_when_a_finished_run_is_solved(finish, changed, judged, why):
    assert verdict.failed_check(finish, changed, judged) == why


def test_a_task_without_tests_of_its_own_ends_unverified_never_solved(scratch, sandbox):
    (scratch / "t.yaml").write_text(json.dumps({"prompt": "write x.py"}))
    config = Config(runs_dir=str(scratch / "runs"))
    run_dir = scratch / "runs" / "t"
    run_dir.mkdir(parents=True)
    script = [action("write_file", path="x.py", content="X = 1\n"),
              action("write_file", path="test_x.py", content="from x import X\n\ndef test_x():\n    assert X == 1\n"),
              action("finish", summary="done")]
    result = Orchestrator(load_task(scratch / "t.yaml"), ScriptedBackend(script), sandbox, config, run_dir,
                          say=lambda line: None).run()
    assert result["status"] == "unverified" and result["verified"] is False and "not verified" in result["reason"]


def test_a_sandbox_that_cannot_start_is_no_test_result(scratch):
    """The original README bug: a bwrap bind that fails. The model is told the tests could not
    run, the transcript says so, and the judged verdict reads `not run: ...`."""
    import isolation
    if not isolation.bwrap_works():
        pytest.skip("needs bubblewrap")
    broken = Sandbox(SandboxConfig(isolation="bwrap", timeout=30))
    broken.confinement.readonly_paths.append("/nonexistent/tdd-agent-probe")
    config = Config(runs_dir=str(scratch / "runs"))
    run_dir = scratch / "runs" / "stats"
    run_dir.mkdir(parents=True)
    script = [action("write_file", path="stats.py", content=GOOD_STATS), action("run_tests"), action("finish", summary="x")]
    orchestrator = Orchestrator(load_task(STATS), ScriptedBackend(script), broken, config, run_dir, say=lambda line: None)
    result = orchestrator.run()
    tests = [e for e in read_transcript(run_dir) if e["type"] == "test_run"]
    assert tests and all(t["outcome"] == "not_run" and "Can't find source path" in t["output"] for t in tests)
    observation = [e for e in read_transcript(run_dir) if e["type"] == "observation"][1]["text"]
    assert observation.startswith("The tests could not run: the sandbox did not start")
    assert result["status"] != "solved" and result["hidden_tests"]["outcome"].startswith("not run")


# -- the model's own tests must fail on the starting code ----------------------------------------

WEAK = "from stats import median\n\ndef test_odd():\n    assert median([3, 1, 2]) == 2\n"  # passes on the buggy start
STRONG = "from stats import median\n\ndef test_even():\n    assert median([4, 1, 3, 2]) == 2.5\n"


def test_tests_that_pass_on_the_starting_code_are_refused_once(scratch, sandbox):
    script = [action("write_file", path="stats.py", content=GOOD_STATS), action("write_file", path="test_mine.py", content=WEAK),
              action("finish", summary="fixed"), action("finish", summary="fixed")]
    orchestrator, result, _ = run(scratch, sandbox, script)
    refused = [e for e in read_transcript(orchestrator.run_dir) if e["type"] == "finish_refused"]
    assert len(refused) == 1 and "also pass on the starting code" in refused[0]["reason"] and "test_mine.py" in refused[0]["reason"]
    assert result["status"] == "solved" and result["steps"] == 4
    assert result["own_tests"] == {"files": ["test_mine.py"], "passed_at_end": True, "failed_on_start": 0, "proved": False}


def test_tests_that_fail_on_the_starting_code_prove_the_change(scratch, sandbox):
    script = [action("write_file", path="stats.py", content=GOOD_STATS), action("write_file", path="test_mine.py", content=STRONG),
              action("finish", summary="fixed")]
    _, result, _ = run(scratch, sandbox, script)
    assert result["status"] == "solved" and result["steps"] == 3
    assert result["own_tests"] == {"files": ["test_mine.py"], "passed_at_end": True, "failed_on_start": 1, "proved": True}


def test_on_an_empty_start_a_test_that_imports_the_code_proves_it(scratch, sandbox):
    (scratch / "t.yaml").write_text(json.dumps({"prompt": "write x.py"}))
    run_dir = scratch / "runs" / "t"
    run_dir.mkdir(parents=True)
    script = [action("write_file", path="x.py", content="X = 1\n"),
              action("write_file", path="test_x.py", content="from x import X\n\ndef test_x():\n    assert X == 1\n"),
              action("finish", summary="done")]
    result = Orchestrator(load_task(scratch / "t.yaml"), ScriptedBackend(script), sandbox, Config(), run_dir,
                          say=lambda line: None).run()
    assert result["own_tests"]["proved"] is True and result["own_tests"]["failed_on_start"] == 1


def test_the_check_can_be_switched_off(scratch, sandbox):
    script = [action("write_file", path="stats.py", content=GOOD_STATS), action("write_file", path="test_mine.py", content=WEAK),
              action("finish", summary="fixed")]
    _, result, _ = run(scratch, sandbox, script, prove_tests=False)
    assert result["status"] == "solved" and result["steps"] == 3 and result["own_tests"] is None


def test_a_full_disk_ends_the_run_with_a_status_not_a_traceback(scratch, sandbox, capsys):
    """A model's code that fills the disk makes every write of the log fail (ENOSPC): the run
    still ends with a status and one line that says what could not be written."""
    import errno

    class Full:
        def write(self, text):
            raise OSError(errno.ENOSPC, "No space left on device")

        def flush(self):
            pass

        def fileno(self):
            return 0

        def close(self):
            pass

    config = Config(runs_dir=str(scratch / "runs"))
    run_dir = scratch / "runs" / "stats"
    run_dir.mkdir(parents=True)
    orchestrator = Orchestrator(load_task(STATS), ScriptedBackend([action("list_files")]), sandbox, config, run_dir,
                                say=lambda line: None)
    orchestrator.log._file = Full()
    result = orchestrator.run()
    assert result["status"] == "unsolved"  # the script ran out: prose, nudges, then it stopped
    err = capsys.readouterr().err
    assert err.count("error: the transcript could not be written: [Errno 28]") == 1


def test_finish_after_resume_runs_the_tests_again(scratch, sandbox):
    """Issue 19: after --resume, finish accepted the green run read back from the transcript
    without running the tests, while the README says `finish` re-runs them first (the run may go
    on under another sandbox or interpreter than the one that ran them)."""
    script = [action("write_file", path="stats.py", content=GOOD_STATS), action("run_tests")]
    first, result, _ = run(scratch, sandbox, script, max_steps=2, prove_tests=False)
    assert result["status"] == "step_limit" and result["last_test_run"]["passed"] > 0
    config = Config(runs_dir=str(scratch / "runs"), max_steps=3, prove_tests=False)
    resumed = Orchestrator(load_task(STATS), ScriptedBackend([action("finish", summary="fixed")]), sandbox, config,
                           first.run_dir, say=lambda line: None, resume=True).run()
    events = [e["type"] for e in read_transcript(first.run_dir)]
    after = events[events.index("resume"):]
    assert after[:after.index("finish_accepted")].count("test_run") == 1, after
    assert resumed["status"] == "solved"

"""run_task.py end to end against a scripted KoboldCPP on a free loopback port: the loop, the run
folder, the finish gate and the exit codes. The whole run, the exit codes, Ctrl-C and --show run
it as a subprocess; the finish gate and the loop's rules through run_task.main in this process
(loop_agent: the same command line, the real sandbox)."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import llm_client
import report
from conftest import ROOT
from fake_servers import FakeKoboldCpp, action
from runlog import read_transcript

BUGGY = "def fizzbuzz(n):\n    if n % 3 == 0:\n        return 'Fizz'\n    if n % 5 == 0:\n        return 'Buzz'\n    if n % 15 == 0:\n        return 'FizzBuzz'\n    return str(n)\n"
FIXED = "def fizzbuzz(n):\n    if n % 15 == 0:\n        return 'FizzBuzz'\n    if n % 3 == 0:\n        return 'Fizz'\n    if n % 5 == 0:\n        return 'Buzz'\n    return str(n)\n"
TESTS = ("from fizzbuzz import fizzbuzz\n\n"
         "def test_fizz():\n    assert fizzbuzz(9) == 'Fizz'\n\n"
         "def test_buzz():\n    assert fizzbuzz(10) == 'Buzz'\n\n"
         "def test_fizzbuzz():\n    assert fizzbuzz(30) == 'FizzBuzz'\n\n"
         "def test_number():\n    assert fizzbuzz(7) == '7'\n")
TASK = "Write fizzbuzz.py with fizzbuzz(n) and tests in test_fizzbuzz.py."


def fizzbuzz_task(agent, name: str) -> Path:
    """TASK, with hidden tests next to it (a run is solved only when they are judged and pass)."""
    hidden = agent.folder / f"{Path(name).stem}.hidden_tests"
    hidden.mkdir(exist_ok=True)
    (hidden / "test_fizzbuzz_hidden.py").write_text(TESTS.replace("def test_", "def test_hidden_"))
    return agent.write_task(name, TASK)


def test_fix_loop_ends_solved_with_a_complete_run_folder(agent):
    script = [
        action("write_file", path="fizzbuzz.py", content=BUGGY),
        action("write_file", path="test_fizzbuzz.py", content=TESTS),
        action("run_tests"),
        action("read_file", path="fizzbuzz.py"),
        action("write_file", thought="15 must be checked first", path="fizzbuzz.py", content=FIXED),
        action("run_tests"),
        action("finish", summary="fizzbuzz with tests"),
    ]
    with FakeKoboldCpp(script) as server:
        run = agent.run(fizzbuzz_task(agent, "fizzbuzz.txt"), "--server", server.url, "--run-id", "fb")
    assert run.code == 0, run.proc.stdout + run.proc.stderr
    assert run.run_dir.name == "fb"
    workspace = run.run_dir / "workspace"
    assert (workspace / "fizzbuzz.py").read_text() == FIXED
    assert (workspace / "test_fizzbuzz.py").read_text() == TESTS

    replies = run.of_type("llm_reply")
    assert [r["action"]["action"] for r in replies] == ["write_file", "write_file", "run_tests", "read_file",
                                                        "write_file", "run_tests", "finish"]
    assert len(run.of_type("observation")) == 6
    tests = run.of_type("test_run")
    assert [(t["passed"], t["failed"], t["ok"]) for t in tests] == [(3, 1, False), (4, 0, True)]
    assert "FAILED test_fizzbuzz::test_fizzbuzz" in tests[0]["output"]
    assert "'Fizz' == 'FizzBuzz'" in tests[0]["output"]
    assert run.events[0]["type"] == "start" and run.events[-1]["type"] == "end"
    assert all(e["type"] != "finish_refused" for e in run.events)

    result = run.result
    assert result["status"] == "solved" and result["finish_accepted"] is True
    assert result["steps"] == 7 and result["invalid_replies"] == 0
    assert result["last_test_run"]["passed"] == 4
    assert result["hidden_tests"]["passed"] == 4 and result["verified"] is True
    # KoboldCPP 1.76 reports a constant usage of 100/100: tokens come from perf/tokencount instead
    assert result["tokens"]["completion"] == sum(max(1, len(s) // 4) for s in script)
    assert result["tokens"]["prompt"] > 7 * 100
    assert set(result["seconds"]) == {"llm", "tests", "total"}

    # the console showed the thought, the action and the observation per step
    assert "[5] thought: 15 must be checked first" in run.proc.stdout
    assert "action: write_file fizzbuzz.py" in run.proc.stdout
    assert "observation: pytest: 4 tests: 4 passed" in run.proc.stdout
    assert f"Run folder: {run.run_dir}" in run.proc.stdout

    # the request KoboldCPP expects: chat messages, our GBNF grammar, a token limit, trim_stop
    body = server.bodies("/v1/chat/completions")[0]
    assert body["messages"][0]["role"] == "system" and TASK in body["messages"][1]["content"]
    assert body["grammar"].startswith("root ::= ") and isinstance(body["max_tokens"], int)
    assert body["trim_stop"] is True


def test_finish_before_any_test_run_runs_the_tests_and_refuses_when_there_are_none(loop_agent):
    script = [
        action("write_file", path="fizzbuzz.py", content=FIXED),
        action("finish", summary="done"),
    ]
    run = loop_agent.play(fizzbuzz_task(loop_agent, "t.txt"), script, "--max-steps", "2")
    assert run.code == 1
    refused = run.of_type("finish_refused")
    assert len(refused) == 1 and "collected no tests" in refused[0]["reason"]
    assert len(run.of_type("test_run")) == 1
    assert run.result["status"] == "step_limit" and run.result["finish_accepted"] is False


def test_finish_right_after_writing_code_and_tests_runs_them_and_accepts(loop_agent):
    script = [
        action("write_file", path="fizzbuzz.py", content=FIXED),
        action("write_file", path="test_fizzbuzz.py", content=TESTS),
        action("finish", summary="done"),
    ]
    run = loop_agent.play(fizzbuzz_task(loop_agent, "t.txt"), script)
    assert run.code == 0 and run.result["status"] == "solved" and run.result["steps"] == 3
    assert [t["ok"] for t in run.of_type("test_run")] == [True]


def test_finish_right_after_writing_failing_code_is_refused_with_the_failures(loop_agent):
    script = [
        action("write_file", path="fizzbuzz.py", content=BUGGY),
        action("write_file", path="test_fizzbuzz.py", content=TESTS),
        action("finish", summary="done"),
    ]
    run = loop_agent.play(fizzbuzz_task(loop_agent, "t.txt"), script, "--max-steps", "3")
    refused = run.of_type("finish_refused")
    assert len(refused) == 1 and "FAILED test_fizzbuzz::test_fizzbuzz" in refused[0]["reason"]
    assert run.result["status"] == "step_limit" and run.code == 1


def test_finish_after_a_red_run_is_refused(loop_agent):
    script = [
        action("write_file", path="fizzbuzz.py", content=BUGGY),
        action("write_file", path="test_fizzbuzz.py", content=TESTS),
        action("run_tests"),
        action("finish", summary="done"),
    ]
    run = loop_agent.play(fizzbuzz_task(loop_agent, "t.txt"), script, "--max-steps", "4")
    assert run.code == 1
    refused = run.of_type("finish_refused")
    assert len(refused) == 1 and "latest test run did not pass (3 passed, 1 failed" in refused[0]["reason"]
    assert run.result["status"] == "step_limit"


def test_finish_after_a_write_that_followed_a_green_run_reruns_and_refuses(loop_agent):
    script = [
        action("write_file", path="fizzbuzz.py", content=FIXED),
        action("write_file", path="test_fizzbuzz.py", content=TESTS),
        action("run_tests"),
        action("write_file", path="fizzbuzz.py", content=BUGGY),
        action("finish", summary="done"),
    ]
    run = loop_agent.play(fizzbuzz_task(loop_agent, "t.txt"), script, "--max-steps", "5")
    assert run.code == 1
    refused = run.of_type("finish_refused")
    assert len(refused) == 1 and refused[0]["reason"].startswith("I ran the tests on the current files and they do not pass")
    tests = run.of_type("test_run")
    assert [t["ok"] for t in tests] == [True, False]  # the gate re-ran the tests itself
    assert run.result["finish_accepted"] is False and run.result["last_test_run"]["ok"] is False


def test_a_harmless_change_after_a_green_run_is_rechecked_and_accepted(loop_agent):
    script = [
        action("write_file", path="fizzbuzz.py", content=FIXED),
        action("write_file", path="test_fizzbuzz.py", content=TESTS),
        action("run_tests"),
        action("write_file", path="README.txt", content="fizzbuzz"),
        action("finish", summary="done"),
    ]
    run = loop_agent.play(fizzbuzz_task(loop_agent, "t.txt"), script)
    assert run.code == 0
    assert [t["ok"] for t in run.of_type("test_run")] == [True, True]


def test_invalid_json_becomes_an_observation_and_the_run_goes_on(loop_agent):
    script = [
        '{"thought": "write it", "action": "write_file", "path": "fizzbuzz.py"',  # grammar ignored, cut JSON
        '{"thought": "x", "action": "bash", "command": "rm -rf /"}',
        action("write_file", path="fizzbuzz.py", content=FIXED),
        action("write_file", path="test_fizzbuzz.py", content=TESTS),
        action("run_tests"),
        action("finish", summary="done"),
    ]
    with FakeKoboldCpp(script) as server:
        run = loop_agent.run(fizzbuzz_task(loop_agent, "t.txt"), "--server", server.url)
    assert run.code == 0
    observations = [o["text"] for o in run.of_type("observation")]
    assert observations[0].startswith("Your reply is not valid JSON")
    assert observations[1].startswith("Unknown action 'bash'")
    assert run.result["invalid_replies"] == 2 and run.result["status"] == "solved"
    # the model saw the reason on its next turn
    assert "not valid JSON" in server.bodies("/v1/chat/completions")[1]["messages"][-1]["content"]


def test_too_many_invalid_replies_in_a_row_stop_the_run(loop_agent):
    run = loop_agent.play(fizzbuzz_task(loop_agent, "t.txt"), ["{bad", "{bad", "{bad", action("run_tests")])
    assert run.code == 1
    assert run.result["status"] == "error" and "3 invalid replies in a row" in run.result["reason"]


def test_path_escapes_are_refused_as_observations(loop_agent):
    script = [
        action("write_file", path="../escape.py", content="x = 1"),
        action("read_file", path="/etc/passwd"),
        action("write_file", path="sub/../../../escape2.py", content="x = 1"),
    ]
    run = loop_agent.play(fizzbuzz_task(loop_agent, "t.txt"), script, "--max-steps", "3")
    texts = [o["text"] for o in run.of_type("observation")]
    assert "outside the workspace" in texts[0] and "absolute" in texts[1] and "outside the workspace" in texts[2]
    assert not (run.run_dir / "escape.py").exists() and not (loop_agent.folder / "escape2.py").exists()
    assert "root:" not in run.transcript_text()


def test_native_generate_is_used_when_the_chat_endpoint_is_missing(loop_agent):
    script = [action("write_file", path="fizzbuzz.py", content=FIXED),
              action("write_file", path="test_fizzbuzz.py", content=TESTS),
              action("run_tests"), action("finish", summary="done")]
    with FakeKoboldCpp(script, chat_endpoint=False) as server:
        run = loop_agent.run(fizzbuzz_task(loop_agent, "t.txt"), "--server", server.url)
    assert run.code == 0
    bodies = server.bodies("/api/v1/generate")
    assert len(bodies) == 4
    assert bodies[0]["prompt"].startswith("<|im_start|>system\n") and bodies[0]["prompt"].endswith("<|im_start|>assistant\n")
    assert bodies[0]["grammar"].startswith("root ::=") and bodies[0]["trim_stop"] is True
    assert "<|im_end|>" in bodies[0]["stop_sequence"] and isinstance(bodies[0]["max_length"], int)


def test_busy_server_is_retried(loop_agent, monkeypatch):
    monkeypatch.setattr(llm_client.HttpBackend, "backoff", 0.01)  # in this process: the retries, not their 1 s + 2 s waits
    script = [{"status": 503}, {"status": 503}, action("write_file", path="fizzbuzz.py", content=FIXED),
              action("write_file", path="test_fizzbuzz.py", content=TESTS), action("run_tests"),
              action("finish", summary="done")]
    with FakeKoboldCpp(script) as server:
        run = loop_agent.run(fizzbuzz_task(loop_agent, "t.txt"), "--server", server.url)
    assert run.code == 0, run.proc.stderr
    assert len(server.bodies("/v1/chat/completions")) == 6


# -- exit codes: one clear line, no traceback ----------------------------------------------------

def _one_line_error(run) -> str:
    assert "Traceback" not in run.proc.stderr
    lines = run.proc.stderr.strip().splitlines()
    assert lines and lines[-1].startswith(("error:", "usage:", "run_task.py: error:")), run.proc.stderr
    return lines[-1]


def test_missing_task_file_exits_2(agent):
    run = agent.run(agent.folder / "nope.txt")
    assert run.code == 2 and "task file not found" in _one_line_error(run)


def test_empty_task_file_exits_2(agent):
    run = agent.run(agent.write_task("empty.txt", "  \n"))
    assert run.code == 2 and "empty" in _one_line_error(run)


def test_bad_config_exits_2_naming_the_field(agent):
    agent.settings["max_steps"] = "many"
    run = agent.run(fizzbuzz_task(agent, "t.txt"))
    line = _one_line_error(run)
    assert run.code == 2 and "max_steps" in line and str(agent.config) in line


def test_bad_usage_exits_2(agent):
    run = agent.run(fizzbuzz_task(agent, "t.txt"), "--max-steps", "zero")
    assert run.code == 2 and "invalid int value" in run.proc.stderr


def test_unreachable_named_server_exits_3(agent):
    run = agent.run(fizzbuzz_task(agent, "t.txt"), "--server", "http://127.0.0.1:9")
    line = _one_line_error(run)
    assert run.code == 3 and "http://127.0.0.1:9" in line and "koboldcpp" in line.lower()
    assert run.run_dir is None  # nothing was started


def test_unreachable_server_from_env_exits_3_without_fallback(agent):
    run = agent.run(fizzbuzz_task(agent, "t.txt"), env={"AGENT_SERVER": "http://127.0.0.1:9"})
    assert run.code == 3 and "http://127.0.0.1:9" in _one_line_error(run)


def test_first_run_writes_commented_default_config(agent, scratch):
    task = fizzbuzz_task(agent, "t.txt")
    env = {k: v for k, v in os.environ.items() if not k.startswith("AGENT_")}
    proc = subprocess.run([sys.executable, str(ROOT / "run_task.py"), "--task", str(task), "--server",
                           "http://127.0.0.1:9"], cwd=scratch, capture_output=True, text=True, env=env)
    assert proc.returncode == 3
    text = (scratch / "agent.yaml").read_text()
    assert "# Model server URL." in text and "max_steps: 30" in text and "isolation: auto" in text


def test_reruns_never_overwrite_an_earlier_run(loop_agent):
    script = [action("finish", summary="x")]
    with FakeKoboldCpp(script * 2) as server:
        first = loop_agent.run(fizzbuzz_task(loop_agent, "t.txt"), "--server", server.url, "--max-steps", "1")
        second = loop_agent.run(fizzbuzz_task(loop_agent, "t.txt"), "--server", server.url, "--max-steps", "1")
    assert first.run_dir.name == "t" and second.run_dir.name == "t-2"
    assert json.loads((first.run_dir / "result.json").read_text())["task_id"] == "t"


def test_ctrl_c_leaves_an_interrupted_result_and_the_run_can_be_resumed(agent):
    task = fizzbuzz_task(agent, "fb.txt")
    with FakeKoboldCpp([action("write_file", path="fizzbuzz.py", content=FIXED), {"delay": 60, "text": "x"}]) as server:
        proc = subprocess.Popen(agent.command(task, "--server", server.url), cwd=agent.folder, env=agent.environment(),
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        while server.generations < 2:
            time.sleep(0.1)
        proc.send_signal(signal.SIGINT)
        out, _ = proc.communicate(timeout=60)
    run_dir = agent.folder / "runs" / "fb"
    assert proc.returncode == 1 and "interrupted" in out
    assert json.loads((run_dir / "result.json").read_text())["status"] == "interrupted"

    with FakeKoboldCpp([action("write_file", path="test_fizzbuzz.py", content=TESTS), action("run_tests"),
                        action("finish", summary="done")]) as server:
        resumed = agent.run(None, "--resume", str(run_dir), "--server", server.url)
    assert resumed.code == 0, resumed.proc.stdout + resumed.proc.stderr
    assert resumed.run_dir == run_dir and "Resuming after step 1" in resumed.proc.stdout
    first = server.bodies("/v1/chat/completions")[0]["messages"]
    assert '"write_file"' in first[2]["content"] and first[3]["content"].startswith("Observation:\nWrote")
    kinds = [e["type"] for e in resumed.events]
    assert kinds.count("start") == 1 and kinds.count("resume") == 1 and kinds[-1] == "end"
    assert resumed.result["status"] == "solved" and resumed.result["steps"] == 4  # step 2 was cut short


def test_a_solved_run_cannot_be_resumed(agent):
    with FakeKoboldCpp([action("write_file", path="fizzbuzz.py", content=FIXED),
                        action("write_file", path="test_fizzbuzz.py", content=TESTS),
                        action("run_tests"), action("finish", summary="done")]) as server:
        run = agent.run(fizzbuzz_task(agent, "t.txt"), "--server", server.url)
    again = agent.run(None, "--resume", str(run.run_dir))
    assert again.code == 2 and "already ended solved" in _one_line_error(again)


def test_a_reply_with_a_line_separator_survives_show_report_and_resume(agent):
    """Issue 19 B7: a reply holding U+2028 (raw, as JSON allows) was written raw and read back with
    str.splitlines(): the record that wrote the test file was gone from --show, the report and
    --resume, though its code ran. The transcript escapes such characters; and one written raw
    (by an older version) is split at "\\n" only."""
    thought = "tests first\u2028\u2029\x85\x1c then the code"
    reply = json.dumps({"thought": thought, "action": "write_file", "path": "test_fizzbuzz.py", "content": TESTS},
                       ensure_ascii=False)
    with FakeKoboldCpp([reply]) as server:
        first = agent.run(agent.write_task("fb.txt", TASK), "--server", server.url, "--max-steps", "1")
    transcript = first.run_dir / "transcript.jsonl"
    written = transcript.read_text(encoding="utf-8")
    assert not set("\u2028\u2029\x85\x1c") & set(written)  # escaped: any line reader splits it right
    assert thought in [(json.loads(line).get("action") or {}).get("thought") for line in written.splitlines()]
    transcript.write_text(written.replace("\\u2028", "\u2028").replace("\\u2029", "\u2029").replace(
        "\\u0085", "\x85"), encoding="utf-8")  # as it was written before: raw

    replies = [e for e in read_transcript(first.run_dir) if e["type"] == "llm_reply"]
    assert [e["action"]["path"] for e in replies] == ["test_fizzbuzz.py"]
    shown = subprocess.run([sys.executable, str(ROOT / "run_task.py"), "--show", str(first.run_dir)],
                           capture_output=True, text=True, timeout=60)
    assert "action: write_file test_fizzbuzz.py" in shown.stdout, shown.stdout
    assert "write_file test_fizzbuzz.py" in report.write_run_page(first.run_dir).read_text(encoding="utf-8")
    with FakeKoboldCpp([action("finish", summary="done")]) as server:
        agent.run(None, "--resume", str(first.run_dir), "--server", server.url, "--max-steps", "2")
    history = server.bodies("/v1/chat/completions")[0]["messages"]
    assert history[2] == {"role": "assistant", "content": reply}

"""A person in control: approval before every test run (typed on a real pseudo-terminal), and the
decision model's note, from a scripted /v1/systemone server or from the coding model itself."""
from __future__ import annotations

import fcntl
import io
import json
import os
import re
import select
import struct
import subprocess
import sys
import termios
import time
from pathlib import Path

import pytest
from rich.console import Console

import approval
import console
import decider as dm
import llm_client
from config import Config, SandboxConfig
from conftest import ROOT
from fake_servers import FakeKoboldCpp, FakeSystemOne, ScriptedBackend, action, free_port
from orchestrator import Orchestrator
from sandbox import Sandbox
from tasks import load_task
from test_cli_as_typed import SOLVE_FIZZBUZZ, copy_repository, result, user

ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
SITUATION = dm.situation("the model's run_tests", ["calc.py"], "+++ b/calc.py\n+import shutil; shutil.rmtree('/home')\n")


@pytest.fixture
def clone(scratch) -> Path:
    return copy_repository(scratch / "tdd-agent")


# -- the decision model's note --------------------------------------------------------------------

@pytest.mark.parametrize("answer, line", [({"choice": "1", "p": 0.05}, "decision model: routine (0.05)"),
                                          ({"choice": "2", "p": 0.96}, "decision model: LOOK CLOSELY (0.96)")])
def test_the_note_says_what_the_decision_model_answered(answer, line):
    with FakeSystemOne([answer]) as server:
        note = dm.SystemOne(server.url, timeout=10).ask(SITUATION)
    assert note.line() == line and note.source == "decision model" and note.seconds >= 0
    sent = server.bodies("/v1/systemone")[0]
    assert sent["model"] == "jeff-latest" and "shutil.rmtree('/home')" in sent["state"]
    question = sent["questions"]["q"]
    assert question["type"] == "choice" and set(question["criteria"]) == {"1", "2"}
    assert "deletes files" in question["criteria"]["2"] and "network" in question["criteria"]["2"]


@pytest.mark.parametrize("script, timeout, reason", [
    (None, 5, "no answer (nothing answers there)"),                                 # down
    ([{"delay": 5, "choice": "1", "p": 0.05}], 0.5, "no answer (no reply within 0.5 s)"),  # slow past its timeout
    ([{"raw": b"<html>busy</html>"}], 5, "no answer (malformed reply"),             # not JSON
    ([{"raw": b'{"answers": {"q": {"choice": "1"}}}'}], 5, "no answer (malformed reply"),  # no probabilities
    ([{"choice": "3", "p": 0.5}], 5, "no answer (malformed reply"),                 # no such option
    ([{"choice": "2", "p": 7}], 5, "no answer (malformed reply"),                   # not a probability
    ([{"status": 500}], 5, "no answer (HTTP 500"),
])
def test_a_decider_that_fails_gives_no_answer_and_never_raises(script, timeout, reason):
    if script is None:
        note = dm.SystemOne(f"http://127.0.0.1:{free_port()}", timeout).ask(SITUATION)
    else:
        with FakeSystemOne(script) as server:
            note = dm.SystemOne(server.url, timeout).ask(SITUATION)
    assert note.label.startswith(reason), note.label
    assert note.probability is None and note.line().startswith("decision model: no answer (")


def test_without_a_decider_the_coding_model_answers_through_the_grammar():
    answers = [json.dumps({"action": "answer", "choice": "2"}),
               "I think this is fine."]  # prose: not an answer
    with FakeKoboldCpp(answers) as server:
        backend = llm_client.connect(Config(server=server.url), True)
        model = dm.CodingModel(backend)
        look, prose = model.ask(SITUATION), model.ask(SITUATION)
    assert look.line() == "coding model: LOOK CLOSELY" and look.probability is None
    assert prose.label.startswith("no answer (") and prose.source == "coding model"
    grammar = server.bodies("/v1/chat/completions")[0]["grammar"]
    assert grammar.startswith('root ::= answer\nanswer ::= "{" ws "\\"action\\"" ws ":" ws "\\"answer\\"" ws "," ws '
                              '"\\"choice\\"" ws ":" ws ("\\"1\\"" | "\\"2\\"") ws "}"')  # one field: the choice


# -- what is shown before a run ------------------------------------------------------------------

def test_only_content_never_let_run_is_shown_again(tmp_path):
    answers = iter(["y", "y"])
    asks = approval.Approval({"calc.py": b"def add(a, b):\n    return a - b\n"}, ask=True, decider=None, block=None,
                             read=lambda prompt: next(answers))
    fixed = {"calc.py": b"def add(a, b):\n    return a + b\n", "test_calc.py": b"def test_x():\n    pass\n"}
    first = asks.check("the model's run_tests", fixed)
    assert first["files"] == ["calc.py", "test_calc.py"] and first["answer"] == "yes"
    assert "-    return a - b\n+    return a + b\n" in first["diff"] and "+++ b/test_calc.py" in first["diff"]
    # the proof run: the task's starting code with the model's tests, all of it seen before
    proof = asks.check("own tests", {"calc.py": b"def add(a, b):\n    return a - b\n", "test_calc.py": fixed["test_calc.py"]})
    assert proof["files"] == [] and proof["diff"] == ""


# escape sequences, C1 controls, bidi embeddings/overrides/isolates/marks (Trojan Source), separators
HOSTILE = {"\x1b[2J": "\\x1b[2J", "\x07": "\\x07", "\r": "\\x0d", "\x85": "\\x85", "\x9b": "\\x9b",
           "\u202e": "\\u202e", "\u202a": "\\u202a", "\u2066": "\\u2066", "\u2069": "\\u2069",
           "\u200e": "\\u200e", "\u200f": "\\u200f", "\u061c": "\\u061c", "\u2028": "\\u2028", "\u2029": "\\u2029"}
SOURCE = 'access = "user"\n' + "".join(f"x{n} = 1  # {raw}\n" for n, raw in enumerate(HOSTILE)) + "ok = 'é ✓'\n"


def shows_it_all_escaped(screen: str) -> None:
    raw = {text[0] for text in HOSTILE}
    assert not raw & set(screen), [c for c in screen if c in raw]
    for escaped in HOSTILE.values():
        assert escaped in screen
    assert "é ✓" in screen  # ordinary text stays as it is


def test_the_approval_prompt_shows_model_text_escaped():
    """Issue 19 B9: the prompt escaped control characters only, so U+202E/U+2066/U+2069 in a diff
    reordered what the person read (Trojan Source)."""
    screen = io.StringIO()
    asks = approval.Approval({}, ask=True, decider=None, block=None, console=Console(file=screen, width=200),
                             read=lambda prompt: "n")
    assert asks.check("the model's run_tests", {"calc.py": SOURCE.encode()})["answer"] == "no"
    shows_it_all_escaped(screen.getvalue())


def test_the_console_shows_model_text_escaped():
    """The same sanitizer on the console (live, --show, --follow): the thought, the diff, the observation."""
    screen = io.StringIO()
    render = console.Renderer(Console(file=screen, width=2000))
    reply = json.dumps({"thought": "".join(HOSTILE) + " é ✓", "action": "write_file", "path": "calc.py",
                        "content": SOURCE.replace("\u2028", "").replace("\u2029", "").replace("\x85", "")},
                       ensure_ascii=False)  # the diff splits lines at those three: they are in the thought
    render({"type": "llm_reply", "step": 1, "kind": "action", "error": None, "text": reply})
    render({"type": "observation", "step": 1, "text": "Wrote calc.py" + "".join(HOSTILE)})
    shows_it_all_escaped(screen.getvalue())


# -- as a user types it -------------------------------------------------------------------------

def typed_in_a_terminal(clone: Path, args: list[str], answers: list[str], env: dict = None) -> tuple[int, str, str]:
    """run_task.py on a real pseudo-terminal, a person typing the next answer at each prompt;
    returns the exit code, the screen as text (colours removed) and as the terminal got it."""
    master, slave = os.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
    env = {**{k: v for k, v in os.environ.items() if not k.startswith("AGENT_")}, "TERM": "xterm-256color", **(env or {})}
    env.pop("NO_COLOR", None)
    proc = subprocess.Popen([sys.executable, "run_task.py", *args], cwd=clone, stdin=slave, stdout=slave,
                            stderr=slave, env=env, start_new_session=True)
    os.close(slave)
    raw, typed, deadline = b"", 0, time.monotonic() + 120
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([master], [], [], 1)
            if not ready:
                if proc.poll() is not None:
                    break
                continue
            try:
                chunk = os.read(master, 65536)
            except OSError:  # EIO: the program ended and closed the terminal
                break
            if not chunk:
                break
            raw += chunk
            screen = ANSI.sub("", raw.decode("utf-8", "replace"))
            prompts = screen.count("run the tests? [y/N]") + screen.count("why not? (optional")
            if prompts > typed:
                assert typed < len(answers), f"an unexpected prompt:\n{screen}"
                os.write(master, answers[typed].encode() + b"\n")
                typed += 1
        code = proc.wait(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
        os.close(master)
    text = raw.decode("utf-8", "replace")
    assert typed == len(answers), f"{typed} of {len(answers)} answers typed:\n{text}"
    return code, ANSI.sub("", text), text


def events(clone: Path, run_id: str, kind: str) -> list[dict]:
    lines = (clone / "runs" / run_id / "transcript.jsonl").read_text().splitlines()
    return [e for e in map(json.loads, lines) if e["type"] == kind]


def test_no_then_yes_in_a_terminal_with_a_decision_model(clone):
    with FakeSystemOne([]) as jeff, FakeKoboldCpp(SOLVE_FIZZBUZZ) as model:
        code, screen, raw = typed_in_a_terminal(
            clone, ["--task", "example_tasks/fizzbuzz.txt", "--server", model.url, "--approve", "--decider", jeff.url],
            ["n", "not before I read it", "y", "y", "y"])  # run_tests: no; the gate, the own-tests proof, the hidden tests
    assert code == 0, screen
    asked = events(clone, "fizzbuzz", "approval")
    assert [(e["answer"], e["reason"]) for e in asked] == [("no", "not before I read it"), ("yes", ""), ("yes", ""), ("yes", "")]
    assert asked[0]["files"] == ["fizzbuzz.py", "test_fizzbuzz.py"] and "+++ b/fizzbuzz.py" in asked[0]["diff"]
    assert asked[1]["files"] == asked[0]["files"] and asked[2]["files"] == asked[3]["files"] == []  # seen at the gate
    assert asked[3]["purpose"] == "the task's hidden tests, judged"
    assert all(e["decider"]["label"] == "routine" and e["decider"]["probability"] == 0.05
               and isinstance(e["decider"]["seconds"], float) for e in asked)
    assert len(jeff.bodies("/v1/systemone")) == 4
    said = [e["text"] for e in events(clone, "fizzbuzz", "observation")]
    assert said[2] == "the user declined to run the tests: not before I read it"
    assert "the user declined to run the tests: not before I read it" in json.dumps(model.bodies("/v1/chat/completions")[3])
    assert screen.count("decision model: routine (0.05)") == 4 and "+++ b/fizzbuzz.py" in screen
    assert re.search(r"\x1b\[[0-9;]*m\s*decision model: routine", raw)  # in colour
    res = result(clone, "fizzbuzz")
    assert res["status"] == "solved" and res["hidden_tests"]["passed"] == 9


def test_declining_the_judged_tests_is_never_solved(clone):
    """No --decider: the coding model answers the question (one answer per test run, in order)."""
    routine = json.dumps({"action": "answer", "choice": "1"})
    look = json.dumps({"action": "answer", "choice": "2"})
    script = SOLVE_FIZZBUZZ[:3] + [routine] + SOLVE_FIZZBUZZ[3:] + [routine, look]
    with FakeKoboldCpp(script) as model:
        code, screen, _ = typed_in_a_terminal(clone, ["--task", "example_tasks/fizzbuzz.txt", "--server", model.url,
                                                      "--approve"], ["y", "y", "n", ""])
    assert code == 1, screen
    res = result(clone, "fizzbuzz")
    assert res["status"] == "unsolved" and res["finish_accepted"] is True
    assert res["hidden_tests"] == {"passed": 0, "failed": 0, "errors": 0, "skipped": 0, "ok": False,
                                   "outcome": "not run: the user declined to run the tests"}
    assert not (clone / "runs" / "fizzbuzz" / "hidden" / "report.xml").exists()  # the model's code never ran for them
    asked = events(clone, "fizzbuzz", "approval")
    assert [e["answer"] for e in asked] == ["yes", "yes", "no"]
    assert [e["decider"]["label"] for e in asked] == ["routine", "routine", "LOOK CLOSELY"]
    assert "coding model: LOOK CLOSELY" in screen and "Result: unsolved" in screen


def test_approve_without_a_terminal_is_refused_at_start(clone):
    proc = subprocess.run([sys.executable, "run_task.py", "--task", "example_tasks/fizzbuzz.txt", "--approve"],
                          cwd=clone, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=120,
                          env={k: v for k, v in os.environ.items() if not k.startswith("AGENT_")})
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.startswith("error: --approve asks before every test run, but stdin is not a terminal")
    assert len(proc.stderr.splitlines()) == 1 and not (clone / "runs").exists()


def test_approve_with_a_batch_is_refused_at_start(clone):
    proc = user(clone, "--batch", "example_tasks", "--approve")
    assert proc.returncode == 2 and proc.stdout == "" and len(proc.stderr.splitlines()) == 1
    assert proc.stderr.startswith("error: --approve asks a person before every test run and a --batch run has nobody")
    assert not (clone / "runs").exists()


def test_decider_block_needs_a_decider(clone):
    proc = user(clone, "--task", "example_tasks/fizzbuzz.txt", "--decider-block", "0.9")
    assert proc.returncode == 2 and proc.stderr.startswith("error: --decider-block needs a decision model")


def test_a_decider_alone_notes_every_run_in_a_batch_and_blocks_above_the_threshold(clone):
    with FakeSystemOne([]) as jeff, FakeKoboldCpp(SOLVE_FIZZBUZZ) as model:
        noted = user(clone, "--task", "example_tasks/fizzbuzz.txt", "--server", model.url, "--run-id", "noted",
                     env={"AGENT_DECIDER": jeff.url})
    assert noted.returncode == 0, noted.stdout + noted.stderr
    assert noted.stdout.count("not asked; decision model said routine (p=0.05, ") == 3  # run_tests, own-tests proof, hidden tests
    assert [e["answer"] for e in events(clone, "noted", "approval")] == ["not asked"] * 3
    look = [{"choice": "2", "p": 0.96}] * 4
    with FakeSystemOne(look) as jeff, FakeKoboldCpp(SOLVE_FIZZBUZZ) as model:
        blocked = user(clone, "--task", "example_tasks/fizzbuzz.txt", "--server", model.url, "--run-id", "blocked",
                       "--decider", jeff.url, "--decider-block", "0.9", "--max-steps", "4")
    assert blocked.returncode == 1, blocked.stdout + blocked.stderr
    why = "the tests were not run: the decision model said LOOK CLOSELY (0.96), above --decider-block 0.9"
    said = [e["text"] for e in events(clone, "blocked", "observation")]
    assert said[2] == why and said[3] == f"finish refused: {why}"  # the model's run, then the gate's
    res = result(clone, "blocked")
    assert res["status"] == "step_limit" and res["last_test_run"] is None
    assert res["hidden_tests"]["outcome"] == f"not run: {why}"
    assert ("blocked: the decision model said LOOK CLOSELY (0.96), above --decider-block 0.9; "
            "decision model said LOOK CLOSELY (p=0.96, ") in blocked.stdout


SHELL_TEST = "import subprocess\nimport sys\n\ndef test_zzz():\n    subprocess.run([sys.executable, '-c', 'pass'])\n"


@pytest.mark.parametrize("notes, asked, block", [
    ("".join(f"# note {n}\n" for n in range(100)), True, "0.9"),  # more than 60 lines
    ("".join(f"# {n:04d}{'.' * 90}\n" for n in range(100)), False, "1")])  # more than 6,000 characters
def test_the_decider_sees_everything_that_will_run_or_the_run_is_blocked(clone, notes, asked, block):
    """Issue 19 B8: the decider read the diff cut to 60 lines and 6,000 characters, files by name;
    a long aaa_notes.py pushed test_zzz_shell.py, which starts a subprocess, out of its view, and
    --decider-block let it run. Now it reads the whole diff; one longer than it reads is not sent:
    the note is LOOK CLOSELY at once, and --decider-block blocks it, whatever the threshold."""
    script = [action("write_file", path="aaa_notes.py", content=notes),
              action("write_file", path="test_zzz_shell.py", content=SHELL_TEST), action("run_tests")]
    with FakeSystemOne([{"look_if": "subprocess.run", "p": 0.96}] * 9) as jeff, FakeKoboldCpp(script) as model:
        proc = user(clone, "--task", "example_tasks/fizzbuzz.txt", "--server", model.url, "--run-id", "hidden",
                    "--decider", jeff.url, "--decider-block", block, "--max-steps", "3")
    assert proc.returncode == 1, proc.stdout + proc.stderr
    asked_for = events(clone, "hidden", "approval")
    assert [e["answer"] for e in asked_for] == ["blocked", "blocked"]  # the model's run_tests, the hidden tests
    assert events(clone, "hidden", "test_run") == []  # the model's code never ran
    note = asked_for[0]["decider"]
    assert note["label"] == "LOOK CLOSELY" and note["probability"] == (0.96 if asked else 1.0)
    if asked:
        assert "subprocess.run" in jeff.bodies("/v1/systemone")[0]["state"]
        assert asked_for[0]["reason"] == "the decision model said LOOK CLOSELY (0.96), above --decider-block 0.9"
    else:
        assert jeff.bodies("/v1/systemone") == []
        assert asked_for[0]["reason"].startswith("the decision model was not asked: the changes are ")
    assert result(clone, "hidden")["hidden_tests"]["outcome"].startswith("not run: the tests were not run: ")


def test_a_decider_that_is_down_does_not_stop_the_run(clone):
    with FakeKoboldCpp(SOLVE_FIZZBUZZ) as model:
        proc = user(clone, "--task", "example_tasks/fizzbuzz.txt", "--server", model.url,
                    "--decider", f"http://127.0.0.1:{free_port()}")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.count("not asked; decision model said no answer (nothing answers there) (") == 3


# -- every test run asks, in-process -------------------------------------------------------------

def test_a_nudges_run_and_the_own_tests_proof_ask_too(scratch):
    task = load_task(ROOT / "example_tasks" / "stats")
    good = (ROOT / "tests" / "solutions" / "stats" / "stats.py").read_text()
    own = "from stats import median\n\ndef test_even():\n    assert median([4, 1, 3, 2]) == 2.5\n"
    script = ["I am done.", action("write_file", path="stats.py", content=good),
              action("write_file", path="test_more.py", content=own), action("run_tests"),
              action("finish", summary="fixed"), action("finish", summary="fixed")]
    typed = iter(["n", "busy", "y", "n", "", "y", "y", "y"])
    asks = approval.Approval({rel: text.encode() for rel, text in task.spec.files.items()}, ask=True, decider=None,
                             block=None, console=Console(file=io.StringIO()), read=lambda prompt: next(typed))
    run_dir = scratch / "runs" / "stats"
    run_dir.mkdir(parents=True)
    orchestrator = Orchestrator(task, ScriptedBackend(script), Sandbox(SandboxConfig(timeout=30)),
                                Config(runs_dir=str(scratch / "runs")), run_dir, say=lambda line: None, approval=asks)
    res = orchestrator.run()
    lines = (run_dir / "transcript.jsonl").read_text().splitlines()
    asked = [e for e in map(json.loads, lines) if e["type"] == "approval"]
    assert [(e["purpose"].split(" (")[0], e["answer"]) for e in asked] == [
        ("a nudge", "no"), ("the model's run_tests", "yes"), ("the model's own tests on the task's starting files", "no"),
        ("the model's own tests on the task's starting files", "yes"), ("the task's hidden tests, judged", "yes"),
        ("the task's protected tests, judged", "yes")]
    said = [e["text"] for e in map(json.loads, lines) if e["type"] == "observation"]
    assert "I did not run the tests for you: the user declined to run the tests: busy." in said[0]
    assert said[4] == "finish refused: the user declined to run the tests"
    assert res["status"] == "solved" and res["own_tests"]["proved"] is True
    assert len([e for e in map(json.loads, lines) if e["type"] == "test_run"]) == 1  # the declined ones never ran

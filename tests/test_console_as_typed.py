"""The console as a user types it: --show, --follow, --json and --quiet of `run_task.py` from a copy
of the repository, on runs the scripted KoboldCPP played through the real sandbox and judge."""
from __future__ import annotations

import json
import os
import pty
import re
import subprocess
import sys
import threading
import time

from batches import FIZZBUZZ_NEVER_FIXED, FIZZBUZZ_RED_THEN_GREEN, STATS_FIXED, make_batch, play
from fake_servers import FakeKoboldCpp
from test_cli_as_typed import clone, result, user  # noqa: F401  (clone is a fixture)


def test_show_replays_a_run_step_by_step(clone):
    live = play(clone, "fizzbuzz", FIZZBUZZ_RED_THEN_GREEN)
    assert live.returncode == 0, live.stdout + live.stderr
    shown = user(clone, "--show", "runs/fizzbuzz")
    assert shown.returncode == 0 and shown.stderr == ""
    out = shown.stdout
    assert "[1] thought: <script>document.title='pwned'" in out and re.search(r"\(\d+\+\d+ tokens, \d+\.\d s\)", out)
    assert "[bold red]markup[/bold red]" in out  # model text is never read as rich markup
    assert "\x1b" not in out and "\\x1b[2J" in out  # its escape sequences are shown, not sent to the terminal
    assert "action: write_file fizzbuzz.py (163 chars)" in out
    assert "@@ -1,2 +1,8 @@" in out and '+        return "Fizz"' in out  # the second write, diffed against the first
    assert "tests: completed, 0 passed, 1 failed, 0 errors, 0 skipped" in out
    assert "Hidden tests, judged: 9 passed, 0 failed, 0 errors, 0 skipped" in out
    assert "Result: solved (finish accepted: the tests pass on the final files) after 6 steps." in out
    assert "Tokens: " in out and " prompt, " in out
    # the live run printed the same steps through the same renderer
    assert "@@ -1,2 +1,8 @@" in live.stdout and "Hidden tests, judged: 9 passed" in live.stdout


def test_a_run_in_a_terminal_is_coloured_unless_no_color(clone):
    play(clone, "stats", STATS_FIXED)

    def in_a_terminal(env: dict) -> str:
        leader, follower = pty.openpty()
        environ = {**{k: v for k, v in os.environ.items() if not k.startswith("AGENT_") and "COLOR" not in k},
                   "TERM": "xterm-256color", **env}
        proc = subprocess.Popen([sys.executable, "run_task.py", "--show", "runs/stats"], cwd=clone, env=environ,
                                stdout=follower, stderr=follower)
        os.close(follower)
        chunks = []
        while True:
            try:
                chunk = os.read(leader, 65536)
            except OSError:  # the terminal closed: the command ended
                break
            if not chunk:
                break
            chunks.append(chunk)
        os.close(leader)
        assert proc.wait(timeout=60) == 0
        return b"".join(chunks).decode()

    coloured, plain = in_a_terminal({}), in_a_terminal({"NO_COLOR": "1"})
    assert "Result: solved" in coloured and "\x1b[1;32mResult: solved" in coloured  # bold green
    assert "Result: solved" in plain and "32m" not in plain
    assert "-    return s[n // 2]" in coloured  # the edit of the task's own stats.py, diffed against its start


def test_json_prints_one_object_the_result(clone):
    proc = play(clone, "fizzbuzz", FIZZBUZZ_NEVER_FIXED, "--json", "--max-steps", "3")
    assert proc.returncode == 1
    assert json.loads(proc.stdout) == result(clone, "fizzbuzz")  # exactly one JSON object, nothing else
    assert json.loads(proc.stdout)["status"] == "step_limit"
    assert "[3] thought: next step" in proc.stderr and "Result: step_limit" in proc.stderr
    bad = user(clone, "--task", "example_tasks/none.txt", "--json")
    assert bad.returncode == 2 and bad.stdout == "" and bad.stderr.startswith("error: ")


def test_quiet_prints_only_the_result_line(clone):
    proc = play(clone, "stats", STATS_FIXED, "--quiet")
    assert proc.returncode == 0 and proc.stderr == ""
    assert proc.stdout.splitlines() == [
        f"solved (finish accepted: the tests pass on the final files) after 2 steps: {clone / 'runs' / 'stats'}"]


def test_follow_prints_a_run_while_it_goes_until_it_ends(clone):
    """--follow started while the model is still thinking (a reply held until the test has seen
    --follow print what is there and go on waiting) prints the rest as the run writes it, and ends
    with the run."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("AGENT_")}
    thinking = threading.Event()
    slow = [STATS_FIXED[0], {"gate": thinking, "text": STATS_FIXED[1]}]
    with FakeKoboldCpp(slow) as server:
        run = subprocess.Popen([sys.executable, "run_task.py", "--task", "example_tasks/stats", "--server", server.url,
                                "--isolation", "basic"], cwd=clone, env=env, stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
        transcript = clone / "runs" / "stats" / "transcript.jsonl"
        while not (transcript.exists() and '"step": 2, "type": "llm_request"' in transcript.read_text()):
            assert run.poll() is None
            time.sleep(0.1)
        follow = subprocess.Popen([sys.executable, "run_task.py", "--show", "runs/stats", "--follow"], cwd=clone,
                                  env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            first = [follow.stdout.readline() for _ in range(6)]
            assert first[4].startswith("[1] thought: fix both off-by-one bugs")
            time.sleep(0.5)
            assert follow.poll() is None and '"type": "end"' not in transcript.read_text()  # still following
        finally:
            thinking.set()  # the model's second reply comes
        rest, err = follow.communicate(timeout=120)
        assert run.wait(timeout=60) == 0
    assert follow.returncode == 0 and err == ""
    assert "[2] thought: next step" in rest and "action: finish: fixed" in rest
    assert "Result: solved" in rest.splitlines()[-1]


def test_show_of_a_batch_prints_its_table(clone):
    make_batch(clone, "b1", {"stats": (STATS_FIXED, ()), "fizzbuzz": (FIZZBUZZ_NEVER_FIXED, ("--max-steps", "3"))})
    proc = user(clone, "--show", "runs/b1")
    assert proc.returncode == 0, proc.stderr
    rows = {line.split()[1]: line for line in proc.stdout.splitlines() if line.startswith("│ ") and "task" not in line}
    assert "solved" in rows["stats"] and "step_limit" in rows["fizzbuzz"]
    assert "solved 1" in proc.stdout and "step_limit 1" in proc.stdout  # the totals


def test_show_of_something_else_is_one_error_line(clone):
    proc = user(clone, "--show", "example_tasks")
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.startswith("error: ") and len(proc.stderr.splitlines()) == 1
    follow = user(clone, "--report", "runs", "--follow")
    assert follow.returncode == 2 and follow.stderr.startswith("error: --follow goes with --show")

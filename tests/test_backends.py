"""Each HTTP backend against a scripted loopback server that checks the request shape the real
server expects and answers the way it does, quirks included; and choosing a backend."""
from __future__ import annotations

import time

import pytest

import actions as act
import llm_client
from config import Config
from fake_servers import FakeKoboldCpp, FakeLlamaServer, FakeOllama, action, free_port

FMT = llm_client.ActionFormat(act.ALL_ACTIONS)
MESSAGES = [{"role": "system", "content": "sys"}, {"role": "user", "content": "task"}]
RUN = action("run_tests")


@pytest.fixture(autouse=True)
def fast_backoff(monkeypatch):
    monkeypatch.setattr(llm_client.HttpBackend, "backoff", 0.01)


def connect(server, **settings):
    return llm_client.connect(Config(server=server.url, **settings), server_named=True)


# -- KoboldCPP -----------------------------------------------------------------------------------

def test_koboldcpp_is_detected_and_probed():
    with FakeKoboldCpp(context=8192) as server:
        backend = connect(server)
    assert isinstance(backend, llm_client.KoboldCpp)
    assert (backend.version, backend.context_size, backend.model) == ("1.76", 8192, "koboldcpp/fake-coder")
    assert "KoboldCpp 1.76" in backend.describe()


def test_koboldcpp_grammar_request_and_token_counts():
    with FakeKoboldCpp([RUN]) as server:
        backend = connect(server, max_tokens=300, temperature=0.1)
        reply = backend.complete(MESSAGES, FMT, backend.pick_protocol())
    body = server.bodies("/v1/chat/completions")[0]
    assert body["grammar"] == FMT.grammar and body["max_tokens"] == 300 and body["temperature"] == 0.1
    assert body["messages"] == MESSAGES and body["trim_stop"] is True
    assert "response_format" not in body and "tools" not in body
    # usage says 100/100 on 1.76; the real counts come from /api/extra/perf and tokencount
    assert reply.completion_tokens == len(RUN) // 4 and reply.prompt_tokens != 100
    # finish_reason "length" for a stop-sequence hit is not a truncation (perf stop_reason 2)
    assert reply.finish_reason == "length" and reply.truncated is False
    assert reply.text == RUN


def test_koboldcpp_real_truncation_is_seen_through_perf():
    with FakeKoboldCpp([{"text": '{"thought": "a very long', "truncated": True}]) as server:
        backend = connect(server)
        assert backend.complete(MESSAGES, FMT, "grammar").truncated is True


def test_koboldcpp_json_schema_and_tools():
    tool_reply = {"tool": "read_file", "arguments": {"thought": "look", "path": "a.py"}}
    with FakeKoboldCpp([RUN, tool_reply]) as server:
        backend = connect(server)
        backend.complete(MESSAGES, FMT, "json_schema")
        reply = backend.complete(MESSAGES, FMT, "tools")
    first, second = server.bodies("/v1/chat/completions")
    assert first["response_format"]["json_schema"]["schema"] == FMT.schema and "grammar" not in first
    assert second["tools"] == FMT.tools and second["tool_choice"] == "required"
    assert act.parse(reply.text) == act.ReadFile(thought="look", action="read_file", path="a.py")


def test_koboldcpp_busy_is_retried_then_reported():
    with FakeKoboldCpp([{"status": 503}, {"status": 503}, RUN]) as server:
        backend = connect(server, retries=2)
        assert backend.complete(MESSAGES, FMT, "grammar").text == RUN
    with FakeKoboldCpp([{"status": 503}] * 5) as server:
        backend = connect(server, retries=2)
        with pytest.raises(llm_client.BackendError, match="busy \\(HTTP 503\\) through 2 retries"):
            backend.complete(MESSAGES, FMT, "grammar")


def test_a_dropped_connection_is_retried():
    with FakeKoboldCpp([{"reset": True}, RUN]) as server:
        assert connect(server).complete(MESSAGES, FMT, "grammar").text == RUN
    assert len(server.bodies("/v1/chat/completions")) == 2


def test_bad_request_keeps_the_body():
    with FakeKoboldCpp([{"status": 400}]) as server:
        backend = connect(server)
        with pytest.raises(llm_client.BadRequest, match="HTTP 400.*scripted failure"):
            backend.complete(MESSAGES, FMT, "grammar")


def test_koboldcpp_timeout_aborts_that_generation_and_frees_the_server():
    with FakeKoboldCpp([{"delay": 30, "text": "slow"}, RUN]) as server:
        backend = connect(server, request_timeout=0.5)
        start = time.monotonic()
        with pytest.raises(llm_client.BackendError) as failure:
            backend.complete(MESSAGES, FMT, "grammar")
        failed_after = time.monotonic() - start
        # the next request is not kept waiting behind the abandoned one (its timeout is 0.5 s too)
        assert backend.complete(MESSAGES, FMT, "grammar").text == RUN
    assert str(failure.value) == (f"{server.url}/v1/chat/completions gave no reply within 0.5 s; "
                                  "asked the server to abort it (POST /api/extra/abort)")
    assert isinstance(failure.value, llm_client.ReplyTimeout) and failed_after < 3
    first, second = (body["genkey"] for body in server.bodies("/v1/chat/completions"))
    assert server.aborts == [{"genkey": first}]
    assert isinstance(first, str) and first and first != second  # a fresh key per request


def test_koboldcpp_native_generate_is_aborted_the_same_way():
    with FakeKoboldCpp([{"delay": 30, "text": "slow"}], chat_endpoint=False) as server:
        backend = connect(server, request_timeout=0.5)
        with pytest.raises(llm_client.ReplyTimeout, match="/api/v1/generate gave no reply.*asked the server to abort"):
            backend.complete(MESSAGES, FMT, "grammar")
    assert server.aborts == [{"genkey": server.bodies("/api/v1/generate")[0]["genkey"]}]


def test_a_slow_or_failing_abort_never_hides_the_timeout(monkeypatch):
    monkeypatch.setattr(llm_client.KoboldCpp, "abort_timeout", 0.3)
    with FakeKoboldCpp([{"delay": 30, "text": "slow"}], abort_delay=10) as server:
        backend = connect(server, request_timeout=0.5)
        start = time.monotonic()
        with pytest.raises(llm_client.ReplyTimeout, match=r"within 0.5 s; aborting it on the server failed too \(ReadTimeout\)$"):
            backend.complete(MESSAGES, FMT, "grammar")
        assert time.monotonic() - start < 3
    assert len(server.aborts) == 1

    class AbortFails(FakeKoboldCpp):
        def route(self, method, path, body):
            if path == "/api/extra/abort":
                self.aborts.append(body)
                return 500, {"error": "scripted failure"}
            return super().route(method, path, body)

    with AbortFails([{"delay": 3, "text": "slow"}]) as server:
        with pytest.raises(llm_client.ReplyTimeout, match=r"within 0.5 s; aborting it on the server failed too \(HTTP 500\)$"):
            connect(server, request_timeout=0.5).complete(MESSAGES, FMT, "grammar")
    assert len(server.aborts) == 1


def test_koboldcpp_ctrl_c_during_a_generation_aborts_it_and_propagates(monkeypatch):
    with FakeKoboldCpp() as server:
        backend = connect(server)

        def interrupted(path, body, missing_ok=False):
            interrupted.body = body
            raise KeyboardInterrupt

        monkeypatch.setattr(backend, "post_json", interrupted)
        with pytest.raises(KeyboardInterrupt):
            backend.complete(MESSAGES, FMT, "grammar")
    assert server.aborts == [{"genkey": interrupted.body["genkey"]}]


def test_thinking_switch_is_sent_only_when_set():
    with FakeKoboldCpp([RUN, RUN]) as server:
        connect(server).complete(MESSAGES, FMT, "grammar")
        connect(server, thinking=False).complete(MESSAGES, FMT, "grammar")
    plain, off = server.bodies("/v1/chat/completions")
    assert "chat_template_kwargs" not in plain and off["chat_template_kwargs"] == {"enable_thinking": False}


# -- llama-server --------------------------------------------------------------------------------

def test_llama_server_is_detected_with_its_context():
    with FakeLlamaServer(context=6144) as server:
        backend = connect(server)
    assert isinstance(backend, llm_client.OpenAICompatible) and backend.flavour == "llama-server"
    assert backend.context_size == 6144 and backend.model == "fake-coder.gguf"
    assert backend.pick_protocol() == "grammar"


def test_a_loading_llama_server_is_waited_for(monkeypatch):
    monkeypatch.setattr(llm_client.time, "sleep", lambda s: None)
    with FakeLlamaServer(loading_probes=3) as server:
        backend = connect(server)
    assert backend.flavour == "llama-server" and backend.context_size == 4096
    assert [r["path"] for r in server.requests].count("/health") == 4


def test_llama_server_grammar_timings_and_cache():
    with FakeLlamaServer([RUN, RUN]) as server:
        backend = connect(server, thinking=False)
        backend.complete(MESSAGES, FMT, "grammar")
        reply = backend.complete(MESSAGES, FMT, "grammar")
        assert backend.count_tokens("x" * 40) == 10
    body = server.bodies("/v1/chat/completions")[1]
    assert body["grammar"] == FMT.grammar and "json_schema" not in body and "response_format" not in body
    assert body["chat_template_kwargs"] == {"enable_thinking": False}
    assert reply.cached_tokens > 0 and reply.extra["timings"]["cache_n"] == reply.cached_tokens
    assert set(reply.extra["timings"]) == {"prompt_n", "cache_n", "predicted_n", "prompt_ms", "predicted_ms"}
    assert reply.prompt_tokens and reply.completion_tokens and not reply.truncated


def test_llama_server_timeout_sends_no_abort():
    # llama-server cancels a generation when its client disconnects: nothing to abort
    with FakeLlamaServer([{"delay": 2, "text": RUN}]) as server:
        with pytest.raises(llm_client.ReplyTimeout, match="gave no reply within 0.5 s$"):
            connect(server, request_timeout=0.5).complete(MESSAGES, FMT, "grammar")
    assert not [r for r in server.requests if "abort" in r["path"]]
    assert "genkey" not in server.bodies("/v1/chat/completions")[0]


def test_llama_server_json_schema_is_nested_under_json_schema_schema():
    with FakeLlamaServer([RUN]) as server:
        connect(server).complete(MESSAGES, FMT, "json_schema")
    body = server.bodies("/v1/chat/completions")[0]
    assert body["response_format"] == {"type": "json_schema", "json_schema": {"name": "action", "schema": FMT.schema}}
    assert "grammar" not in body


def test_llama_server_tool_calls_become_actions():
    with FakeLlamaServer([{"tool": "write_file", "arguments": {"path": "a.py", "content": "x = 1"}, "content": "writing"}]) as server:
        reply = connect(server, protocol="tools").complete(MESSAGES, FMT, "tools")
    body = server.bodies("/v1/chat/completions")[0]
    assert "grammar" not in body and body["tool_choice"] == "required"
    assert act.parse(reply.text) == act.WriteFile(thought="writing", action="write_file", path="a.py", content="x = 1")


def test_generic_openai_server_gets_json_schema_not_grammar():
    class Generic(FakeLlamaServer):  # like vLLM or LM Studio: no /props
        def route(self, method, path, body):
            return (404, {}) if path == "/props" else super().route(method, path, body)

    with Generic([RUN]) as server:
        backend = connect(server, model="qwen")
        assert backend.flavour == "openai" and backend.pick_protocol() == "json_schema"
        backend.complete(MESSAGES, FMT, "json_schema")
        with pytest.raises(llm_client.BackendError, match="protocol grammar is not supported"):
            connect(server, protocol="grammar").pick_protocol()
    assert server.bodies("/v1/chat/completions")[0]["model"] == "qwen"


# -- Ollama --------------------------------------------------------------------------------------

def test_ollama_chat_with_schema_and_num_ctx():
    with FakeOllama([RUN, {"text": '{"thought": "cut', "truncated": True}]) as server:
        backend = connect(server, context_size=16384, max_tokens=512, thinking=False)
        assert isinstance(backend, llm_client.Ollama) and backend.model == "qwen2.5-coder:7b"
        reply = backend.complete(MESSAGES, FMT, backend.pick_protocol())
        cut = backend.complete(MESSAGES, FMT, "json_schema")
    body = server.bodies("/api/chat")[0]
    assert body["format"] == FMT.schema and body["stream"] is False and body["think"] is False
    assert body["options"]["num_ctx"] == 16384 and body["options"]["num_predict"] == 512
    assert reply.text == RUN and (reply.prompt_tokens, reply.completion_tokens) == (50, 20)
    assert cut.truncated is True


def test_ollama_tool_calls_with_object_arguments():
    with FakeOllama([{"tool": "run_tests", "arguments": {"thought": "check"}}]) as server:
        reply = connect(server).complete(MESSAGES, FMT, "tools")
    assert server.bodies("/api/chat")[0]["tools"] == FMT.tools
    assert act.parse(reply.text).tag() == "run_tests"


# -- choosing a backend --------------------------------------------------------------------------

def test_named_server_that_does_not_answer_is_an_error_with_a_hint():
    url = f"http://127.0.0.1:{free_port()}"
    with pytest.raises(llm_client.ServerUnreachable, match=f"no model server answers at {url}.*koboldcpp"):
        llm_client.connect(Config(server=url), server_named=True)


def test_explicit_backend_that_does_not_answer_is_an_error():
    with pytest.raises(llm_client.ServerUnreachable):
        llm_client.connect(Config(server=f"http://127.0.0.1:{free_port()}", backend="ollama"), server_named=False)


def test_garbage_server_is_named():
    class Garbage(FakeKoboldCpp):
        def route(self, method, path, body):
            return 200, b"<html>hello</html>"

    with Garbage() as server:
        with pytest.raises(llm_client.BackendError, match="not KoboldCPP, Ollama or an OpenAI-compatible"):
            connect(server)
    with Garbage() as server:
        backend = llm_client.KoboldCpp(Config(server=server.url), server.url)
        with pytest.raises(llm_client.BackendError, match="not JSON"):
            backend.complete(MESSAGES, FMT, "grammar")


def test_no_server_configured_falls_back_to_the_bundled_model(monkeypatch):
    said = []
    config = Config(server=None)
    monkeypatch.setattr(Config, "server_url", lambda self: f"http://127.0.0.1:{free_port()}")
    if not llm_client.embedded_available():
        pytest.skip("the embedded extra is not installed")
    backend = llm_client.connect(config, server_named=False, say=said.append)
    assert isinstance(backend, llm_client.Embedded) and backend.model.startswith("SmolLM2-135M")
    assert len(said) == 1 and "bundled demo model" in said[0]


def test_protocol_none_sends_no_constraint_but_replies_are_still_validated():
    with FakeLlamaServer(["Sure! Here is the code."]) as server:
        reply = connect(server, protocol="none").complete(MESSAGES, FMT, "none")
    body = server.bodies("/v1/chat/completions")[0]
    assert not {"grammar", "json_schema", "response_format", "tools"} & set(body)
    with pytest.raises(act.InvalidReply):
        act.parse(reply.text)

"""Whole runs of run_task.py over each kind of server (scripted), and the behaviour every
backend shares: usage recorded per call, replies cut at max tokens, the context budget. Through
run_task.main in this process (the command line as typed is tested in test_agent_loop)."""
from __future__ import annotations

import pytest

from conftest import ROOT
from fake_servers import FakeKoboldCpp, FakeLlamaServer, FakeOllama, action

STATS = ROOT / "example_tasks" / "stats"
GOOD_STATS = (ROOT / "tests" / "solutions" / "stats" / "stats.py").read_text()


@pytest.fixture
def agent(loop_agent):
    return loop_agent


SOLVE = [action("write_file", path="stats.py", content=GOOD_STATS), action("run_tests"), action("finish", summary="fixed")]


def test_llama_server_run_records_usage_per_call(agent):
    with FakeLlamaServer(SOLVE) as server:
        run = agent.run(STATS, "--server", server.url)
    assert run.code == 0
    replies = run.of_type("llm_reply")
    assert all(r["backend"] == "openai" and r["model"] == "fake-coder.gguf" and r["seconds"] >= 0 for r in replies)
    assert all(r["prompt_tokens"] > 0 and r["completion_tokens"] > 0 for r in replies)
    assert replies[0]["cached_tokens"] == 0 and replies[1]["cached_tokens"] > 0
    assert replies[1]["extra"]["timings"]["cache_n"] == replies[1]["cached_tokens"]
    assert run.result["tokens"]["prompt"] == sum(r["prompt_tokens"] for r in replies)
    assert "grammar" in server.bodies("/v1/chat/completions")[0]


def test_tool_calling_protocol_end_to_end(agent):
    script = [{"tool": "write_file", "arguments": {"thought": "fix both", "path": "stats.py", "content": GOOD_STATS}},
              {"tool": "run_tests", "arguments": {}, "content": "let me check"},
              "The bugs are fixed.",  # prose instead of a tool call: the model thinks it is done
              {"tool": "finish", "arguments": {"thought": "green", "summary": "fixed"}}]
    with FakeLlamaServer(script) as server:
        run = agent.run(STATS, "--server", server.url, "--protocol", "tools")
    assert run.code == 0, run.proc.stdout
    assert "You stopped without an action" in run.of_type("observation")[2]["text"]
    assert all("tools" in b and "grammar" not in b for b in server.bodies("/v1/chat/completions"))


def test_ollama_end_to_end(agent):
    agent.settings["model"] = "qwen2.5-coder:7b"
    with FakeOllama(SOLVE) as server:
        run = agent.run(STATS, "--server", server.url)
    assert run.code == 0 and run.result["backend"] == "ollama" and run.result["protocol"] == "json_schema"
    assert all(b["options"]["num_ctx"] == 8192 for b in server.bodies("/api/chat"))


def test_reply_cut_at_max_tokens_asks_for_smaller_steps(agent):
    cut = {"text": '{"thought": "write everything", "action": "write_file", "path": "stats.py", "content": "def me', "truncated": True}
    run = agent.play(STATS, [cut] + SOLVE)
    first = run.of_type("observation")[0]["text"]
    assert "cut off at the 2048-token limit" in first and "smaller steps" in first
    assert run.of_type("llm_reply")[0]["truncated"] is True
    assert run.code == 0


def test_history_is_compacted_to_fit_the_context(agent):
    agent.settings.update(max_tokens=256, context_size=1800)
    big = [action("write_file", path=f"notes{i}.txt", content=f"{i} " + "lorem ipsum " * 150) for i in range(4)]
    reads = [action("read_file", path=f"notes{i}.txt") for i in range(4)]
    with FakeKoboldCpp(big + reads) as server:
        run = agent.run(STATS, "--server", server.url, "--max-steps", "8")
    assert run.result["status"] == "step_limit", run.result
    compacted = run.of_type("context_compacted")
    assert compacted and all(e["tokens_after"] < e["tokens_before"] for e in compacted)
    for body in server.bodies("/v1/chat/completions"):
        chars = sum(len(m["content"]) for m in body["messages"])
        assert chars // 4 <= 1800 - 256  # what the server's tokenizer counts always fits
    assert body["messages"][0]["role"] == "system" and "Task:" in body["messages"][1]["content"]


def test_a_task_larger_than_the_context_stops_before_sending(agent):
    agent.settings.update(max_tokens=256, context_size=600)
    task = agent.write_task("huge.txt", "Do this: " + "very long instructions " * 200)
    with FakeKoboldCpp([action("run_tests")]) as server:
        run = agent.run(task, "--server", server.url)
    assert run.result["status"] == "error" and "no longer fits the context" in run.result["reason"]
    assert server.bodies("/v1/chat/completions") == []


def test_server_dying_mid_run_ends_with_a_readable_result(agent):
    class Dies(FakeKoboldCpp):
        def route(self, method, path, body):
            if path == "/v1/chat/completions" and self.generations >= 1:
                return 500, {"error": "CUDA error: out of memory"}
            return super().route(method, path, body)

    with Dies([action("write_file", path="stats.py", content=GOOD_STATS)]) as server:
        run = agent.run(STATS, "--server", server.url)
    assert run.code == 1
    assert run.result["status"] == "error" and "HTTP 500" in run.result["reason"] and "out of memory" in run.result["reason"]
    assert run.of_type("error") and run.events[-1]["type"] == "end"

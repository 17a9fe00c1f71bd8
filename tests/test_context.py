"""The context budget over long runs: the history only grows between compactions (so a server's
prompt cache holds), a compaction keeps what the model needs, no request is ever too long for
the context, and --resume rebuilds the same compacted history from the transcript."""
from __future__ import annotations

import pytest
import yaml

import context
from config import Config, SandboxConfig
from conftest import ROOT
from fake_servers import FakeLlamaServer, ScriptedBackend, action
from llm_client import render_chatml, smollm2_path
from orchestrator import Orchestrator
from context import RunState
from runlog import read_transcript
from sandbox import Sandbox
from tasks import load_task

STATS = ROOT / "example_tasks" / "stats"
GOOD_STATS = (ROOT / "tests" / "solutions" / "stats" / "stats.py").read_text()
START_STATS = (STATS / "repo" / "stats.py").read_text()


def wrong_attempt(i: int) -> str:
    """A different wrong stats.py each time (a model that keeps trying, failing differently)."""
    notes = "\n".join(f"# attempt {i}: idea {j} about medians and windows of numbers" for j in range(12))
    return f"{notes}\n" + START_STATS.replace("return s[n // 2]", f"return s[n // 2] + {i + 1}")


def long_script(attempts: int) -> list:
    script = [action("read_file", path="test_stats.py"), action("read_file", path="stats.py"), action("run_tests")]
    for i in range(attempts):
        script += [action("write_file", thought=f"try {i}", path="stats.py", content=wrong_attempt(i)), action("run_tests")]
    return script + [action("write_file", path="stats.py", content=GOOD_STATS), action("run_tests"),
                     action("finish", summary="fixed")]


class SmolTokens(ScriptedBackend):
    """The scripted backend (NOT a model) counting tokens as the embedded backend does: SmolLM2's
    real tokenizer, from the bundled GGUF's vocabulary alone."""

    def __init__(self, replies, context: int):
        super().__init__(replies, context)
        import llama_cpp
        self.vocab = llama_cpp.Llama(model_path=str(smollm2_path()), vocab_only=True, verbose=False)

    def count_tokens(self, text: str) -> int:
        return len(self.vocab.tokenize(text.encode("utf-8"), add_bos=False, special=True))


needs_smollm2 = pytest.mark.skipif(smollm2_path() is None, reason="the bundled SmolLM2 is not installed")


@pytest.fixture(scope="module")
def sandbox():
    return Sandbox(SandboxConfig(timeout=30))


def play(scratch, sandbox, backend, **settings):
    config = Config(runs_dir=str(scratch / "runs"), max_steps=80, **settings)
    run_dir = scratch / "runs" / "stats"
    run_dir.mkdir(parents=True)
    orchestrator = Orchestrator(load_task(STATS), backend, sandbox, config, run_dir, say=lambda line: None)
    return orchestrator, orchestrator.run()


@needs_smollm2
def test_a_long_run_in_a_4k_context_compacts_fits_and_finishes(scratch, sandbox):
    backend = SmolTokens(long_script(14), context=4096)
    orchestrator, result = play(scratch, sandbox, backend, max_tokens=1024)
    assert result["status"] == "solved", result
    events = read_transcript(orchestrator.run_dir)
    compacted = [e for e in events if e["type"] == "context_compacted"]
    assert len(compacted) >= 2 and all(e["tokens_after"] < e["tokens_before"] for e in compacted)
    assert not [e for e in events if e["type"] == "context_cut"]
    # never too long: the prompt as the chat template renders it, counted by the real tokenizer
    assert max(backend.count_tokens(render_chatml(sent)) for sent in backend.sent) + 1024 <= 4096
    # append-only between compactions: each request starts with the whole previous one
    rewritten = [i for i in range(1, len(backend.sent)) if backend.sent[i][:len(backend.sent[i - 1])] != backend.sent[i - 1]]
    assert len(rewritten) == len(compacted)
    # what the model needs survives: the task, the latest stats.py it saw, the latest test output
    after = backend.sent[rewritten[-1]]
    assert after[0] == backend.sent[0][0] and after[1]["content"].startswith(backend.sent[0][1]["content"])
    assert "- run_tests -> pytest: 3 tests: 3 failed" in after[1]["content"]
    assert "from stats import median" in after[1]["content"]  # test_stats.py, read at the start
    assert after[1]["content"].count("# attempt") == 12  # one version of stats.py: the latest
    assert "E   assert" in after[1]["content"]  # the latest test failure
    assert len(after) == 2
    # --resume rebuilds the same history by applying the same events
    replayed = RunState([dict(m) for m in backend.sent[0][:2]])
    for event in events:
        replayed.apply(event)
    assert replayed.messages == orchestrator.state.messages


def test_a_compaction_summarizes_each_earlier_step_in_one_line():
    messages = [{"role": "system", "content": "S"}, {"role": "user", "content": "Task:\ndo it"},
                {"role": "assistant", "content": action("read_file", path="a.py")},
                {"role": "user", "content": "Observation:\nA = 1\n" + "x = 2\n" * 50},
                {"role": "assistant", "content": action("run_tests")},
                {"role": "user", "content": "Observation:\npytest: 1 tests: 1 failed\nE   assert 1 == 2"},
                {"role": "assistant", "content": "{not json"},
                {"role": "user", "content": "Observation:\nYour reply is not valid JSON"},
                {"role": "assistant", "content": action("write_file", path="b.py", content="B = 2\n")},
                {"role": "user", "content": "Observation:\nWrote 6 characters (2 lines) to b.py."}]
    files = {"a.py": "A = 3\n", "b.py": "B = 2\n"}
    fields = context.compaction(messages, {"lines": ["- list_files -> a.py"], "files": {"gone.py": ""}}, files.get,
                                "pytest: 1 tests: 1 failed\nE   assert 1 == 2")
    assert fields == {"lines": ["- list_files -> a.py", "- read_file a.py", "- run_tests -> pytest: 1 tests: 1 failed",
                                "- an invalid reply -> Your reply is not valid JSON", "- write_file b.py (6 chars)"],
                      "files": {"a.py": "A = 3\n", "b.py": "B = 2\n"}, "test_output": "pytest: 1 tests: 1 failed\nE   assert 1 == 2"}
    context.apply_compaction(messages, "Task:\ndo it", fields)
    assert [m["role"] for m in messages] == ["system", "user"] and messages[1]["content"].startswith("Task:\ndo it\n")
    assert "Content of a.py at that point:\nA = 3" in messages[1]["content"] and "gone.py" not in messages[1]["content"]
    assert messages[1]["content"].endswith("The last test output at that point:\npytest: 1 tests: 1 failed\nE   assert 1 == 2")


def test_a_resumed_run_sends_what_an_uninterrupted_run_sends(loop_agent):
    """As a user runs it (run_task.main, in this process): a run that compacted stops at its step limit and is resumed; from then on
    it sends exactly the requests of the same run without the stop (same history, same cache)."""
    agent = loop_agent
    agent.settings.update(max_tokens=1024, context_size=4096)
    script = long_script(8)
    with FakeLlamaServer(script, context=4096) as server:
        whole = agent.run(STATS, "--server", server.url, "--run-id", "whole", "--max-steps", "40")
        uninterrupted = server.bodies("/v1/chat/completions")
    assert whole.result["status"] == "solved" and len(whole.of_type("context_compacted")) >= 2
    with FakeLlamaServer(script[:12], context=4096) as server:
        first = agent.run(STATS, "--server", server.url, "--max-steps", "12")
    assert first.result["status"] == "step_limit" and first.of_type("context_compacted")
    with FakeLlamaServer(script[12:], context=4096) as server:
        again = agent.run(None, "--resume", str(first.run_dir), "--server", server.url, "--max-steps", "40")
        resumed = server.bodies("/v1/chat/completions")
    assert again.result["status"] == "solved", again.proc.stdout + again.proc.stderr
    assert [b["messages"] for b in resumed] == [b["messages"] for b in uninterrupted[12:]]


@needs_smollm2
def test_a_test_output_larger_than_the_room_is_cut_and_the_run_goes_on(scratch, sandbox):
    """In a 1.5K context a long test output (4000 characters, the sandbox's cap) does not fit even
    after a compaction: the last resort cuts it, and the run goes on to the end."""
    test = ("import pytest\nfrom text import text\n\n@pytest.mark.parametrize('i', range(60))\n"
            "def test_text(i):\n    assert text(i) == f'done {i}'\n")
    script = [action("write_file", path="test_text.py", content=test),
              action("write_file", path="text.py", content="def text(i):\n    return 'not yet'\n"), action("run_tests"),
              action("write_file", path="text.py", content="def text(i):\n    return f'done {i}'\n"),
              action("run_tests"), action("finish", summary="done")]
    (scratch / "text.yaml").write_text(yaml.safe_dump({"prompt": "Write text.py with text() returning the words.",
                                                       "hidden_tests": {"test_text_hidden.py": test}}))
    backend = SmolTokens(script, context=1536)
    config = Config(runs_dir=str(scratch / "runs"), max_tokens=512, prove_tests=False)
    run_dir = scratch / "runs" / "text"
    run_dir.mkdir(parents=True)
    orchestrator = Orchestrator(load_task(scratch / "text.yaml"), backend, sandbox, config, run_dir, say=lambda line: None)
    assert orchestrator.run()["status"] == "solved"
    events = read_transcript(run_dir)
    assert [e for e in events if e["type"] == "context_cut"] and [e for e in events if e["type"] == "context_compacted"]
    assert max(backend.count_tokens(render_chatml(sent)) for sent in backend.sent) + 512 <= 1536
    assert any("[... cut to fit the context window]" in sent[-1]["content"] for sent in backend.sent)
    replayed = RunState([dict(m) for m in backend.sent[0][:2]])
    for event in events:
        replayed.apply(event)
    assert replayed.messages == orchestrator.state.messages

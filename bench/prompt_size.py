"""Tokens of what the model reads on every run: the system prompt with the action description
(all actions, and the base set without edit_file/list_files), the task message of an example
task, and a typical failing-test observation (one failing assertion among three tests, from a
real sandboxed pytest run, as the agent shows it). Counted with SmolLM2's tokenizer (the vocabulary
of the bundled GGUF, loaded without weights). Prints a table; asserts nothing.

    .venv/bin/python bench/prompt_size.py
"""
from __future__ import annotations

import shutil
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import actions as act  # noqa: E402
import llm_client  # noqa: E402
import prompts  # noqa: E402
from config import SandboxConfig  # noqa: E402
from sandbox import Sandbox  # noqa: E402
from tasks import load_task  # noqa: E402

CODE = "def mean(xs):\n    return sum(xs) / len(xs)\n\n\ndef median(xs):\n    s = sorted(xs)\n    return s[len(s) // 2]\n"
TESTS = ("from stats import mean, median\n\n\ndef test_mean():\n    assert mean([1, 2, 3]) == 2\n\n\n"
         "def test_median_odd():\n    assert median([3, 1, 2]) == 2\n\n\n"
         "def test_median_even():\n    assert median([4, 1, 3, 2]) == 2.5\n")
TARGETS = {"system": 500, "observation": 300}


def failing_observation() -> str:
    """The observation after run_tests on a workspace where one assertion fails."""
    scratch = Path(tempfile.mkdtemp(prefix="tdd-agent-bench-"))
    scratch.chmod(0o755)  # the sandbox's unprivileged user must reach it
    try:
        workspace = scratch / "workspace"
        workspace.mkdir()
        (workspace / "stats.py").write_text(CODE)
        (workspace / "test_stats.py").write_text(TESTS)
        run = Sandbox(SandboxConfig()).run_pytest(workspace, scratch / "sandbox")
        return prompts.observation(run.output)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def main() -> None:
    import llama_cpp
    model = llm_client.smollm2_path()
    if not model:
        raise SystemExit("run ./install.sh first: the bundled SmolLM2 is missing")
    vocab = llama_cpp.Llama(model_path=str(model), vocab_only=True, verbose=False)

    def tokens(text: str) -> int:
        return len(vocab.tokenize(text.encode("utf-8"), add_bos=False, special=True))

    task = load_task(Path(__file__).resolve().parent.parent / "example_tasks" / "stats")
    observation = failing_observation()
    rows = [("system prompt, all actions", prompts.system_prompt(act.ALL_ACTIONS), "system"),
            ("system prompt, base actions", prompts.system_prompt(act.BASE_ACTIONS), "system"),
            ("task message (example_tasks/stats)", prompts.task_message(task.spec.prompt, sorted(task.spec.files),
                                                                        ["test_stats.py"]), None),
            ("failing-test observation (1 of 3 fails)", observation, "observation")]
    print(f"Tokenizer: SmolLM2-135M-Instruct ({model.name}, vocabulary only)\n")
    print(f"{'text':42} {'chars':>6} {'tokens':>7} {'target':>7}")
    for name, text, target in rows:
        limit = TARGETS.get(target)
        verdict = "" if limit is None else (f"< {limit}" if tokens(text) < limit else f"MISSED < {limit}")
        print(f"{name:42} {len(text):6} {tokens(text):7} {verdict:>7}")
    print("\nThe failing-test observation:\n" + observation)


if __name__ == "__main__":
    main()

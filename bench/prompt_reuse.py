"""Prompt reuse per step: tokens sent, re-processed and reused, over a scripted run long enough to
cross the context limit, under two history policies side by side (interleaved, step by step):

  before  one old message elided at a time whenever the history is over budget (the policy of
          orchestrator._fit_context up to commit 07cbb2b, copied below)
  after   context.py: append-only, compacted once past compact_at of the room

The model is the embedded backend (llama-cpp-python, SmolLM2-135M, in this process), one instance
per policy. llama-cpp-python evaluates only what follows the longest common token prefix of the
prompt and what it evaluated before; "re-processed" is the count of prompt tokens it actually
evaluated (llama.cpp's own counter, llama_perf_context().n_p_eval, before/after each request),
"reused" = sent - re-processed. "appended" = tokens of the two messages the step added (the
model's reply and the observation), counted on the rendered prompt. The replies are scripted
(the model generates 1 token per request), so a reply counts as appended, as it would on a server
that did not keep the tokens it generated. Target: re-processed <= 1.3 x appended at every step
except a compaction, and within it again at the next step. Prints a table; asserts nothing.

    .venv/bin/python bench/prompt_reuse.py [--context 2048] [--max-tokens 512] [--steps 24]
"""
from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import actions as act  # noqa: E402
import context  # noqa: E402
import llm_client  # noqa: E402
import prompts  # noqa: E402
from config import Config, SandboxConfig  # noqa: E402
from sandbox import Sandbox  # noqa: E402
from tasks import load_task  # noqa: E402

STATS = Path(__file__).resolve().parent.parent / "example_tasks" / "stats"
ELIDED = "[elided to fit the context window]"
TARGET = 1.3


def elide_before(messages: list[dict], count_tokens, context_size: int, max_tokens: int) -> bool:
    """The elision of commit 07cbb2b (orchestrator._fit_context and _tokens), without its last
    resort (never reached here). Returns whether it changed the history."""
    def tokens() -> int:
        text = "\n".join(m["content"] for m in messages)
        estimate = len(text) // 3 + 8 * len(messages)
        if estimate < 0.7 * (context_size - max_tokens):
            return estimate
        return count_tokens(text) + 8 * len(messages)

    budget, used, changed = context_size - max_tokens - 64, tokens(), False
    while used > budget:
        excess = used - budget
        elidable = [i for i in range(2, len(messages) - 1) if messages[i]["content"] != ELIDED]
        if not elidable:
            break
        for index in elidable:
            excess -= (len(messages[index]["content"]) - len(ELIDED)) // 4
            messages[index] = {**messages[index], "content": ELIDED}
            changed = True
            if excess <= 0:
                break
        used = tokens()
    return changed


def real_test_output(files: dict[str, str]) -> str:
    """What run_tests shows for these files: a real sandboxed pytest run."""
    scratch = Path(tempfile.mkdtemp(prefix="tdd-agent-bench-"))
    scratch.chmod(0o755)  # the sandbox's unprivileged user must reach it
    try:
        for rel, text in files.items():
            (scratch / "workspace" / rel).parent.mkdir(parents=True, exist_ok=True)
            (scratch / "workspace" / rel).write_text(text)
        return Sandbox(SandboxConfig()).run_pytest(scratch / "workspace", scratch / "sandbox").output
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def scripted_steps(files: dict[str, str], count: int) -> list[tuple[str, str, dict[str, str]]]:
    """(reply, observation, files afterwards) per step: read the files, then a model that keeps
    rewriting stats.py with notes and running the tests (real outputs of those files)."""
    def say(name: str, **fields) -> str:
        return json.dumps({"thought": f"next: {name}", "action": name, **fields})

    steps = [(say("read_file", path="test_stats.py"), files["test_stats.py"], dict(files)),
             (say("read_file", path="stats.py"), files["stats.py"], dict(files))]
    output = real_test_output(files)
    steps.append((say("run_tests"), output, dict(files)))
    i, original = 0, files["stats.py"]
    while len(steps) < count:
        notes = "\n".join(f"# attempt {i}: idea {j} about medians and windows" for j in range(8))
        code = f"{notes}\n{original}".replace("s[n // 2]", f"s[n // 2] + {i % 3}")
        files = {**files, "stats.py": code}
        steps.append((say("write_file", path="stats.py", content=code), f"Wrote {len(code)} characters to stats.py.", files))
        if i % 3 == 0:  # three versions fail three ways: the real output of each, computed once
            output = real_test_output(files)
        steps.append((say("run_tests"), output, files))
        i += 1
    return steps[:count]


class Policy:
    """One history and one model instance, stepped like the agent's loop."""

    def __init__(self, name: str, config: Config, messages: list[dict]):
        self.name, self.config = name, config
        self.backend = llm_client.Embedded(config)
        self.messages = [dict(m) for m in messages]
        self.task = messages[1]["content"]
        self.budget = context.Budget(self.backend.count_tokens, self.backend.context_size, config.max_tokens,
                                     config.compact_at)
        self.compacted: dict = {}
        self.rows: list[dict] = []

    def tokens(self, messages: list[dict]) -> int:
        return self.backend.count_tokens(llm_client.render_chatml(messages))

    def fit(self, files: dict[str, str], test_output: str) -> str:
        """Apply the policy before a request; says what it did ('' for nothing)."""
        if self.name == "before":
            changed = elide_before(self.messages, self.backend.count_tokens, self.backend.context_size,
                                   self.config.max_tokens)
            return "elided" if changed else ""
        used = self.budget.tokens(self.messages)
        if used <= self.budget.threshold:
            return ""
        fields = context.compact(self.messages, self.task, self.compacted, files.get, test_output, self.budget, used)
        if fields is None:
            return ""
        context.apply_compaction(self.messages, self.task, fields)
        self.compacted = fields
        return f"compacted {fields['tokens_before']}->{fields['tokens_after']}"

    def request(self, appended: int, event: str) -> None:
        """One request to the model; what llama.cpp evaluated, by its own counter."""
        import llama_cpp
        ctx = self.backend.llm._ctx.ctx
        before = llama_cpp.llama_perf_context(ctx)
        evaluated_before, ms_before = before.n_p_eval, before.t_p_eval_ms
        sent = self.tokens(self.messages)
        if sent + self.config.max_tokens > self.backend.context_size:  # llama-cpp-python would refuse it
            self.rows.append({"sent": sent, "reprocessed": 0, "reused": 0, "appended": appended, "ms": 0.0,
                              "event": f"{event} TOO LONG".strip()})
            return
        self.backend.llm.create_chat_completion(messages=self.messages, max_tokens=1, temperature=0)
        after = llama_cpp.llama_perf_context(ctx)
        evaluated = after.n_p_eval - evaluated_before
        self.rows.append({"sent": sent, "reprocessed": evaluated, "reused": sent - evaluated, "appended": appended,
                          "ms": after.t_p_eval_ms - ms_before, "event": event})


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--context", type=int, default=2048)
    parser.add_argument("--max-tokens", type=int, default=512)
    parser.add_argument("--compact-at", type=float, default=0.75)
    parser.add_argument("--steps", type=int, default=24)
    args = parser.parse_args()
    model = llm_client.smollm2_path()
    if not model:
        raise SystemExit("run ./install.sh first: the bundled SmolLM2 is missing")
    config = Config(backend="embedded", context_size=args.context, max_tokens=args.max_tokens, compact_at=args.compact_at)
    task = load_task(STATS)
    start = [{"role": "system", "content": prompts.system_prompt(act.ALL_ACTIONS)},
             {"role": "user", "content": prompts.task_message(task.spec.prompt, sorted(task.spec.files), ["test_stats.py"])}]
    steps = scripted_steps(dict(task.spec.files), args.steps)
    policies = [Policy("before", config, start), Policy("after", config, start)]
    print(f"Embedded backend (llama-cpp-python {llama_version()}, SmolLM2-135M-Instruct Q4_1), context {args.context}, "
          f"max_tokens {args.max_tokens}, compact_at {args.compact_at}, {args.steps} steps; re-processed = llama.cpp's "
          "n_p_eval per request\n")
    print(f"{'step':>4} | " + " | ".join(f"{p.name:>6}: {'sent':>5} {'reproc':>6} {'reused':>6} {'apnd':>5} {'ms':>6} {'event':<20}"
                                         for p in policies), flush=True)
    files, output = dict(task.spec.files), None
    for step in range(args.steps):
        for policy in policies:  # interleaved: both see the machine in the same state
            if step:
                reply, observation, _ = steps[step - 1]
                policy.messages += [{"role": "assistant", "content": reply},
                                    {"role": "user", "content": prompts.observation(observation)}]
            appended = policy.tokens(policy.messages) - policy.tokens(policy.messages[:-2]) if step else policy.tokens(policy.messages)
            policy.request(appended, policy.fit(files, output))
        print(f"{step + 1:4} | " + " | ".join(row(p.rows[-1]) for p in policies), flush=True)
        if step < len(steps):
            reply, observation, files = steps[step]
            output = observation if '"run_tests"' in reply else output
    report(policies)


def llama_version() -> str:
    import llama_cpp
    return llama_cpp.__version__


def row(r: dict) -> str:
    return f"{'':>6}  {r['sent']:5} {r['reprocessed']:6} {r['reused']:6} {r['appended']:5} {r['ms']:6.0f} {r['event']:<20}"


def report(policies: list[Policy]) -> None:
    print()
    for p in policies:
        rows = p.rows[1:]
        misses = [i + 2 for i, r in enumerate(rows)
                  if r["reprocessed"] > TARGET * r["appended"] and not r["event"].startswith("compacted")]
        too_long = sum("TOO LONG" in r["event"] for r in p.rows)
        word = "elided" if p.name == "before" else "compacted"
        events = [i for i, r in enumerate(rows) if r["event"].startswith(word)]
        recovered = sum(1 for i in events if i + 1 < len(rows) and rows[i + 1]["reprocessed"] <= TARGET * rows[i + 1]["appended"])
        reproc = sum(r["reprocessed"] for r in p.rows)
        sent = sum(r["sent"] for r in p.rows)
        print(f"{p.name:>6}: {sent} tokens sent, {reproc} re-processed ({reproc / sent:.0%}), "
              f"{sum(r['ms'] for r in p.rows) / 1000:.1f} s prompt evaluation; {len(events)} steps {word} "
              f"({recovered} followed by a step within target); steps over {TARGET}x appended, compactions aside: "
              f"{len(misses)}{' ' + str(misses) if misses else ''}; requests too long for the context "
              f"(prompt + max_tokens, not sent): {too_long}")


if __name__ == "__main__":
    main()

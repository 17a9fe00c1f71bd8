"""Valid-action rate and seconds per turn, per backend, with and without the constraint, on the
small bundled model (SmolLM2-135M). Prints a table; asserts nothing.

Each "turn" is one request with a realistic agent history (the system prompt, one of the example
tasks, and 0-2 earlier steps); a turn counts as valid when actions.parse accepts the reply; "cut" counts the invalid replies
that ran into max_tokens (a grammar guarantees the syntax, not that the model stops in time).

    .venv/bin/python bench/backend_bench.py [--turns 20] [--llama-server PATH] [--koboldcpp URL] [--given-only]

Backends: embedded (in-process), openai against llama-cpp-python's server (started here), and,
when given, a llama-server binary (started here) or a running KoboldCPP (any URL it answers
on, e.g. http://127.0.0.1:5001; start it with SmolLM2 for comparable rows). --given-only
measures only the servers given.
"""
from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

import actions as act  # noqa: E402
import llm_client  # noqa: E402
from config import Config  # noqa: E402
from fake_servers import free_port, start_server  # noqa: E402
from prompts import system_prompt  # noqa: E402
from tasks import load_task  # noqa: E402

EXAMPLES = Path(__file__).resolve().parent.parent / "example_tasks"
TASKS = ["fizzbuzz.txt", "stats", "todo", "bank", "slugify.yaml", "invoice"]


def histories(turns: int) -> list[list[dict]]:
    """`turns` message lists: each task at its start, after listing files, after a red test run."""
    system = {"role": "system", "content": system_prompt(act.ALL_ACTIONS)}
    out = []
    for i in range(turns):
        task = load_task(EXAMPLES / TASKS[i % len(TASKS)])
        files = "\n".join(task.spec.files) or "(empty)"
        messages = [system, {"role": "user", "content": f"Task:\n{task.spec.prompt}\n\nFiles in the workspace:\n{files}"}]
        stage = (i // len(TASKS)) % 3
        if stage >= 1:
            messages += [{"role": "assistant", "content": '{"thought": "see what is there", "action": "list_files"}'},
                         {"role": "user", "content": f"Observation:\n{files}"}]
        if stage >= 2:
            messages += [{"role": "assistant", "content": '{"thought": "check the tests", "action": "run_tests"}'},
                         {"role": "user", "content": "Observation:\npytest: 3 tests: 1 passed, 2 failed\n\nFAILED "
                          "test_x::test_a\nE   assert 2 == 2.5"}]
        out.append(messages)
    return out


def measure(backend: llm_client.Backend, protocol: str, turns: list[list[dict]]) -> tuple[int, int, list[float], list[int]]:
    """Valid replies, invalid ones that were cut at max_tokens, seconds and tokens per turn."""
    fmt = llm_client.ActionFormat(act.ALL_ACTIONS)
    valid, cut, seconds, tokens = 0, 0, [], []
    for messages in turns:
        reply = backend.complete(messages, fmt, protocol)
        seconds.append(reply.seconds)
        tokens.append(reply.completion_tokens or 0)
        try:
            act.parse(reply.text)
            valid += 1
        except act.InvalidReply:
            cut += reply.truncated
    return valid, cut, seconds, tokens


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--turns", type=int, default=20)
    parser.add_argument("--max-tokens", type=int, default=512)
    parser.add_argument("--llama-server", help="path of a llama-server binary to start with SmolLM2")
    parser.add_argument("--koboldcpp", help="URL of a running KoboldCPP (started with SmolLM2)")
    parser.add_argument("--given-only", action="store_true", help="only the servers given (--llama-server, --koboldcpp)")
    args = parser.parse_args()
    model = llm_client.smollm2_path()
    if not model and not (args.given_only and args.koboldcpp):
        raise SystemExit("run ./install.sh first: the bundled SmolLM2 is missing")
    config = Config(max_tokens=args.max_tokens, temperature=0.2, retries=0)
    turns = histories(args.turns)
    procs, backends = [], {}
    if not args.given_only:
        backends["embedded"] = llm_client.Embedded(config)
        port = free_port()
        procs.append(start_server([sys.executable, "-m", "llama_cpp.server", "--model", str(model), "--host", "127.0.0.1",
                                   "--port", str(port), "--chat_format", "chatml", "--n_ctx", "4096"],
                                  f"http://127.0.0.1:{port}", "/v1/models"))
        backends["llama-cpp-python server"] = llm_client.connect(Config(**{**config.model_dump(), "server": f"http://127.0.0.1:{port}"}), True)
    if args.llama_server:
        port = free_port()
        procs.append(start_server([args.llama_server, "-m", str(model), "--host", "127.0.0.1", "--port", str(port), "-c", "4096",
                            "--jinja", "-np", "1"], f"http://127.0.0.1:{port}", "/health"))
        backends["llama-server"] = llm_client.connect(Config(**{**config.model_dump(), "server": f"http://127.0.0.1:{port}"}), True)
    if args.koboldcpp:
        backends["koboldcpp"] = llm_client.connect(Config(**{**config.model_dump(), "server": args.koboldcpp}), True)
    print(f"SmolLM2-135M-Instruct Q4_1, {args.turns} turns per row, max_tokens {args.max_tokens}, temperature 0.2")
    print(f"{'backend':<26} {'protocol':<12} {'valid':>7} {'cut':>4} {'median s/turn':>14} {'mean s/turn':>12} {'mean tokens':>12}")
    try:
        for name, backend in backends.items():
            constrained = [p for p in backend.protocols if p in ("grammar", "json_schema")]
            for protocol in constrained + ["none"]:
                valid, cut, seconds, tokens = measure(backend, protocol, turns)
                print(f"{name:<26} {protocol:<12} {valid:>3}/{len(turns):<3} {cut:>4} {statistics.median(seconds):>14.2f} "
                      f"{statistics.mean(seconds):>12.2f} {statistics.mean(tokens):>12.0f}", flush=True)
    finally:
        for proc in procs:
            proc.terminate()
            proc.wait(timeout=30)


if __name__ == "__main__":
    main()

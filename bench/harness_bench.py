"""What a step costs in our own code: a run of 200 steps against an instant scripted model (no
test runs: write_file, read_file and list_files in turn), timing what the orchestrator does
between one model request and the next (parse, validate, the file action, the stuck check, the
transcript written with fsync, the context estimate), wall clock and this process's CPU time
(on a shared machine the wall clock also counts waiting for a core), and the process's peak RSS.
Prints a table; asserts nothing.

    .venv/bin/python bench/harness_bench.py [--steps 200] [--profile]

The scripted backend (tests/fake_servers.py ScriptedBackend) answers instantly; the time it
spends copying the history for its own record is measured and left out.
"""
from __future__ import annotations

import argparse
import cProfile
import pstats
import resource
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from config import Config, SandboxConfig  # noqa: E402
from fake_servers import ScriptedBackend, action  # noqa: E402
from orchestrator import Orchestrator  # noqa: E402
from sandbox import Sandbox  # noqa: E402
from tasks import load_task  # noqa: E402

TASK = ROOT / "example_tasks" / "stats"


def script(steps: int) -> list[str]:
    """Each file written, then read back, then the folder listed: every step changes something,
    so the stuck check never ends the run."""
    replies = []
    for i in range(steps):
        path = f"helper_{i % 7}.py"
        body = "".join(f"def f{i}_{n}(x):\n    return x * {n} + {i}\n\n" for n in range(4))
        replies.append([action("write_file", path=path, content=body), action("read_file", path=path),
                        action("list_files")][i % 3])
    return replies


class TimedBackend(ScriptedBackend):
    """Notes when each request starts and ends, so the time between them is ours."""

    def __init__(self, replies, context: int):
        super().__init__(replies, context)
        self.calls: list[tuple[float, float]] = []  # wall clock at the start and end of each request
        self.cpu: list[tuple[float, float]] = []  # this process's CPU time, the same way

    def complete(self, messages, fmt, protocol):
        start, cpu = time.perf_counter(), time.process_time()
        reply = super().complete(messages, fmt, protocol)
        self.calls.append((start, time.perf_counter()))
        self.cpu.append((cpu, time.process_time()))
        return reply


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--profile", action="store_true", help="print the top of a cProfile of the run")
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="tdd-agent-bench-"))
    run_dir = folder / "runs" / "stats"
    run_dir.mkdir(parents=True)
    config = Config(runs_dir=str(folder / "runs"), max_steps=args.steps, stuck_limit=50, max_tokens=1024)
    backend = TimedBackend(script(args.steps), context=16384)
    orchestrator = Orchestrator(load_task(TASK), backend, Sandbox(SandboxConfig()), config, run_dir,
                                say=lambda line: None)
    profile = cProfile.Profile() if args.profile else None
    if profile:
        profile.enable()
    result = orchestrator.run()
    if profile:
        profile.disable()
    ours = [(nxt[0] - prev[1]) * 1000 for prev, nxt in zip(backend.calls, backend.calls[1:])]
    ours_cpu = [(nxt[0] - prev[1]) * 1000 for prev, nxt in zip(backend.cpu, backend.cpu[1:])]
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"{len(backend.calls)} steps ({result['status']}), scripted model, no test runs, context "
          f"{backend.context_size} tokens, max_tokens {config.max_tokens}; history {len(orchestrator.state.messages)} messages at the end")
    print(f"{'what':<28} {'value':>9}  target")
    print(f"{'median ms per step (ours)':<28} {statistics.median(ours):>9.2f}  < 5")
    print(f"{'  of which CPU time':<28} {statistics.median(ours_cpu):>9.2f}  (the rest: fsync, waiting for a core)")
    print(f"{'p90 ms per step':<28} {sorted(ours)[int(len(ours) * 0.9)]:>9.2f}")
    print(f"{'max ms per step':<28} {max(ours):>9.2f}")
    print(f"{'peak RSS MB':<28} {peak_mb:>9.1f}  < 100")
    if profile:
        pstats.Stats(profile).sort_stats("cumulative").print_stats(25)
    shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()

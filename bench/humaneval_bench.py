"""HumanEval as imported by --import-humaneval: how long the import of all 164 problems takes, and
whether each problem's reference solution passes its hidden tests when judged (and the stub
fails them). Prints counts, times and the problems that disagree; asserts nothing.

    .venv/bin/python bench/humaneval_bench.py [--limit N] [--isolation bwrap|basic]
"""
from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import humaneval  # noqa: E402
import verdict  # noqa: E402
from config import SandboxConfig  # noqa: E402
from sandbox import Sandbox, put_file  # noqa: E402
from tasks import load_task  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int)
    parser.add_argument("--isolation", default="auto")
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="humaneval-bench-"))
    folder.chmod(0o755)
    sandbox = Sandbox(SandboxConfig(isolation=args.isolation))
    try:
        problems = humaneval.problems()[:args.limit]
        start = time.monotonic()
        humaneval.write_tasks(folder / "tasks", problems)
        print(f"import of {len(problems)} problems: {time.monotonic() - start:.2f} s")
        wrong, seconds = [], []
        for problem in problems:
            task = load_task(folder / "tasks" / humaneval.folder_name(problem))
            for kind, code in (("reference", problem["prompt"] + problem["canonical_solution"]), ("stub", None)):
                work = folder / "work" / task.id / kind
                for rel, content in task.spec.files.items():
                    put_file(work, rel, content)
                if code is not None:
                    put_file(work, humaneval.MODULE, code)
                start = time.monotonic()
                result, _, _ = verdict.judge(sandbox, work, task.spec.hidden_tests, folder / "judged" / task.id / kind)
                seconds.append(time.monotonic() - start)
                if result["ok"] != (kind == "reference"):
                    wrong.append(f"{task.id} {kind}: {verdict.counts(result)} {result['outcome'][:120]}")
        print(f"{sandbox.confinement.layer}: {len(problems)} problems judged twice, {len(wrong)} disagree; "
              f"median judged run {sorted(seconds)[len(seconds) // 2]:.2f} s")
        for line in wrong:
            print("  " + line)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()

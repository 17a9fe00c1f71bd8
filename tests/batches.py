"""Runs and batch folders for the console and report tests, made the way a user makes them: real
`run_task.py` runs (real sandbox, real judge) against a scripted KoboldCPP, each run placed where a
batch puts it (`runs/<batch_id>/<task_id>/`), and the batch's `summary.json` in issue 11's schema.
The scripted model (see fake_servers) is what lets a run misbehave on purpose: a thought that
carries a `<script>`, a terminal escape sequence or rich markup."""
from __future__ import annotations

import json
from pathlib import Path

from conftest import ROOT
from fake_servers import FakeKoboldCpp, action
from test_cli_as_typed import user

FIZZBUZZ = (ROOT / "tests" / "solutions" / "fizzbuzz" / "fizzbuzz.py").read_text()
STATS = (ROOT / "tests" / "solutions" / "stats" / "stats.py").read_text()
WRONG_FIZZBUZZ = "def fizzbuzz(n):\n    return str(n)\n"
FIZZ_TESTS = "from fizzbuzz import fizzbuzz\n\ndef test_fizz():\n    assert fizzbuzz(9) == 'Fizz'\n"
# what a hostile or confused model may write into a thought
HOSTILE = ("<script>document.title='pwned'; window.pwned = true</script><img src=x onerror=\"window.pwned=1\">"
           " [bold red]markup[/bold red] \x1b[2J\x1b[31mESC")

# fizzbuzz red, then green: two versions of fizzbuzz.py (a diff), a failing and a passing test run
FIZZBUZZ_RED_THEN_GREEN = [
    action("write_file", thought=HOSTILE, path="fizzbuzz.py", content=WRONG_FIZZBUZZ),
    action("write_file", path="test_fizzbuzz.py", content=FIZZ_TESTS),
    action("run_tests"),
    action("write_file", thought="9 is divisible by 3: return Fizz", path="fizzbuzz.py", content=FIZZBUZZ),
    action("run_tests"),
    action("finish", summary="</pre><script>window.pwned = 2</script>done"),
]
FIZZBUZZ_NEVER_FIXED = FIZZBUZZ_RED_THEN_GREEN[:3]  # ends at --max-steps 3, tests red
STATS_FIXED = [action("write_file", thought="fix both off-by-one bugs", path="stats.py", content=STATS),
               action("finish", summary="fixed")]
TASKS = {"fizzbuzz": "example_tasks/fizzbuzz.txt", "stats": "example_tasks/stats"}


def play(clone: Path, task: str, script: list, *args: str):
    """One run of `run_task.py --task <task>` from the clone, the model played by `script`."""
    with FakeKoboldCpp(script) as server:
        return user(clone, "--task", TASKS[task], "--server", server.url, "--isolation", "basic", *args)


def make_batch(clone: Path, batch_id: str, plays: dict[str, tuple[list, tuple[str, ...]]]) -> Path:
    """runs/<batch_id>/ with one real run per task and the summary.json a batch writes (the
    issue's fields, in the shape batch.py writes them: tokens split, seconds the run's total)."""
    batch = clone / "runs" / batch_id
    runs = []
    for task, (script, args) in plays.items():
        play(clone, task, script, "--runs-dir", f"runs/{batch_id}", "--run-id", task, *args)
        result = json.loads((batch / task / "result.json").read_text())
        runs.append({"task": result["task"], "task_id": task, **{k: result[k] for k in (
            "status", "reason", "steps", "invalid_replies", "finish_accepted", "hidden_tests", "tokens")},
            "seconds": result["seconds"]["total"], "task_source": TASKS[task]})
    totals = {"tasks": len(runs), "done": len(runs), "solved": sum(r["status"] == "solved" for r in runs),
              "finish_accepted": sum(r["finish_accepted"] for r in runs),
              "unsolved": sum(r["status"] == "unsolved" for r in runs), "stuck": sum(r["status"] == "stuck" for r in runs),
              "step_limit": sum(r["status"] == "step_limit" for r in runs), "error": sum(r["status"] == "error" for r in runs),
              "invalid_replies": sum(r["invalid_replies"] for r in runs),
              "tokens": {k: sum(r["tokens"][k] for r in runs) for k in ("prompt", "completion")},
              "seconds": round(sum(r["seconds"] for r in runs), 2)}
    summary = {"batch_id": batch_id, "settings": {"server": "scripted KoboldCPP"}, "runs": runs, "totals": totals}
    (batch / "summary.json").write_text(json.dumps(summary, indent=2))
    return batch

"""The verdict: what a finished run may claim. `solved` needs three things at once: the model's
finish was accepted, the task's own tests are byte-identical in the final files, and the task's
tests (hidden ones, and the protected ones it started with) pass when judged (judge.py): their
assertions run in a process that never runs the model's code, so nothing the model wrote can
forge them. Every item the judge collected must be reported."""
from __future__ import annotations

from pathlib import Path
from typing import Optional

from judge import run_judged
from sandbox import Sandbox


def counts(result: dict) -> str:
    return ", ".join(f"{result[k]} {k}" for k in ("passed", "failed", "errors", "skipped"))


def not_run(reason: str) -> dict:
    return {"passed": 0, "failed": 0, "errors": 0, "skipped": 0, "ok": False, "outcome": f"not run: {reason}"}


def judge(sandbox: Sandbox, workspace: Path, tests: dict[str, str], scratch: Path) -> tuple[dict, str, float]:
    """Judge the final files against trusted tests: the result (counts, ok, outcome), the output
    for humans, and the seconds it took. ok only when the run completed, nothing failed, nothing
    was skipped, and every item the judge collected was reported (its own count, not the JUnit file)."""
    run = run_judged(sandbox, workspace, tests, scratch)
    reported = run.passed + run.failed + run.errors + run.skipped
    complete = run.collected is not None and reported >= run.collected
    if run.outcome == "not_run":
        outcome = f"not run: {run.output}"
    elif run.outcome == "completed" and not complete:
        outcome = f"incomplete: {run.collected} tests collected, {reported} reported"
    elif run.outcome == "completed" and run.skipped:  # e.g. importorskip on a module the model broke
        outcome = f"incomplete: {run.skipped} skipped"
    else:
        outcome = run.outcome
    result = {"passed": run.passed, "failed": run.failed, "errors": run.errors, "skipped": run.skipped,
              "ok": run.ok and complete and not run.skipped, "outcome": outcome}
    return result, run.output, run.seconds


def failed_check(finish_accepted: bool, protected_changed: list[str], judged: dict[str, Optional[dict]]) -> Optional[str]:
    """Why a run whose finish was accepted is not solved after all (None: it is solved)."""
    if not finish_accepted:
        return "finish was not accepted"
    if protected_changed:
        return f"the protected tests were changed at the end: {', '.join(protected_changed)}"
    for name, result in judged.items():
        if result is not None and not result["ok"]:
            return f"finish was accepted but the {name} did not pass when judged ({result['outcome']})"
    return None

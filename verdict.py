"""The verdict: what a finished run may claim. `solved` needs three things at once: the model's
finish was accepted, the task's own tests are byte-identical in the final files, and the task's
tests (hidden ones, and the protected ones it started with) pass both ways:
- judged (judge.py): their assertions run in a process that never runs the model's code, so
  nothing the model wrote can forge them; every item the judge collected must be reported;
- plain (sandbox.run_pytest): one ordinary pytest process, the model's code in it, as the user's
  own pytest runs them. The judge's second process differs from that one (its process state, what
  the model's code can see of pytest): code the user's pytest fails must not pass for that.
A false `solved` would need code that both forges pytest's report in its own process and gets
past the judge."""
from __future__ import annotations

from pathlib import Path
from typing import Callable, Optional

from judge import run_judged
from sandbox import Sandbox, TestRun, is_test_file


def counts(result: dict) -> str:
    return ", ".join(f"{result[k]} {k}" for k in ("passed", "failed", "errors", "skipped"))


def not_run(reason: str) -> dict:
    return {"passed": 0, "failed": 0, "errors": 0, "skipped": 0, "ok": False, "outcome": f"not run: {reason}"}


def judge(sandbox: Sandbox, workspace: Path, tests: dict[str, str], scratch: Path,
          named: Optional[frozenset[str]] = None) -> tuple[dict, str, float]:
    """Judge the final files against trusted tests: the result (counts, ok, outcome), the output
    for humans, and the seconds it took. ok only when the run completed, nothing failed, nothing
    was skipped, and every item the judge collected was reported (its own count, not the JUnit file)."""
    run = run_judged(sandbox, workspace, tests, scratch, named=named)
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


def plain_targets(tests: dict[str, str]) -> tuple[str, ...]:
    """The test modules among a suite's files (pytest's default names), else every module but a conftest."""
    modules = sorted(rel for rel in tests if rel.endswith(".py") and Path(rel).name != "conftest.py")
    named = tuple(filter(is_test_file, modules))
    return named or tuple(modules)


def run_plain(sandbox: Sandbox, workspace: Path, tests: dict[str, str], scratch: Path) -> TestRun:
    """The trusted `tests` laid over a fresh copy of the final files, run by one plain pytest
    process: the run the user's own `python -m pytest` would make of them, with the task's pytest
    set-up as the judge has it (the model's conftest.py is not the task's); a test file changed
    under it is `tampered`, as in any run."""
    return sandbox.run_pytest(workspace, scratch, targets=plain_targets(tests), trusted=tests, trusted_setup_only=True)


def both_ways(judged: dict, plain: TestRun) -> dict:
    """A judged result that also needs the plain run: ok only when both are."""
    result = {**judged, "plain": {"ok": plain.ok, "outcome": plain.outcome, "passed": plain.passed,
                                  "failed": plain.failed, "errors": plain.errors, "skipped": plain.skipped}}
    if judged["ok"] and not plain.ok:
        result["ok"] = False
        result["outcome"] = f"passed judged, but not in a plain pytest run ({plain.outcome}: {plain.counts()})"
    return result


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


def judge_task(sandbox: Sandbox, workspace: Path, suites: dict[str, dict[str, str]], run_dir: Path,
               interrupted: bool, approve: Callable[[str], Optional[str]], record: Callable[..., object],
               say: Callable[[str], None], named: Optional[frozenset[str]] = None,
               beside: Optional[dict[str, str]] = None) -> tuple[dict[str, Optional[dict]], Optional[str]]:
    """Judge the final files against each suite of the task's own tests it has (name -> files),
    and run it plain where it passed judged (both_ways): the result per suite (None: the task has no such tests), and why the run was interrupted if
    Ctrl-C came during it. `approve` is the one hook before the model's code runs; `named`: the
    modules the task names (Task.named_modules), the only ones the workspace answers for; `beside`:
    the task's data files (Task.data_files), beside its tests in the judge's folder as the task
    gave them (the plain run reads them from the final files, as the user's pytest would)."""
    judged: dict[str, Optional[dict]] = {name: None for name in suites}
    stopped = None
    for name, tests in suites.items():
        if not tests:
            continue
        if interrupted or stopped:
            judged[name] = not_run("the run was interrupted")
            continue
        try:
            declined = approve(f"the task's {name}, judged")
            if declined:
                judged[name] = not_run(declined)
                say(f"{name.capitalize()}: not run ({declined})")
                continue
            result, output, seconds = judge(sandbox, workspace, {**(beside or {}), **tests}, run_dir / name.split()[0], named)
            if result["ok"]:  # (a suite that failed judged is not solved whatever a plain run says)
                plain = run_plain(sandbox, workspace, tests, run_dir / f"{name.split()[0]}-plain")
                result, output, seconds = both_ways(result, plain), output + "\n" + plain.output, seconds + plain.seconds
        except KeyboardInterrupt:
            stopped = f"interrupted by the user (Ctrl-C) during the {name}"
            judged[name] = not_run("interrupted")
            continue
        judged[name] = result
        record("judged_tests", suite=name, output=output, seconds=seconds, **result)
    return judged, stopped

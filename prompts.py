"""Every text the model reads besides its own replies and file contents, in one place: for small
models the wording is the main thing to tune. Parse errors and refused file actions are written
beside the check that raises them (actions.py), because each names exactly what failed."""
from __future__ import annotations


def system_prompt(actions) -> str:
    """The protocol, with one example per enabled action (each action class writes its own)."""
    examples = [action.example_json() for action in actions]
    return (
        "You are a coding agent. You solve a programming task in a workspace folder: write Python code and "
        "pytest tests, run the tests, read the failures, and fix the code until all tests pass.\n\n"
        "Reply with exactly one JSON object per turn and nothing else: first a short \"thought\", then the "
        "\"action\" and its fields. The actions:\n" + "\n".join(examples) + "\n\n"
        "Rules:\n"
        "- Paths are relative to the workspace (the current directory of the tests); you cannot leave it.\n"
        "- run_tests runs pytest on the workspace; test files are named test_*.py.\n"
        "- finish runs the tests if files changed since the last run, and is accepted only when they pass.\n"
        "- Test files that existed at the start are protected and correct: fix the code, not those tests.\n"
        "- Keep each reply small: one action, short thoughts."
    )


def task_message(prompt: str, files: list[str], protected: list[str]) -> str:
    listing = "\n".join(files) if files else "(empty)"
    note = f"\nProtected test files (do not change them): {', '.join(protected)}" if protected else ""
    return f"Task:\n{prompt}\n\nFiles in the workspace:\n{listing}{note}"


def observation(text: str) -> str:
    return f"Observation:\n{text}"


# -- the context window ---------------------------------------------------------------------------

def compacted_task(task: str, lines: list[str], files: dict[str, str], test_output) -> str:
    """The task message after a compaction: what happened before, one line a step, and what the
    model needs of it (no step numbers or times: the text must not change between compactions)."""
    parts = [task, "\nEarlier steps, one line each (the history was shortened to fit the context window):", *lines]
    parts += [f"\nContent of {path} at that point:\n{text}" for path, text in files.items()]
    if test_output is not None:
        parts.append(f"\nThe last test output at that point:\n{test_output}")
    return "\n".join(parts)


CUT_TO_FIT = "\n[... cut to fit the context window]"


# -- the loop's answers ---------------------------------------------------------------------------

def truncated(max_tokens: int) -> str:
    return (f"Your reply was cut off at the {max_tokens}-token limit before the JSON was complete. "
            "Write smaller steps: a shorter file, or edit_file for a small change.")


def nudge(error: str, test_output: str, green: bool) -> str:
    verdict = "They pass: if the task is done, reply with the finish action." if green else "Keep working until they pass."
    return f"You stopped without an action. {error}\nI ran the tests for you:\n{test_output}\n\n{verdict}"


def nudge_declined(error: str, why: str) -> str:
    return (f"You stopped without an action. {error}\nI did not run the tests for you: {why}.\n\n"
            "Keep working; reply with the finish action when the task is done.")


def nothing_changed_since_tests(output: str) -> str:
    return f"Nothing changed since the last test run; its result:\n{output}"


def read_again(path: str) -> str:
    return f"{path} has not changed since you last read it; its content is above."


def stuck_warning(reason: str, repeats: int, limit: int) -> str:
    return (f"Note: {reason} (repeat {repeats} of {limit} before the run is stopped as stuck). "
            "Do something different: read the failing test output, change the code, or finish if the tests pass.")


# -- the finish gate ------------------------------------------------------------------------------

def finish_refused(reason: str) -> str:
    return f"finish refused: {reason}"


def protected_changed(paths: list[str]) -> str:
    return f"the protected tests were changed (restored to their original content): {', '.join(paths)}"


def tests_fail_now(output: str) -> str:
    return f"I ran the tests on the current files and they do not pass:\n{output}"


def tests_prove_nothing(files: list[str]) -> str:
    return (f"your tests ({', '.join(files)}) also pass on the starting code, so they do not test the change; "
            "add a test that fails without your fix (finish is judged as usual the next time)")


def latest_run_red(counts: str, outcome: str) -> str:
    return f"the latest test run did not pass ({counts}, {outcome}); fix the code and run the tests again"


# -- what a test run says -------------------------------------------------------------------------

def run_timeout(seconds: float) -> str:
    return f"The tests were killed after the {seconds:g} s time limit (something hangs or loops)."


def run_killed(signal: str, cpu: int, memory_mb: int, file_mb: int) -> str:
    return f"pytest was killed by {signal} (limits: {cpu} CPU s, {memory_mb} MiB memory, {file_mb} MiB per file)."


def run_no_report(exit_code) -> str:
    return (f"pytest ended (exit code {exit_code}) without reporting any test result: something stopped it "
            "before or while the tests ran (for example os._exit or sys.exit at import time).")


def run_counts(counts: dict[str, int]) -> str:
    return f"pytest: {sum(counts.values())} tests: " + ", ".join(f"{v} {k}" for k, v in counts.items() if v)


NO_TESTS = "pytest collected no tests. Test files must be named test_*.py and test functions test_*."


def run_not_started(problem: str) -> str:
    return (f"The tests could not run: the sandbox did not start ({problem}). "
            "This is a fault of the agent's set-up, not of your code.")


def run_tampered(problems: list[str], output: str) -> str:
    return ("This test run proves nothing: while it ran, test code changed what decides how the tests run: "
            + "; ".join(problems) + ". The task's tests are correct; fix the code, not the tests.\n\n" + output)

"""A person in control: the model's code runs when the tests run, so that is the moment to ask.
Before each test run, show the files changed since the last run a person let go (a short diff)
and the decision model's note, then ask `run the tests? [y/N]`. With a decider alone (no
--approve) nobody is asked: the note is printed and logged, and --decider-block refuses a run
whose note is above the threshold."""
from __future__ import annotations

import difflib
from typing import Callable, Optional, Union

from rich.console import Console
from rich.text import Text

import decider as dm
from config import Config
from console import clean

DIFF_LINES = 60  # a short diff: the person reads it before every run

Decider = Union[dm.SystemOne, dm.CodingModel]


def refusal(approve: bool, interactive: bool, config: Config, batch: bool = False) -> Optional[str]:
    """Why these settings cannot run (one line for `error:`), or None. Checked before anything
    starts: a run that would wait for an answer nobody can type must not begin."""
    if approve and batch:
        return ("--approve asks a person before every test run and a --batch run has nobody to ask; "
                "use --decider alone to log a note per test run")
    if approve and not interactive:
        return ("--approve asks before every test run, but stdin is not a terminal; run it in a terminal, "
                "or use --decider alone to log a note per test run")
    if config.decider_block is not None and not config.decider:
        return "--decider-block needs a decision model (--decider URL or AGENT_DECIDER) to give a probability"
    return None


def changes(seen: set[tuple[str, bytes]], before: dict[str, bytes], after: dict[str, bytes]) -> tuple[list[str], str]:
    """The files whose content was never let run (not in `seen`), and a unified diff of all of
    them against their content in `before`."""
    files = sorted(rel for rel, content in after.items() if (rel, content) not in seen)
    lines: list[str] = []
    for rel in files:
        old = before.get(rel, b"").decode("utf-8", "replace").splitlines(keepends=True)
        new = after[rel].decode("utf-8", "replace").splitlines(keepends=True)
        lines += [line if line.endswith("\n") else line + "\n"
                  for line in difflib.unified_diff(old, new, f"a/{rel}" if rel in before else "/dev/null", f"b/{rel}")]
    return files, "".join(lines)


def short(diff: str) -> str:
    """The diff as a person reads it before every run: DIFF_LINES at most."""
    lines = diff.splitlines(keepends=True)
    if len(lines) <= DIFF_LINES:
        return diff
    return "".join(lines[:DIFF_LINES]) + f"... ({len(lines) - DIFF_LINES} more diff lines)\n"


def declined(event: dict) -> Optional[str]:
    """What the model (or the verdict) is told when a run was not let go; None when it may run."""
    if event["answer"] == "no":
        return "the user declined to run the tests" + (f": {event['reason']}" if event["reason"] else "")
    if event["answer"] == "blocked":
        return f"the tests were not run: {event['reason']}"
    return None


class Approval:
    """Asks before each test run; remembers what a person (or the decider alone) last let run."""

    def __init__(self, start: dict[str, bytes], ask: bool, decider: Optional[Decider], block: Optional[float],
                 console: Optional[Console] = None, read: Optional[Callable[[str], str]] = None):
        self.seen = set(start.items())  # (path, content) a person let run; the task's own files are no model code
        self.last = dict(start)  # what each file held in the latest run let go: the diff's other side
        self.ask, self.decider, self.block = ask, decider, block
        self.console = console or Console(highlight=False, markup=False)
        self.read = read or (lambda prompt: self.console.input(prompt, markup=False))  # "[y/N]" is no markup

    def check(self, purpose: str, files: dict[str, bytes]) -> dict:
        """One test run about to start: the `approval` event (purpose, files, diff, answer,
        reason, decider). answer: yes / no (the person), blocked (the note was above
        --decider-block), not asked (a decider alone)."""
        changed, whole = changes(self.seen, self.last, files)
        note = dm.note(self.decider, purpose, changed, whole) if self.decider else None  # it reads all of it
        diff = short(whole)
        if self.ask:
            self.console.rule(f"about to run the tests: {purpose}")
            self.console.print(Text(clean(diff) or "(no file changed since the last approved run)\n"))
        if note and self.ask:  # before the question; otherwise the `approval` event shows it (console.py)
            self.console.print(Text(clean(note.line()), style=_style(note)))
        answer, reason = "not asked", self._blocks(note) if note and self.block is not None else ""
        if reason:
            answer = "blocked"
            self.console.print(Text(f"not run: {reason}", style="bold red"))
        elif self.ask:
            answer, reason = self._prompt()
        if answer in ("yes", "not asked"):
            self.seen.update(files.items())
            self.last.update(files)
        return {"purpose": purpose, "files": changed, "diff": diff, "answer": answer, "reason": reason,
                "decider": note.record() if note else None}

    def _blocks(self, note: dm.Note) -> str:
        """Why --decider-block refuses this run ("" when it does not): the note is above the
        threshold, or the decider was not asked (fail closed: nobody read what would run)."""
        if note.unasked:
            return f"the {note.source} was not asked: {note.unasked}"
        if note.probability is not None and note.probability > self.block:
            return f"the {note.source} said {note.label} ({note.probability:.2f}), above --decider-block {self.block:g}"
        return ""

    def _prompt(self) -> tuple[str, str]:
        try:
            if self.read("run the tests? [y/N] ").strip().lower() in ("y", "yes"):
                return "yes", ""
            return "no", self.read("why not? (optional, Enter to skip) ").strip()
        except EOFError:
            return "no", "no answer (end of input)"


def _style(note: dm.Note) -> str:
    if note.probability is None and note.label.startswith("no answer"):
        return "yellow"
    return "bold red" if note.label == "LOOK CLOSELY" else "green"


def build(approve: bool, config: Config, backend, task_files: dict[str, str]) -> Optional[Approval]:
    """The approval of a run as the settings ask for it; None when nothing is to be asked or noted."""
    if not approve and not config.decider:
        return None
    source = dm.SystemOne(config.decider, config.decider_timeout) if config.decider else dm.CodingModel(backend)
    return Approval({rel: text.encode("utf-8") for rel, text in task_files.items()}, approve, source, config.decider_block)

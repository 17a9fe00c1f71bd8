"""A run read back from its events: what each step did, and every version of the files the model
wrote (rebuilt from the replies' raw text, which holds each write's content). The console (live,
--show, --follow) and the HTML report read runs through this one module."""
from __future__ import annotations

import difflib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

import actions as act
from runlog import read_result, read_transcript
from tasks import load_task

DONE = ("Wrote ", "Edited ")  # how the workspace's observation begins when a write or an edit was made


@dataclass
class Change:
    """One write or edit: the file before (None: new, or not known) and after."""
    path: str
    before: Optional[str]
    after: str
    whole: bool = True  # False: an edit of a file whose text is not known; before/after are only its old/new
    made: Optional[bool] = None  # what the observation said: written, or refused (None: not known yet)

    def diff(self, context: int = 3) -> list[str]:
        lines = difflib.unified_diff((self.before or "").splitlines(), self.after.splitlines(),
                                     f"a/{self.path}", f"b/{self.path}", lineterm="", n=context)
        return list(lines)[2:]  # the ---/+++ header only repeats the path


def parse_action(reply: dict) -> Optional[act.Action]:
    """The action of an llm_reply event (None for an invalid reply)."""
    if reply.get("kind", "action") != "action" or reply.get("error"):
        return None
    try:
        return act.parse(reply.get("text") or "", act.ALL_ACTIONS)
    except act.InvalidReply:
        return None


def starting_files(start: dict) -> dict[str, str]:
    """The task's starting files, read from the task the run names (best effort: it may be gone)."""
    try:
        return dict(load_task(Path(start["source"])).spec.files)
    except Exception:  # moved, changed, unreadable: diffs then start from what the model wrote
        return {}


class Files:
    """The workspace's text files as the model's writes left them. A write counts once the
    observation that follows says it was made (a refused write changes nothing)."""

    def __init__(self, start: Optional[dict[str, str]] = None):
        self.versions = dict(start or {})
        self.pending: Optional[Change] = None

    def propose(self, action: Optional[act.Action]) -> Optional[Change]:
        self.pending = None
        if isinstance(action, act.WriteFile):
            self.pending = Change(action.path, self.versions.get(action.path), action.content)
        elif isinstance(action, act.EditFile):
            before = self.versions.get(action.path)
            if before is not None and before.count(action.old) == 1:
                self.pending = Change(action.path, before, before.replace(action.old, action.new))
            else:
                self.pending = Change(action.path, action.old, action.new, whole=False)
        return self.pending

    def settle(self, observation: str) -> None:
        change, self.pending = self.pending, None
        if change:
            change.made = observation.startswith(DONE)
        if change and change.made:
            if change.whole:
                self.versions[change.path] = change.after
            else:
                self.versions.pop(change.path, None)

    def apply(self, event: dict) -> Optional[Change]:
        """Follow one event; returns the change an action reply asks for."""
        if event["type"] == "llm_reply":
            return self.propose(parse_action(event))
        if event["type"] == "observation":
            self.settle(str(event.get("text", "")))
        return None


@dataclass
class Step:
    number: int
    reply: Optional[dict] = None
    action: Optional[act.Action] = None
    change: Optional[Change] = None
    events: list[dict] = field(default_factory=list)  # the rest of the step, in order

    @property
    def tokens(self) -> tuple[int, int]:
        reply = self.reply or {}
        return reply.get("prompt_tokens") or 0, reply.get("completion_tokens") or 0

    @property
    def seconds(self) -> float:
        """The model's seconds and the test runs' seconds of this step."""
        return ((self.reply or {}).get("seconds") or 0) + sum(
            e.get("seconds") or 0 for e in self.events if e["type"] == "test_run")

    def of_type(self, kind: str) -> list[dict]:
        return [e for e in self.events if e["type"] == kind]


@dataclass
class Run:
    folder: Path
    events: list[dict]
    steps: list[Step]
    result: Optional[dict]  # result.json; None while the run goes on, or after a hard crash

    @property
    def start(self) -> dict:
        return next((e for e in self.events if e["type"] == "start"), {})

    @property
    def end(self) -> Optional[dict]:
        return next((e for e in reversed(self.events) if e["type"] == "end"), None)

    def of_type(self, kind: str) -> list[dict]:
        return [e for e in self.events if e["type"] == kind]


RUN_LEVEL = {"start", "resume", "judged_tests", "end", "llm_request"}  # not part of a step's timeline


def read_run(folder: Path) -> Run:
    events = read_transcript(folder)
    start = next((e for e in events if e["type"] == "start"), None)
    files = Files(starting_files(start) if start else {})
    steps: dict[int, Step] = {}
    for event in events:
        change = files.apply(event)
        if event["type"] in RUN_LEVEL or not isinstance(event.get("step"), int):
            continue
        step = steps.setdefault(event["step"], Step(event["step"]))
        if event["type"] == "llm_reply":
            step.reply, step.action, step.change = event, parse_action(event), change
        else:
            step.events.append(event)
    return Run(folder, events, [steps[n] for n in sorted(steps)], read_result(folder))


def is_run(folder: Path) -> bool:
    return (folder / "transcript.jsonl").is_file()


def read_summary(batch: Path) -> Optional[dict]:
    """A batch folder's summary.json (None when the folder is not a batch)."""
    try:
        summary = json.loads((batch / "summary.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return summary if isinstance(summary, dict) and isinstance(summary.get("runs"), list) else None


def total(value) -> float:
    """Tokens or seconds as one number: a dict of parts ({"prompt", "completion"}) is summed, and
    seconds ({"llm", "tests", "total"}) give their total."""
    if isinstance(value, dict):
        if "total" in value:
            return total(value["total"])
        return sum(total(v) for v in value.values())
    return value if isinstance(value, (int, float)) and not isinstance(value, bool) else 0

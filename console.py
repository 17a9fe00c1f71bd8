"""The console: transcript events printed as a person reads them. The live run, --show and
--follow print through the same Renderer; rich decides colours (none when the output is not a
terminal, or with NO_COLOR). Everything a model wrote is shown as plain text, control characters
made visible, so it can neither style the output nor move the cursor."""
from __future__ import annotations

import json
import os
import re
import sys
import time
import unicodedata
from pathlib import Path
from typing import Callable, Optional

from rich.console import Console
from rich.table import Table
from rich.text import Text

import replay
import verdict
from runlog import read_result, read_transcript

DIFF_LINES = 12  # a write's diff on the console; the HTML report has all of it
_NOT_PLAIN = re.compile(r"[^\t\n\x20-\x7e]")  # what may need escaping; plain ASCII never does
# control characters (C0, C1: escape sequences), format characters (bidi embeddings, overrides,
# isolates and marks, which reorder what a line shows; zero-width ones), lone surrogates, and
# line and paragraph separators
_ESCAPED = {"Cc", "Cf", "Cs", "Zl", "Zp"}


def clean(text: str) -> str:
    """Model text for a terminal: the one sanitizer of every terminal path (the console, the
    approval prompt). What could drive the terminal or reorder, hide or break a line is shown as
    an escape (\\x1b, \\u202e), not obeyed: the person reads the text as the interpreter does."""
    return _NOT_PLAIN.sub(_escape, text)


def _escape(match: re.Match) -> str:
    char = match.group()
    if unicodedata.category(char) not in _ESCAPED:
        return char
    n = ord(char)
    return f"\\x{n:02x}" if n < 0x100 else f"\\u{n:04x}" if n < 0x10000 else f"\\U{n:08x}"


def short(text, limit: int = 160) -> str:
    text = " ".join(clean(str(text)).split())
    return text if len(text) <= limit else text[:limit - 3] + "..."


def plain(value) -> str:
    """A summary's value for a person: {"prompt": 1, "completion": 2} as "prompt 1, completion 2"."""
    if isinstance(value, dict):
        return ", ".join(f"{k} {plain(v)}" for k, v in value.items())
    return "-" if value is None else str(value)


def make_console(stderr: bool = False, quiet: bool = False) -> Console:
    """No wrapping at the terminal's width: lines are whole in a log file too (where tables get
    160 columns rather than rich's default 80)."""
    console = Console(stderr=stderr, quiet=quiet, soft_wrap=True, highlight=False, emoji=False)
    if not console.is_terminal and "COLUMNS" not in os.environ:
        console.width = 160
    return console


class Renderer:
    """Prints each event it is handed: to a rich Console, or as plain lines to `say`."""

    def __init__(self, console: Optional[Console] = None, say: Optional[Callable[[str], None]] = None,
                 run_dir: Optional[Path] = None):
        self.console, self.say, self.run_dir = console or make_console(), say, run_dir
        self.files: Optional[replay.Files] = None

    def __call__(self, event: dict) -> None:
        """Showing an event never stops a run: an event it cannot show is named instead."""
        try:
            if self.files is None:
                self.files = self._files(event)
            self._emit(self.lines(event, self.files.apply(event)))
        except Exception as e:
            try:
                self._emit([Text(f"    (a {short(event.get('type'), 40)} event could not be shown: {short(repr(e))})")])
            except Exception:
                pass  # the output itself is gone (a closed pipe): the transcript still has everything

    def _emit(self, lines: list[Text]) -> None:
        for line in lines:
            if self.say:
                self.say(line.plain)
            else:
                self.console.print(line)

    def _files(self, first: dict) -> replay.Files:
        """File versions to diff against: the task's starting files, and on a live resume the
        writes of the run so far."""
        files = replay.Files(replay.starting_files(first) if first["type"] in ("start", "resume") else {})
        if first["type"] == "resume" and self.run_dir:
            for event in read_transcript(self.run_dir)[:-1]:
                files.apply(event)
        return files

    def lines(self, event: dict, change: Optional[replay.Change] = None) -> list[Text]:
        kind, step = event["type"], event.get("step")
        if kind in ("start", "resume"):
            head = [Text(f"Run folder: {self.run_dir}")] if self.run_dir else []
            if kind == "resume":
                head.append(Text(f"Resuming after step {step or 0}.", style="bold"))
            return head + [Text(f"Task: {short(event.get('task'))}", style="bold"),
                           Text(f"Model: {short(event.get('backend'), 300)}; protocol {event.get('protocol')}"),
                           Text(f"Sandbox: {short(event.get('sandbox'), 1000)}")]
        if kind == "llm_request":
            return []
        if kind == "llm_reply":
            return self._reply(event, change)
        if kind == "observation":
            return [Text(f"    observation: {short(event.get('text', ''))}", style="dim")]
        if kind == "test_run":
            return [Text(f"    tests: {event.get('outcome')}, {verdict.counts(event)} ({event.get('seconds') or 0:.1f} s)",
                         style="green" if event.get("ok") else "red")]
        if kind == "finish_refused":
            return [Text("    finish refused (the observation says why)", style="yellow")]
        if kind == "finish_accepted":
            return [Text("    finish accepted: the tests pass on the final files", style="green")]
        if kind == "own_tests":
            proved = {True: "they fail on the starting files, so they test the change",
                      False: "none fails on the starting files: they do not test the change"}.get(event.get("proved"),
                                                                                               f"could not be checked ({event.get('outcome')})")
            return [Text(f"    own tests {short(', '.join(map(str, event.get('files') or [])), 100)}: {proved}",
                         style="green" if event.get("proved") else "yellow")]
        if kind == "judged_tests":
            ok = event.get("ok")
            why = "" if ok else f" ({short(event.get('outcome', ''), 200)})"
            return [Text(f"{str(event.get('suite', 'tests')).capitalize()}, judged: {verdict.counts(event)}{why}",
                         style="bold green" if ok else "bold red")]
        if kind == "context_compacted":
            return [Text(f"    context compacted: {event.get('tokens_before')} -> {event.get('tokens_after')} tokens "
                         f"({len(event.get('lines') or [])} earlier steps in one line each, "
                         f"{len(event.get('files') or {})} files kept)", style="dim")]
        if kind == "context_cut":
            return [Text(f"    context: the latest message cut to {event.get('keep')} characters to fit", style="yellow")]
        if kind == "approval":
            note = event.get("decider") or {}
            p = note.get("probability")
            said = (f"; {note.get('source')} said {short(note.get('label'), 200)} "
                    f"({'' if p is None else f'p={p:.2f}, '}{note.get('seconds') or 0:.1f} s)") if note else ""
            why = f": {event['reason']}" if event.get("reason") else ""
            look = note.get("label") == "LOOK CLOSELY" or event.get("answer") in ("no", "blocked")
            return [Text(f"    approval ({short(event.get('purpose', ''), 80)}): {event.get('answer')}{short(why, 120)}{said}",
                         style="bold red" if look else "yellow" if note and note.get("probability") is None else "green")]
        if kind == "end":
            return [self._end(event)]
        if kind == "error":
            lines = str(event.get("message", "")).strip().splitlines() or [""]
            return [Text(f"    error: {short(lines[-1], 300)}", style="red")]
        return [self._generic(event)]

    def _reply(self, event: dict, change: Optional[replay.Change]) -> list[Text]:
        cost = f"  ({event.get('prompt_tokens') or 0}+{event.get('completion_tokens') or 0} tokens, " \
               f"{event.get('seconds') or 0:.1f} s)"
        action = replay.parse_action(event)
        if action is None:
            return [Text(f"[{event.get('step')}] invalid reply ({event.get('kind')}): {short(event.get('error') or '')}",
                         style="yellow").append(cost, style="dim"),
                    Text(f"    reply: {short(event.get('text') or '(empty)')}", style="dim")]
        lines = [Text(f"[{event.get('step')}] ", style="bold").append(f"thought: {short(action.thought)}")
                 .append(cost, style="dim"),
                 Text(f"    action: {short(action.describe(), 200)}", style="cyan")]
        if change:
            diff = change.diff(context=1)
            for row in diff[:DIFF_LINES]:
                style = "green" if row.startswith("+") else "red" if row.startswith("-") else "dim"
                row = clean(row)
                lines.append(Text(f"      {row if len(row) <= 150 else row[:147] + '...'}", style=style))
            if len(diff) > DIFF_LINES:
                lines.append(Text(f"      ... {len(diff) - DIFF_LINES} more diff lines", style="dim"))
        return lines

    def _end(self, event: dict) -> Text:
        status = event.get("status")
        log = f" Log: {self.run_dir / 'transcript.jsonl'}" if self.run_dir else ""
        return Text(f"Result: {status} ({short(event.get('reason', ''), 300)}) after {event.get('step') or 0} steps.{log}",
                    style="bold green" if status == "solved" else "bold red")

    @staticmethod
    def _generic(event: dict) -> Text:
        """An event this renderer does not know (a newer kind): its fields, shortened."""
        fields = {k: v for k, v in event.items() if k not in ("t", "step", "type")}
        parts = [f"{k}={short(v if isinstance(v, str) else json.dumps(v, default=str), 120)}" for k, v in fields.items()]
        return Text(f"    {short(event['type'], 40)}: {', '.join(parts)}", style="magenta")


# -- reading runs and batches: --show, --follow ------------------------------------------------

def show(path: Path, follow: bool = False, console: Optional[Console] = None) -> int:
    """--show RUN_DIR replays a run (--follow: and keeps printing it until it ends);
    --show BATCH_DIR prints the batch's summary table."""
    console = console or make_console()
    if replay.is_run(path):
        return follow_run(path, console) if follow else replay_run(path, console)
    summary = replay.read_summary(path)
    if summary is None:
        print(f"error: {path}: not a run folder (no transcript.jsonl) nor a batch folder (no summary.json)",
              file=sys.stderr)
        return 2
    console.print(batch_table(summary))
    return 0


def replay_run(run_dir: Path, console: Console) -> int:
    render = Renderer(console, run_dir=run_dir)
    events = read_transcript(run_dir)
    for event in events:
        render(event)
    result = read_result(run_dir)
    if result:
        console.print(totals_line(result), style="dim")
    elif not any(event["type"] == "end" for event in events):
        console.print("(the run has not ended: no end event yet; --follow keeps printing it)", style="yellow")
    return 0


def follow_run(run_dir: Path, console: Console, poll: float = 0.3) -> int:
    """Print events as the running agent appends them (whole lines only) until the run ends."""
    render, offset, pending = Renderer(console, run_dir=run_dir), 0, b""
    path = run_dir / "transcript.jsonl"
    try:
        while True:
            with open(path, "rb") as f:
                f.seek(offset)
                chunk = f.read()
            offset += len(chunk)
            *lines, pending = (pending + chunk).split(b"\n")
            ended = False
            for line in lines:
                try:
                    event = json.loads(line)
                except ValueError:
                    continue
                if isinstance(event, dict) and isinstance(event.get("type"), str):
                    render(event)
                    ended = event["type"] == "end"
            if ended:
                return 0
            time.sleep(poll)
    except KeyboardInterrupt:
        return 0


def totals_line(result: dict) -> str:
    tokens, seconds = result.get("tokens") or {}, result.get("seconds") or {}
    return (f"Tokens: {tokens.get('prompt', 0)} prompt, {tokens.get('completion', 0)} completion; seconds: "
            f"{seconds.get('llm', 0)} model, {seconds.get('tests', 0)} tests, {seconds.get('total', 0)} total")


def judged(value) -> str:
    """A run's hidden tests, in a table cell."""
    if not isinstance(value, dict):
        return "-"
    return f"{value.get('passed', 0)}/{sum(value.get(k) or 0 for k in ('passed', 'failed', 'errors'))}" + (
        "" if value.get("ok") else " ✗")


def batch_table(summary: dict) -> Table:
    table = Table(title=f"Batch {short(summary.get('batch_id', ''), 80)}")
    for column in ("task", "status", "steps", "invalid", "finish", "hidden", "tokens", "seconds"):
        table.add_column(column, no_wrap=True)
    table.add_column("reason", overflow="fold", min_width=20)
    for run in summary["runs"]:
        run = run if isinstance(run, dict) else {}
        status = str(run.get("status", ""))
        table.add_row(short(run.get("task_id") or run.get("task") or "", 60),
                      Text(short(status, 20), style="green" if status == "solved" else "red"),
                      str(run.get("steps", "")), str(run.get("invalid_replies", "")),
                      "yes" if run.get("finish_accepted") else "no", judged(run.get("hidden_tests")),
                      f"{replay.total(run.get('tokens')):.0f}", f"{replay.total(run.get('seconds')):.1f}",
                      short(run.get("reason") or "", 120))
    totals = summary.get("totals") if isinstance(summary.get("totals"), dict) else {}
    table.caption = ", ".join(f"{k} {short(plain(v), 60)}" for k, v in totals.items())
    return table

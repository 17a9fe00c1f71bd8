"""The run folder: runs/<task_id>/ with the transcript (one JSON event per line, flushed as it
happens, so an interrupted run can still be read) and result.json at the end. It writes and reads
events only: the history they rebuild is context.RunState's."""
from __future__ import annotations

import json
import os
import re
import sys
import time
from pathlib import Path
from typing import Any, Optional

from workspace_files import write_atomic


def safe_name(task_id: str) -> str:
    """A task id as a folder name."""
    return re.sub(r"[^A-Za-z0-9._-]+", "-", task_id).strip("-.") or "run"


def new_run_dir(runs_dir: Path, task_id: str) -> Path:
    """A fresh folder for this run; an earlier run's folder is never reused or destroyed."""
    safe = safe_name(task_id)
    runs_dir.mkdir(parents=True, exist_ok=True)
    candidate, n = runs_dir / safe, 1
    while True:
        try:
            candidate.mkdir(mode=0o700)  # the transcript holds the hidden tests' output: ours alone
            return candidate
        except FileExistsError:
            n += 1
            candidate = runs_dir / f"{safe}-{n}"


# Line breaks to str.splitlines() that JSON leaves raw (ensure_ascii=False): escaped, so a line
# reader of any kind sees one event per line.
_LINE_BREAKS = {ord(c): f"\\u{ord(c):04x}" for c in "\x85\u2028\u2029"}


class RunLog:
    def __init__(self, run_dir: Path):
        self.run_dir = run_dir
        self.started = time.time()
        self.broken: Optional[str] = None
        # backslashreplace: a lone surrogate in a model's text must not crash the log
        self._file = open(run_dir / "transcript.jsonl", "a", encoding="utf-8", errors="backslashreplace")

    def event(self, type_: str, step: Optional[int] = None, **fields: Any) -> dict:
        """Append one event, flushed (a crash of ours loses nothing); a full disk or a broken
        file never stops the run (it is said once)."""
        record = {"t": round(time.time() - self.started, 3), "step": step, "type": type_, **fields}
        try:
            self._file.write(json.dumps(record, ensure_ascii=False, default=str).translate(_LINE_BREAKS) + "\n")
            self._file.flush()
        except (OSError, ValueError) as e:
            self._failed(f"the transcript could not be written: {e}")
        return record

    def sync(self) -> None:
        """To disk, once per step (a power cut loses at most the step under way): an fsync per
        event, about five a step, was the largest part of a step's own time (bench/harness_bench.py)."""
        try:
            os.fsync(self._file.fileno())
        except (OSError, ValueError) as e:
            self._failed(f"the transcript could not be written: {e}")

    def write_result(self, result: dict) -> None:
        try:
            write_atomic(self.run_dir / "result.json", json.dumps(result, indent=2, ensure_ascii=False, default=str) + "\n")
        except OSError as e:
            self._failed(f"result.json could not be written: {e}")

    def _failed(self, message: str) -> None:
        if not self.broken:
            print(f"error: {message}", file=sys.stderr)
        self.broken = message

    def close(self) -> None:
        self.sync()
        try:
            self._file.close()
        except OSError:
            pass


def read_transcript(run_dir: Path) -> list[dict]:
    """Every event that was written; a half-written or damaged line (a crash) is skipped. Lines
    end at "\\n" alone: an older transcript holds U+2028 and the like raw inside its strings."""
    events = []
    path = run_dir / "transcript.jsonl"
    try:
        lines = path.read_text(encoding="utf-8", errors="replace").split("\n")
    except OSError:
        return events
    for line in lines:
        try:
            event = json.loads(line)
        except json.JSONDecodeError:
            continue
        if isinstance(event, dict) and isinstance(event.get("type"), str):
            events.append(event)
    return events


def read_result(run_dir: Path) -> Optional[dict]:
    """result.json of a run, or None when it is missing or damaged (a run still going, a crash)."""
    try:
        result = json.loads((run_dir / "result.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return result if isinstance(result, dict) else None

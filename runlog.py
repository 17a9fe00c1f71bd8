"""The run folder: runs/<task_id>/ with the transcript (one JSON event per line, flushed as it
happens, so an interrupted run can still be read) and result.json at the end."""
from __future__ import annotations

import json
import os
import re
import time
from pathlib import Path
from typing import Any, Optional


def new_run_dir(runs_dir: Path, task_id: str) -> Path:
    """A fresh folder for this run; an earlier run's folder is never reused or destroyed."""
    safe = re.sub(r"[^A-Za-z0-9._-]+", "-", task_id).strip("-.") or "run"
    runs_dir.mkdir(parents=True, exist_ok=True)
    candidate, n = runs_dir / safe, 1
    while True:
        try:
            candidate.mkdir()
            return candidate
        except FileExistsError:
            n += 1
            candidate = runs_dir / f"{safe}-{n}"


class RunLog:
    def __init__(self, run_dir: Path):
        self.run_dir = run_dir
        self.started = time.time()
        # backslashreplace: a lone surrogate in a model's text must not crash the log
        self._file = open(run_dir / "transcript.jsonl", "a", encoding="utf-8", errors="backslashreplace")

    def event(self, type_: str, step: Optional[int] = None, **fields: Any) -> None:
        record = {"t": round(time.time() - self.started, 3), "step": step, "type": type_, **fields}
        self._file.write(json.dumps(record, ensure_ascii=False, default=str) + "\n")
        self._file.flush()
        os.fsync(self._file.fileno())

    def write_result(self, result: dict) -> None:
        tmp = self.run_dir / "result.json.tmp"
        tmp.write_text(json.dumps(result, indent=2, ensure_ascii=False, default=str) + "\n", encoding="utf-8")
        tmp.replace(self.run_dir / "result.json")

    def close(self) -> None:
        self._file.close()


def read_transcript(run_dir: Path) -> list[dict]:
    """Every event that was written; a half-written last line (a crash) is skipped."""
    events = []
    path = run_dir / "transcript.jsonl"
    if not path.exists():
        return events
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            events.append(json.loads(line))
        except json.JSONDecodeError:
            continue
    return events

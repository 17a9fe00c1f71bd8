"""The process sweep: after a run, nothing it started stays alive. One module for the agent
(isolation.py) and the judge (judge_plugin.py, in the sandbox interpreter): stdlib only.

Every process below a root is frozen first (a stopped process cannot fork), then killed and
reaped; again while anything is left (a process that forks and exits in a loop can stay one step
ahead of one sweep). A process we may not signal (the judge after it dropped root) is left to
whoever started us."""
from __future__ import annotations

import os
import signal
import time

SWEEP_ROUNDS = 5


def parents() -> dict[int, int]:
    """pid -> parent pid for every process (no /proc/<pid>/task/*/children on every kernel)."""
    table = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat", "rb") as f:
                    data = f.read()
                table[int(entry)] = int(data[data.rindex(b")") + 2:].split()[1])
            except (OSError, ValueError, IndexError):
                pass
    return table


def descendants(root: int, exclude: set[int] = frozenset()) -> set[int]:
    """All processes below `root`, skipping the subtrees of `exclude`."""
    children: dict[int, list[int]] = {}
    for pid, ppid in parents().items():
        children.setdefault(ppid, []).append(pid)
    found, todo = set(), [p for p in children.get(root, []) if p not in exclude]
    while todo:
        pid = todo.pop()
        if pid not in found:
            found.add(pid)
            todo.extend(children.get(pid, []))
    return found


def kill_tree(root: int, exclude: set[int]) -> int:
    """Freeze, kill and reap every process below root; returns how many were killed."""
    killed = 0
    for _ in range(SWEEP_ROUNDS):
        swept = _sweep(root, exclude)
        killed += swept
        if not swept or not descendants(root, exclude):
            break
    return killed


def _sweep(root: int, exclude: set[int]) -> int:
    frozen: set[int] = set()
    refused: set[int] = set()
    for _ in range(200):
        alive = descendants(root, exclude) - frozen - refused
        if not alive:
            break
        for pid in alive:
            try:
                os.kill(pid, signal.SIGSTOP)
                frozen.add(pid)
            except ProcessLookupError:
                pass
            except PermissionError:
                refused.add(pid)
    if not frozen:  # the common case: nothing left, no second scan of /proc
        return 0
    for pid in frozen:
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:  # reap the zombies that became our children
        ours = descendants(root, exclude) & frozen
        for pid in ours:
            try:
                os.waitpid(pid, os.WNOHANG)
            except ChildProcessError:
                pass
        if not ours:
            break
        time.sleep(0.01)
    return len(frozen)

"""The process sweep: after a run, nothing it started stays alive. One module for the agent
(procs.py) and the judge (judge_plugin.py, in the sandbox interpreter).

Every process below a root is frozen first (a stopped process cannot fork), then killed and
reaped; again while anything is left (a process that forks and exits in a loop can stay one step
ahead of one sweep). A process we may not signal (the judge after it dropped root) is left to
whoever started us.

psutil does the finding, freezing and killing where it is importable: always in the agent (a
dependency), in the judge where the sandbox interpreter has it; on Linux, macOS and Windows
alike. Without it (the judge in a plain venv) /proc is read on Linux and `ps` asked elsewhere on
POSIX; on Windows without psutil nothing is found here, and the run's Job Object (winjob.py)
ends the rest when the run ends.
"""
from __future__ import annotations

import os
import subprocess
import sys
import time
from typing import Any, Optional

psutil: Optional[Any]
try:
    import psutil
except ImportError:
    psutil = None

SWEEP_ROUNDS = 5


def parents() -> dict[int, int]:
    """pid -> parent pid for every process we can see."""
    if psutil is not None:
        table = {}
        for proc in psutil.process_iter(["ppid"]):
            table[proc.pid] = proc.info["ppid"] or 0
        return table
    if not _can_signal():
        return {}  # Windows without psutil: nothing found here (the run's Job Object ends them)
    if os.path.isdir("/proc"):
        return _proc_parents()
    return _ps_parents()


def _can_signal() -> bool:
    """Whether this system has the signals the stdlib sweep sends (POSIX)."""
    import signal
    return sys.platform != "win32" and hasattr(signal, "SIGSTOP") and hasattr(os, "WNOHANG")


def _proc_parents() -> dict[int, int]:
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


def _ps_parents() -> dict[int, int]:
    """POSIX without /proc (macOS): ask ps; on Windows there is no ps (an empty table)."""
    try:
        out = subprocess.run(["ps", "-A", "-o", "pid=,ppid="], capture_output=True, text=True, timeout=10).stdout
    except (OSError, subprocess.TimeoutExpired):
        return {}
    table = {}
    for line in out.splitlines():
        fields = line.split()
        if len(fields) == 2 and fields[0].isdigit() and fields[1].isdigit():
            table[int(fields[0])] = int(fields[1])
    return table


def descendants(root: int, exclude: frozenset[int] | set[int] = frozenset()) -> set[int]:
    """All processes below `root`, skipping the subtrees of `exclude`."""
    if sys.platform == "linux":
        below = _tree_from_proc(root, exclude)
        if below is not None:
            return below
    if psutil is not None:
        found: set[int] = set()
        try:
            direct = psutil.Process(root).children()
        except psutil.Error:
            return found
        for child in direct:
            if child.pid in exclude:
                continue
            found.add(child.pid)
            try:
                found.update(p.pid for p in child.children(recursive=True))
            except psutil.Error:
                pass
        return found
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


def _tree_from_proc(root: int, exclude: frozenset[int] | set[int]) -> Optional[set[int]]:
    """Linux: the tree below root from each of its tasks' /proc/PID/task/TID/children, reading
    only the tree (psutil and parents() read every process on the machine, several times per
    sweep: a tenth of a small judged run). None where there is no /proc or the kernel has no such
    file, or one of the tree's could not be read (then the whole table is read instead)."""
    found: set[int] = set()
    todo = [root]
    while todo:
        pid = todo.pop()
        try:
            tasks = os.listdir(f"/proc/{pid}/task")
        except FileNotFoundError:
            if pid == root:
                return None  # no /proc here (a container without it, a simulated system)
            continue  # gone meanwhile
        except OSError:
            return None
        for tid in tasks:
            try:
                with open(f"/proc/{pid}/task/{tid}/children", "rb") as f:
                    children = [int(c) for c in f.read().split()]
            except FileNotFoundError:
                if os.path.isdir(f"/proc/{pid}/task/{tid}"):
                    return None  # a kernel without the children file
                continue  # that thread ended meanwhile
            except (OSError, ValueError):
                return None
            for child in children:
                if child not in found and not (pid == root and child in exclude):
                    found.add(child)
                    todo.append(child)
    return found


def kill_tree(root: int, exclude: frozenset[int] | set[int]) -> int:
    """Freeze, kill and reap every process below root; returns how many were killed."""
    killed = 0
    for _ in range(SWEEP_ROUNDS):
        swept = _sweep(root, exclude)
        killed += swept
        if not swept or not descendants(root, exclude):
            break
    return killed


def _sweep(root: int, exclude: frozenset[int] | set[int]) -> int:
    frozen: set[int] = set()
    refused: set[int] = set()
    for _ in range(200):
        alive = descendants(root, exclude) - frozen - refused
        if not alive:
            break
        for pid in alive:
            answer = _signal(pid, stop=True)
            if answer is True:
                frozen.add(pid)
            elif answer is False:
                refused.add(pid)
    if not frozen:  # the common case: nothing left, no second scan
        return 0
    for pid in frozen:
        _signal(pid, stop=False)
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:  # reap the zombies that became our children
        ours = descendants(root, exclude) & frozen
        for pid in ours:
            _reap(pid)
        if not ours:
            break
        time.sleep(0.01)
    return len(frozen)


def _signal(pid: int, stop: bool) -> Optional[bool]:
    """Freeze (stop=True) or kill one process: True done, False not ours to signal, None gone."""
    if psutil is not None:
        try:
            proc = psutil.Process(pid)
            proc.suspend() if stop else proc.kill()
            return True
        except psutil.NoSuchProcess:
            return None
        except psutil.AccessDenied:
            return False
    if sys.platform == "win32" or not _can_signal():
        return None  # nothing found without psutil (parents() is empty): the Job Object ends them
    import signal
    try:
        os.kill(pid, signal.SIGSTOP if stop else signal.SIGKILL)
        return True
    except ProcessLookupError:
        return None
    except PermissionError:
        return False


def _reap(pid: int) -> None:
    """Collect a killed child's exit status (POSIX; Windows keeps no zombies)."""
    if sys.platform == "win32" or not _can_signal():
        return
    try:
        os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        pass

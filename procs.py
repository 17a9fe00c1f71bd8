"""Starting one confined command and ending it, on each platform: the agent's side of the
sandbox's process control (isolation.py decides what runs in front of the command).

    run = start(cmd, ...)      the command with its limits, its own session / job
    run.wait(timeout)          its exit code, or subprocess.TimeoutExpired
    run.end(exclude)           nothing it started stays alive; how many were still there
    gives()                    what this layer gives here, in words and as data

Linux: rlimits in the child before exec, the agent a child subreaper (orphans come back to us),
a pidfd to wait on. macOS and other POSIX: rlimits one by one (each one the system accepts:
macOS refuses RLIMIT_AS), no subreaper. Windows: a Job Object per run (winjob.py): CPU time,
memory and process count per job, and closing it ends every process in it. Everywhere the
process tree below us is frozen, then killed, with psutil (judge_runtime/sweep.py).
"""
from __future__ import annotations

import os
import select
import subprocess
import sys
from dataclasses import dataclass
from typing import Any, Callable, Optional

import psutil

import winjob
from judge_runtime.sweep import kill_tree

PR_SET_CHILD_SUBREAPER = 36
SUBREAPER = False  # set by become_subreaper(): orphans of our runs come back to us
RLIMITS = ("RLIMIT_CPU", "RLIMIT_AS", "RLIMIT_FSIZE", "RLIMIT_NOFILE", "RLIMIT_CORE", "RLIMIT_STACK", "RLIMIT_NPROC")


def become_subreaper() -> bool:
    """Linux: orphans of the commands we run are re-parented to us, so we can find and reap them."""
    global SUBREAPER
    if sys.platform != "linux":
        return False
    import ctypes
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        SUBREAPER = SUBREAPER or libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
    except (OSError, AttributeError, TypeError):  # no prctl in this C library
        pass
    return SUBREAPER


def rlimit_setter(values: list[tuple[str, tuple[int, int]]]) -> Optional[Callable[[], None]]:
    """The function the child runs before exec: each limit this system has, one by one; a
    limit it refuses is skipped (rlimits_in_effect says which). None without rlimits (Windows)."""
    if sys.platform == "win32":
        return None
    try:
        import resource
    except ImportError:
        return None
    known = [(getattr(resource, name), value) for name, value in values if hasattr(resource, name)]

    def apply() -> None:
        for which, value in known:
            try:
                resource.setrlimit(which, value)
            except (ValueError, OSError):
                pass
    return apply


def child_setup(values: list[tuple[str, tuple[int, int]]]) -> Optional[Callable[[], None]]:
    """What the child runs before exec: the rlimits, and on Linux a SIGKILL when we end
    (PR_SET_PDEATHSIG: the agent killed mid-run takes bwrap or unshare, and so the run, with it;
    the launcher asks for its own signal, sandbox_runtime/confine.end_with_parent)."""
    limits = rlimit_setter(values)
    prctl = None
    if sys.platform == "linux":
        import ctypes
        try:
            prctl = ctypes.CDLL(None, use_errno=True).prctl
        except (OSError, AttributeError, TypeError):  # no prctl in this C library
            pass
    if prctl is None:
        return limits

    def setup() -> None:
        prctl(1, 9, 0, 0, 0)  # PR_SET_PDEATHSIG, SIGKILL
        if limits is not None:
            limits()
    return setup


def rlimits_in_effect(values: list[tuple[str, tuple[int, int]]]) -> list[str]:
    """Which of these limits this system sets: tried once in a short child process (`python -V`)
    that writes back, through a shared page, the ones setrlimit accepted."""
    if sys.platform == "win32":
        return []
    try:
        import mmap
        import resource
    except ImportError:
        return []
    known = [(name, getattr(resource, name), value) for name, value in values if hasattr(resource, name)]
    page = mmap.mmap(-1, len(known) or 1)

    def probe() -> None:
        for i, (_, which, value) in enumerate(known):
            try:
                resource.setrlimit(which, value)
                page[i] = 1
            except (ValueError, OSError):
                pass
    try:
        subprocess.run([sys.executable, "-I", "-S", "-V"], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL, preexec_fn=probe, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return []
    return [name for i, (name, _, _) in enumerate(known) if page[i]]


@dataclass
class Run:
    """One started command: its process, and on Windows its job."""
    proc: subprocess.Popen
    job: Optional[winjob.Job] = None
    ended: bool = False

    def wait(self, timeout: float) -> int:
        """The exit code, or subprocess.TimeoutExpired after `timeout` seconds. Linux waits on
        a pidfd (Popen.wait with a timeout polls, sleeping up to 50 ms between checks, which
        added ~25 ms to every test run: bench/sandbox_bench.py); elsewhere Popen.wait."""
        pidfd_open = getattr(os, "pidfd_open", None)
        try:
            fd = pidfd_open(self.proc.pid) if pidfd_open else None
        except OSError:  # before Linux 5.3
            fd = None
        if fd is None:
            return self.proc.wait(timeout=timeout)
        try:
            if not select.select([fd], [], [], timeout)[0]:
                raise subprocess.TimeoutExpired(self.proc.args, timeout)
        finally:
            os.close(fd)
        return self.proc.wait()

    def stop(self) -> None:
        """Timeout or Ctrl-C: freeze and kill everything below the command first (else a fork
        bomb wins the race), then the command itself and its process group."""
        kill_tree(self.proc.pid, set())
        kill_group(self.proc.pid)
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()

    def end(self, exclude: set[int]) -> int:
        """After the command ended: kill whatever it left (below us: with a subreaper, orphans
        too; in its process group; on Windows, in its job); returns how many were left."""
        killed = kill_tree(os.getpid(), exclude)
        if not psutil.pid_exists(self.proc.pid):  # the group's leader is gone: who is left in it is the run's
            kill_group(self.proc.pid)
        if self.job is not None and not self.ended:
            self.ended = True
            killed += self.job.end()
        return killed


def kill_group(pgid: int) -> None:
    """POSIX: SIGKILL to the run's process group (it catches a leftover that left its parent but
    not its group, where there is no subreaper); nothing on Windows (the job does it)."""
    if sys.platform != "win32" and hasattr(os, "killpg"):
        import signal
        try:
            os.killpg(pgid, signal.SIGKILL)
        except OSError:
            pass


def start(cmd: list[str], cwd: str, env: dict[str, str], log_fd: int,
          rlimits: list[tuple[str, tuple[int, int]]], job_limits: dict[str, int]) -> Run:
    """Start cmd with stdin closed, stdout and stderr to log_fd, in a session of its own (POSIX)
    or a new process group in its own Job Object (Windows). OSError: it did not start."""
    if sys.platform == "win32":
        job = winjob.Job(**job_limits)
        try:
            proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=log_fd,
                                    stderr=subprocess.STDOUT,
                                    creationflags=winjob.CREATE_SUSPENDED | subprocess.CREATE_NEW_PROCESS_GROUP)
        except OSError:
            job.end()
            raise
        try:
            job.add(proc.pid)
        finally:
            resume(proc.pid)
        return Run(proc, job)
    proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=log_fd, stderr=subprocess.STDOUT,
                            start_new_session=True, preexec_fn=child_setup(rlimits))
    return Run(proc)


def resume(pid: int) -> None:
    """Let a process started suspended run (psutil: NtResumeProcess on Windows)."""
    psutil.Process(pid).resume()


def gives(rlimits: list[str], subreaper: bool) -> dict[str, Any]:
    """What this process layer gives on this platform, as data (result.json) and in words."""
    if sys.platform == "win32":
        return {"platform": "windows", "limits": ["cpu seconds per process", "memory per process",
                                                  "processes at once"],
                "process_control": "a Job Object per run: every process the run starts ends with it",
                "words": "a Job Object per run (CPU time, memory and process count; every process the run "
                         "started ends with it), no file-size limit"}
    names = {"RLIMIT_CPU": "cpu", "RLIMIT_AS": "memory", "RLIMIT_FSIZE": "file size", "RLIMIT_NOFILE": "open files",
             "RLIMIT_CORE": "no core dumps", "RLIMIT_STACK": "stack", "RLIMIT_NPROC": "processes"}
    missing = [names[n] for n in RLIMITS if n not in rlimits]
    control = ("own session; the process tree is frozen and killed after each run, orphans included (child subreaper)"
               if subreaper else "own session; the process tree below the run is frozen and killed after each run "
               "(no subreaper here: a process that leaves its parent, setsid and double fork, can outlive the run)")
    words = "rlimits (" + ", ".join(names[n] for n in RLIMITS if n in rlimits) + ")"
    if missing:
        words += "; not enforced here: " + ", ".join(missing)
    return {"platform": sys.platform, "limits": [names[n] for n in rlimits], "limits_not_enforced": missing,
            "process_control": control, "words": words}

"""What the launcher and the warm runner do inside the sandbox before the model's code starts:
the private mounts (Linux namespaces), no kernel keyrings (a seccomp filter), the user switch,
then the command as a child, waited for, so the command's parent is never the agent itself (a
test that kills its parent ends only its own run).

Each step that needs Linux or POSIX is asked for only where the agent found it available (the
empty mount list, the empty filter, uid -1 elsewhere); the command runs on every platform.
"""
from __future__ import annotations

import ctypes
import os
import signal
import sys
from typing import NoReturn, Optional

# The first line of every run's log: a log without it means the sandbox itself never started
# (a bwrap or unshare error, a missing interpreter), which is no test result at all. Written to
# stderr: the judge's worker talks to the judge over its stdout.
STARTED = "tdd-agent: sandbox started"
MS_BIND, MS_REC = 4096, 16384


def private_mounts(private: str) -> None:
    """'TOP,TOP:KEEP,KEEP': an empty tmpfs over each TOP, then each KEEP below them bound back
    (the run's own folders under /tmp, say). Needs a mount namespace of our own (Linux)."""
    if not private:
        return
    if sys.platform != "linux":
        raise OSError("private mounts need Linux namespaces")
    libc = ctypes.CDLL(None, use_errno=True)

    def mount(source: str, target: str, fstype, flags: int, data) -> None:
        if libc.mount(source.encode(), target.encode(), fstype, flags, data) != 0:
            raise OSError(ctypes.get_errno(), "mount " + target)
    tops, keeps = private.split(":")
    keep = [(path, os.open(path, os.O_RDONLY)) for path in keeps.split(",") if path]
    for top in tops.split(","):
        if os.path.isdir(top):
            mount("tmpfs", top, b"tmpfs", 0, b"mode=1777")
    for path, fd in keep:
        os.makedirs(path, exist_ok=True)
        mount("/proc/self/fd/%d" % fd, path, None, MS_BIND | MS_REC, None)
        os.close(fd)


def no_keyrings(program_hex: str) -> None:
    """Install the seccomp program (seccomp.py, as hex; empty: none for this machine) under
    which add_key, request_key and keyctl fail with EPERM."""
    if not program_hex:
        return
    if sys.platform != "linux":
        raise OSError("a seccomp filter needs Linux")
    program = bytes.fromhex(program_hex)
    code = ctypes.create_string_buffer(program, len(program))

    class Fprog(ctypes.Structure):
        _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]
    fprog = Fprog(len(program) // 8, ctypes.addressof(code))
    libc = ctypes.CDLL(None, use_errno=True)
    # PR_SET_NO_NEW_PRIVS (a filter needs it without CAP_SYS_ADMIN), PR_SET_SECCOMP SECCOMP_MODE_FILTER
    if libc.prctl(38, 1, 0, 0, 0) != 0 or libc.prctl(22, 2, ctypes.byref(fprog), 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "seccomp: the kernel keyring calls could not be turned off")


def drop_user(uid: int) -> None:
    """Become `uid` (no groups) when asked: the agent is root and the tests must not be."""
    if uid < 0:
        return
    if sys.platform == "win32":
        raise OSError("a user switch needs POSIX")
    os.setgroups([])
    os.setgid(uid)
    os.setuid(uid)


def say_started() -> None:
    os.write(2, STARTED.encode() + b"\n")


def end_with_parent(parent: int) -> None:
    """Linux: when the process that started us ends before the run does (the agent killed
    mid-run: nobody is left to time the run out and sweep it), everything below us ends with us.
    We become a child subreaper (a setsid'd, double-forked orphan of the run stays below us) and
    ask for SIGTERM when our parent ends (PR_SET_PDEATHSIG, set after the user switch, which
    clears it); on SIGTERM we kill everything below us and end. `parent`: our parent when we
    started (if it ended already, we end now). Elsewhere nothing (Windows: the run's Job Object)."""
    if sys.platform != "linux":
        return
    try:
        prctl = ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError, TypeError):
        return

    def end(*_) -> None:
        kill_below()
        os._exit(128 + signal.SIGTERM)
    signal.signal(signal.SIGTERM, end)
    prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER
    prctl(1, signal.SIGTERM, 0, 0, 0)  # PR_SET_PDEATHSIG
    if os.getppid() != parent:
        end()


def kill_below() -> None:
    """Freeze every process below us (a stopped process cannot fork), then kill them (Linux:
    found through /proc/PID/task/TID/children)."""
    if sys.platform != "linux":
        return
    frozen: set[int] = set()
    while True:
        found = _below(os.getpid()) - frozen
        if not found:
            break
        for pid in found:
            try:
                os.kill(pid, signal.SIGSTOP)
            except OSError:
                pass
        frozen |= found
    for pid in frozen:
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass


def _below(root: int) -> set[int]:
    found: set[int] = set()
    todo = [root]
    while todo:
        pid = todo.pop()
        try:
            threads = os.listdir(f"/proc/{pid}/task")
        except OSError:
            continue
        for tid in threads:
            try:
                with open(f"/proc/{pid}/task/{tid}/children") as f:
                    children = {int(c) for c in f.read().split()}
            except (OSError, ValueError):
                continue
            todo.extend(children - found)
            found |= children
    return found


def run_child(argv: list[str], env: Optional[dict] = None) -> NoReturn:
    """Run argv as our child, wait for it, and end with its exit code (a signal's the shell's
    way, 128 + N). Where there is no fork (Windows), a child process started by subprocess.
    env: the child's environment, its program looked up on that PATH (None: ours, argv[0] as given)."""
    if sys.platform != "win32" and hasattr(os, "fork"):
        pid = os.fork()
        if pid == 0:
            try:
                os.execv(argv[0], argv) if env is None else os.execvpe(argv[0], argv, env)
            except OSError as e:
                os.write(2, f"tdd-agent: {argv[0]}: {e.strerror}\n".encode())
            finally:
                os._exit(127)
        exit_with(pid)
    import subprocess
    try:
        code = subprocess.call(argv, env=env)  # our stdin and stdout too: the judge's worker talks over them
    except OSError as e:
        os.write(2, f"tdd-agent: {argv[0]}: {e}\n".encode())
        os._exit(127)
    os._exit(128 - code if code < 0 else code)


def exit_with(pid: int) -> NoReturn:
    """Wait for our child `pid` and end with its exit code (POSIX)."""
    while True:
        try:
            _, status = os.waitpid(pid, 0)
            break
        except InterruptedError:
            pass
    code = os.waitstatus_to_exitcode(status)
    os._exit(128 - code if code < 0 else code)

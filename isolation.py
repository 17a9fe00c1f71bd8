"""Running one command confined: limits, a clean environment, an unprivileged user when we are
root, bubblewrap when it works, a wall-clock timeout, and no process left behind afterwards.

Measured facts behind each choice: output goes to files (a pipe held open by a background child
made the caller wait out its timeout), the process tree is frozen before it is killed (else a
fork bomb wins the race), and orphans are collected by making this process a child subreaper (a
child that calls setsid or double-forks escapes a process-group kill).
"""
from __future__ import annotations

import ctypes
import os
import resource
import select
import shutil
import signal
import stat
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

import seccomp
from config import SandboxConfig
from judge_runtime.sweep import descendants, kill_tree, parents  # noqa: F401 (descendants: for callers)

NOBODY = 65534  # runs the model's code when the agent is root
JUDGE = 65533  # runs the judged trusted tests when the agent is root (never root, never NOBODY)
PR_SET_CHILD_SUBREAPER = 36

# Runs first inside the sandbox. With namespaces (the basic layer where the kernel allows them)
# it first gives the tests their own /tmp, /var/tmp and /dev/shm (fresh tmpfs), binding back the
# folders the run needs that live below them. It turns the kernel keyrings off (seccomp.py: the
# user keyring is shared by every run). Then it drops to the unprivileged user when asked,
# and forks the real command and waits, so the command's parent is this launcher and never the
# agent itself (a test that kills its parent ends only its own run). It prints STARTED first: a
# log without it means the sandbox itself never started (a bwrap or unshare error, a missing
# interpreter), which is no test result at all.
STARTED = "tdd-agent: sandbox started"
PRIVATE_TMP = ("/tmp", "/var/tmp", "/dev/shm")
# The private mounts (a script's part, `private` set, see Confinement.private_mounts): shared by
# the launcher and the warm runner (warm.py).
PRIVATE_MOUNTS = """\
if private:
    import ctypes
    libc = ctypes.CDLL(None, use_errno=True)
    def mount(source, target, fstype, flags, data):
        if libc.mount(source.encode(), target.encode(), fstype, flags, data) != 0:
            raise OSError(ctypes.get_errno(), "mount " + target)
    keep = [(path, os.open(path, os.O_RDONLY)) for path in private.split(":")[1].split(",") if path]
    for top in private.split(":")[0].split(","):
        if os.path.isdir(top):
            mount("tmpfs", top, b"tmpfs", 0, b"mode=1777")
    for path, fd in keep:
        os.makedirs(path, exist_ok=True)
        mount("/proc/self/fd/%d" % fd, path, None, 4096 | 16384, None)  # MS_BIND | MS_REC
        os.close(fd)
"""
# Wait for the child, then end with its exit code (a signal's the shell's way): shared by the
# launcher and the warm runner (warm.py).
EXIT_WITH = """\
def exit_with(pid):
    while True:
        try:
            _, status = os.waitpid(pid, 0)
            break
        except InterruptedError:
            pass
    code = os.waitstatus_to_exitcode(status)
    os._exit(128 - code if code < 0 else code)
"""
LAUNCHER = ("import os, sys\nuid, private = int(sys.argv[1]), sys.argv[2]\n" + PRIVATE_MOUNTS + EXIT_WITH
            + seccomp.INSTALL + """\
no_keyrings()
if uid >= 0:
    os.setgroups([]); os.setgid(uid); os.setuid(uid)
os.write(1, b"%s\\n")
pid = os.fork()
if pid == 0:
    os.execv(sys.argv[3], sys.argv[3:])
exit_with(pid)
""" % STARTED)


@dataclass
class Outcome:
    exit_code: Optional[int]  # None when killed at the wall-clock timeout
    timed_out: bool
    seconds: float
    leftovers_killed: int  # processes still alive after the command ended
    started: bool = True  # False: the sandbox never started; `problem` says why
    problem: str = ""


@dataclass
class Confinement:
    """One way of confining: 'bwrap' or 'basic' (with namespaces where the kernel allows them
    without bubblewrap), and as which user the command runs."""
    layer: str
    run_as: int  # uid inside, -1 = our own
    readonly_paths: list[str] = field(default_factory=list)
    namespaces: bool = False  # basic layer: unshare works here
    hidden: list[str] = field(default_factory=list)  # with namespaces: folders the tests must not see

    def describe(self) -> str:
        who = f"uid {self.run_as}" if self.run_as >= 0 else f"uid {os.getuid()} (not root: no user switch)"
        who += (", no kernel keyrings" if seccomp.PROGRAM
                else f", kernel keyrings shared (no filter for {seccomp.MACHINE})")
        if self.layer == "bwrap":
            return f"bwrap (read-only system, private /tmp, no network unless allowed, own PID namespace, no capabilities), {who}, rlimits"
        if self.namespaces:
            shared = ("files readable by others outside /tmp, /var/tmp, /dev/shm, the task's folder and the runs folder"
                      + ("" if self.run_as >= 0 else ", and everything you can write"))
            return (f"basic with namespaces (private /tmp, /var/tmp, /dev/shm, no network unless allowed, own PID namespace), "
                    f"{who}, rlimits; shared: {shared}; install bubblewrap for a read-only system")
        shared = ("/tmp, /var/tmp, /dev/shm, the network, the process list, and every file readable by others "
                  "(task files with their hidden tests included)" + ("" if self.run_as >= 0 else ", and everything you can write"))
        return f"basic (rlimits, clean environment, own session, {who}); shared with the tests: {shared}; install bubblewrap to isolate them"

    def prefix(self, writable: list[Path], workdir: Path, network: bool) -> list[str]:
        """What runs in front of the launcher."""
        if self.layer == "bwrap":
            return bwrap_command(self, writable, workdir, network)
        if self.namespaces:
            return unshare_command(self.run_as, network)
        return []

    def private_mounts(self, writable: list[Path]) -> str:
        """The launcher's argument: tmpfs tops, and the folders below them to bind back."""
        if self.layer != "basic" or not self.namespaces:
            return ""
        tops = [*PRIVATE_TMP, *self.hidden]
        keep = [str(p) for p in [*writable, *map(Path, self.readonly_paths)]
                if any(str(p) == top or str(p).startswith(top + "/") for top in tops)]
        return ",".join(tops) + ":" + ",".join(keep)


def unshare_command(run_as: int, network: bool) -> list[str]:
    """util-linux unshare: new PID, mount, IPC and UTS namespaces (and network unless allowed);
    not root: in a user namespace where we are root, so the mounts are allowed."""
    args = ["unshare", "--fork", "--pid", "--mount-proc", "--mount", "--ipc", "--uts"]
    if run_as < 0:
        args += ["--user", "--map-root-user"]
    return args + ([] if network else ["--net"]) + ["--"]


def unshare_works() -> bool:
    """Checked once: the launcher under the same unshare we will use, making its private mounts."""
    if not shutil.which("unshare"):
        return False
    run_as = NOBODY if os.getuid() == 0 else -1
    probe = Confinement("basic", run_as, namespaces=True)
    cmd = unshare_command(run_as, network=False) + [sys.executable, "-I", "-S", "-c", LAUNCHER, str(run_as),
                                                    probe.private_mounts([]), "/bin/true"]
    try:
        return subprocess.run(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                              timeout=20).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


def become_subreaper() -> bool:
    """Orphans of the commands we run are re-parented to us, so we can find and reap them."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def _user_tasks(uids: tuple[int, ...]) -> int:
    """Processes and threads the users run now (RLIMIT_NPROC counts threads too)."""
    count = 0
    for entry in os.listdir("/proc"):
        try:
            if entry.isdigit() and os.stat(f"/proc/{entry}").st_uid in uids:
                count += len(os.listdir(f"/proc/{entry}/task"))
        except OSError:
            pass
    return count


def rlimit_values(limits: SandboxConfig, run_as, also: tuple[int, ...] = ()) -> list[tuple[str, tuple[int, int]]]:
    """(resource name, (soft, hard)) for one run. RLIMIT_NPROC counts every process and thread of
    the user, so a user keeps room for what it already runs (another run's judge, say); `also`:
    other users the command's processes will run as."""
    mib = 1024 * 1024
    uids = tuple(u for u in (run_as if run_as >= 0 else os.getuid(), *also) if u != 0)
    nproc = limits.max_processes + (_user_tasks(uids) if uids else 0)
    return [("RLIMIT_CPU", (limits.cpu_seconds, limits.cpu_seconds + 1)),
            ("RLIMIT_AS", (limits.memory_mb * mib,) * 2),
            ("RLIMIT_FSIZE", (limits.file_size_mb * mib,) * 2),
            ("RLIMIT_NOFILE", (limits.open_files,) * 2),
            ("RLIMIT_CORE", (0, 0)),
            ("RLIMIT_STACK", (8 * mib,) * 2),
            ("RLIMIT_NPROC", (nproc, nproc))]


def _rlimits(limits: SandboxConfig, run_as: int, also: tuple[int, ...] = ()):
    values = rlimit_values(limits, run_as, also)

    def apply() -> None:
        for name, value in values:
            resource.setrlimit(getattr(resource, name), value)
    return apply


def clean_environment(home: Path, tmp: Path, python_bin: Path) -> dict[str, str]:
    """Nothing of ours leaks in: no API keys, proxies or tokens; HOME and TMPDIR in the run folder."""
    return {
        "PATH": f"{python_bin}:/usr/local/bin:/usr/bin:/bin",
        "HOME": str(home), "TMPDIR": str(tmp), "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8",
        # no bytecode is written; every run starts from a copy without __pycache__, and a .pyc that
        # appears during a run makes it `tampered` (sandbox.find_tampering). (No PYTHONPYCACHEPREFIX:
        # without the interpreter's own cache, pytest compiles from source, +0.7 s per run.)
        "PYTHONDONTWRITEBYTECODE": "1", "PYTHONNOUSERSITE": "1", "PYTHONUNBUFFERED": "1",
        "MALLOC_ARENA_MAX": "2",
    }


def _system_binds() -> list[str]:
    args = ["--ro-bind", "/usr", "/usr"]
    for top in ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"):
        path = Path(top)
        if path.is_symlink():
            args += ["--symlink", os.readlink(path), top]
        elif path.is_dir():
            args += ["--ro-bind", top, top]
    return args + ["--ro-bind", "/etc", "/etc", "--proc", "/proc", "--dev", "/dev",
                   "--perms", "1777", "--tmpfs", "/tmp", "--perms", "1777", "--tmpfs", "/var/tmp",
                   "--perms", "1777", "--tmpfs", "/dev/shm"]


def bwrap_command(conf: Confinement, writable: list[Path], workdir: Path, network: bool) -> list[str]:
    args = ["bwrap", "--die-with-parent", "--new-session", "--cap-drop", "ALL"]
    if conf.run_as >= 0:  # we are root: keep only what the launcher needs to drop to run_as
        args += ["--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID"]
    else:
        args += ["--unshare-user-try"]
    args += ["--unshare-ipc", "--unshare-pid", "--unshare-uts", "--unshare-cgroup-try"]
    if not network:
        args += ["--unshare-net"]
    args += _system_binds()
    made: set[str] = set()
    for option, path in [("--ro-bind", p) for p in conf.readonly_paths] + [("--bind", str(p)) for p in writable]:
        # bwrap makes missing parents 0700 when run as root: make them searchable for the test user
        for parent in reversed(Path(path).parents):
            if str(parent) not in made and parent.parent != parent and not str(parent).startswith(("/usr", "/etc", "/proc", "/dev")):
                args += ["--perms", "0755", "--dir", str(parent)]
                made.add(str(parent))
        args += [option, path, path]
    return args + ["--chdir", str(workdir), "--"]


def bwrap_works() -> bool:
    """Checked once: a trivial command under the same kind of bwrap we will use."""
    if not shutil.which("bwrap"):
        return False
    probe = Confinement("bwrap", NOBODY if os.getuid() == 0 else -1)
    cmd = bwrap_command(probe, [], Path("/"), network=False) + ["true"]
    try:
        return subprocess.run(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL, timeout=20).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


def reachable(path: Path, uid: int) -> bool:
    """Whether `uid` (not root) can walk down to `path`: every parent searchable for it."""
    for folder in [*reversed(path.resolve().parents), path.resolve()]:
        try:
            st = folder.stat()
        except OSError:
            return False
        bit = stat.S_IXUSR if st.st_uid == uid else stat.S_IXOTH
        if not st.st_mode & bit:
            return False
    return True


def hand_over(paths: list[Path], uid: int) -> None:
    """Make the folders the sandbox may write owned by the user that runs it."""
    if uid < 0:
        return
    for top in paths:
        for folder, dirs, files in os.walk(top):
            os.chown(folder, uid, uid)
            for name in dirs + files:
                os.lchown(os.path.join(folder, name), uid, uid)


def _kill_run(proc: subprocess.Popen) -> None:
    kill_tree(proc.pid, set())
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    proc.wait()


def command(conf: Confinement, python: Path, argv: list[str], workdir: Path, writable: list[Path],
            network: bool) -> list[str]:
    """The whole command line of a confined `python argv...`: bwrap or unshare in front, then the
    launcher (private mounts, the user switch), then the command."""
    return [*conf.prefix(writable, workdir, network), str(python), "-I", "-S", "-c", LAUNCHER, str(conf.run_as),
            conf.private_mounts(writable), str(python), *argv]


def open_log(log: Path) -> int:
    """The run's log, opened by us: a symlink planted there is never followed."""
    return os.open(log, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o644)


def run(conf: Confinement, python: Path, argv: list[str], workdir: Path, writable: list[Path],
        env: dict[str, str], log: Path, limits: SandboxConfig, network: bool,
        nproc_user: Optional[int] = None, nproc_also: tuple[int, ...] = ()) -> Outcome:
    """Run `python argv...` in workdir, confined; stdout and stderr go to `log`, which must be
    in a folder the command cannot write (we open it, so a planted symlink must not exist).
    `nproc_user`: whose processes RLIMIT_NPROC counts, when a child of the command will run as
    another user than the command itself (the judge's worker)."""
    hand_over(writable, conf.run_as)
    cmd = command(conf, python, argv, workdir, writable, network)
    before = {pid for pid, ppid in parents().items() if ppid == os.getpid()}
    start = time.monotonic()
    with open(open_log(log), "wb") as out:
        try:
            proc = subprocess.Popen(cmd, cwd=workdir, env=env, stdin=subprocess.DEVNULL, stdout=out,
                                    stderr=subprocess.STDOUT, start_new_session=True,
                                    preexec_fn=_rlimits(limits, conf.run_as if nproc_user is None else nproc_user,
                                                       nproc_also))
        except OSError as e:
            return Outcome(None, False, 0.0, 0, started=False, problem=f"{cmd[0]}: {e.strerror or e}")
        timed_out = False
        try:
            exit_code: Optional[int] = wait(proc, limits.timeout)
            if exit_code < 0:  # the launcher itself was killed: report it the shell's way
                exit_code = 128 - exit_code
        except subprocess.TimeoutExpired:
            timed_out, exit_code = True, None
            _kill_run(proc)
        except BaseException:  # Ctrl-C while the tests run: take them down with us
            _kill_run(proc)
            kill_tree(os.getpid(), before)
            raise
    seconds = time.monotonic() - start
    return outcome(log, exit_code, timed_out, seconds, kill_tree(os.getpid(), before))


def wait(proc: subprocess.Popen, timeout: float) -> int:
    """proc.wait(timeout) without its polling: Popen.wait with a timeout sleeps up to 50 ms between
    checks, which added ~25 ms to every test run (bench/sandbox_bench.py); a pidfd wakes us when
    the process ends."""
    try:
        fd = os.pidfd_open(proc.pid)
    except (AttributeError, OSError):  # before Linux 5.3
        return proc.wait(timeout=timeout)
    try:
        if not select.select([fd], [], [], timeout)[0]:
            raise subprocess.TimeoutExpired(proc.args, timeout)
    finally:
        os.close(fd)
    return proc.wait()


def outcome(log: Path, exit_code: Optional[int], timed_out: bool, seconds: float, leftovers: int) -> Outcome:
    """What a finished run's log says: a log without STARTED means the sandbox never started."""
    start_of_log = head(log, 2000)
    if start_of_log.startswith(STARTED):
        return Outcome(exit_code, timed_out, seconds, leftovers)
    problem = " ".join(start_of_log.split())[:300] or f"it exited with code {exit_code} before starting"
    return Outcome(exit_code, timed_out, seconds, leftovers, started=False, problem=problem)


def head(path: Path, limit: int) -> str:
    try:
        with open(path, "rb") as f:
            return f.read(limit).decode("utf-8", errors="replace")
    except OSError:
        return ""


def remove_tree(path: Path) -> None:
    """Remove a folder that test code may have made unreadable (chmod 000) on the way."""
    def retry(func, name, _exc):
        try:
            os.chmod(os.path.dirname(name), 0o700)
            if os.path.isdir(name) and not os.path.islink(name):
                os.chmod(name, 0o700)
            func(name)
        except OSError:
            pass
    if path.is_symlink() or path.is_file():
        path.unlink()
    elif path.exists():
        shutil.rmtree(path, onerror=retry)
        if path.exists():
            shutil.rmtree(path, onerror=retry)  # a second pass for folders unlocked by the first

"""Running one command confined: limits, a clean environment, an unprivileged user when we are
root, bubblewrap when it works, a wall-clock timeout, and no process left behind afterwards.

Measured facts behind each choice: output goes to files (a pipe held open by a background child
made the caller wait out its timeout), the process tree is frozen before it is killed (else a
fork bomb wins the race), and orphans are collected by making this process a child subreaper (a
child that calls setsid or double-forks escapes a process-group kill). The per-platform part of
starting, waiting and ending (rlimits, subreaper, Job Object) is procs.py; bwrap and namespaces
exist on Linux only, elsewhere the basic layer is all there is ("portable" in describe()).
"""
from __future__ import annotations

import os
import shutil
import stat
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

import procs
import runtime_files
import seccomp
from config import SandboxConfig
from judge_runtime.sweep import descendants, kill_tree, parents  # noqa: F401 (for callers)
from runtime_files import running_as_root
from sandbox_runtime.confine import STARTED  # noqa: F401 (for callers: the first line of a started run's log)
from workspace_files import NOFOLLOW, remove_tree  # noqa: F401 (for callers)

NOBODY = SandboxConfig.model_fields["user"].default  # runs the model's code when the agent is root (Linux)
JUDGE = 65533  # runs the judged trusted tests when the agent is root (never root, never NOBODY)
PRIVATE_TMP = ("/tmp", "/var/tmp", "/dev/shm")
# Runs first inside the sandbox (sandbox_runtime/launcher.py): with namespaces (the basic layer
# where the kernel allows them) it first gives the tests their own /tmp, /var/tmp and /dev/shm
# (fresh tmpfs), binding back the folders the run needs that live below them. It turns the
# kernel keyrings off (seccomp.py: the user keyring is shared by every run). Then it drops to
# the unprivileged user when asked, prints STARTED, and runs the real command as its child.


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
    runtime: str = ""  # the folder holding our copy of sandbox_runtime/ (runtime_files.py)
    limits: list[str] = field(default_factory=lambda: list(procs.RLIMITS))  # the rlimits this system sets

    def describe(self) -> str:
        if sys.platform == "win32" or self.layer == "basic" and not self.namespaces and sys.platform != "linux":
            return self.describe_portable()
        who = f"uid {self.run_as}" if self.run_as >= 0 else "your own user (not root: no user switch)"
        who += (", no kernel keyrings" if seccomp.PROGRAM
                else f", kernel keyrings shared (no filter for {seccomp.MACHINE})")
        limits = self.gives()["words"]
        if self.layer == "bwrap":
            return f"bwrap (read-only system, private /tmp, no network unless allowed, own PID namespace, no capabilities), {who}, {limits}"
        if self.namespaces:
            shared = ("files readable by others outside /tmp, /var/tmp, /dev/shm, the task's folder and the runs folder"
                      + ("" if self.run_as >= 0 else ", and everything you can write"))
            return (f"basic with namespaces (private /tmp, /var/tmp, /dev/shm, no network unless allowed, own PID namespace), "
                    f"{who}, {limits}; shared: {shared}; install bubblewrap for a read-only system")
        shared = ("/tmp, /var/tmp, /dev/shm, the network, the process list, and every file readable by others "
                  "(task files with their hidden tests included)" + ("" if self.run_as >= 0 else ", and everything you can write"))
        return f"basic ({limits}, clean environment, own session, {who}); shared with the tests: {shared}; install bubblewrap to isolate them"

    def describe_portable(self) -> str:
        """Windows, macOS and other systems without bubblewrap or namespaces: what is left."""
        gives = self.gives()
        return (f"portable ({gives['words']}; {gives['process_control']}; clean environment), as your own user; "
                "shared with the tests: every file you can read or write (the task's hidden tests and the judge's "
                "folder included), the network, the process list; a verdict here is only as good as the model's "
                "code is honest (README: the sandbox per platform)")

    def gives(self) -> dict:
        """What this confinement gives, as data for result.json."""
        return {"layer": self.layer if sys.platform == "linux" or self.layer != "basic" else "portable",
                "namespaces": self.namespaces, "user": self.run_as if self.run_as >= 0 else "yours",
                "keyrings_filtered": bool(seccomp.PROGRAM) and sys.platform == "linux",
                **procs.gives(self.limits, procs.SUBREAPER)}

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
    not root: in a user namespace where we are root, so the mounts are allowed. --kill-child:
    when unshare ends (killed with the agent: procs.start), the namespace's init, and so the
    whole run, ends too."""
    args = ["unshare", "--fork", "--kill-child", "--pid", "--mount-proc", "--mount", "--ipc", "--uts"]
    if run_as < 0:
        args += ["--user", "--map-root-user"]
    return args + ([] if network else ["--net"]) + ["--"]


def unshare_works() -> bool:
    """Checked once: the launcher under the same unshare we will use, making its private mounts."""
    if sys.platform != "linux" or not shutil.which("unshare"):
        return False
    run_as = NOBODY if running_as_root() else -1
    probe = Confinement("basic", run_as, namespaces=True, runtime=str(runtime_files.runtime_root()))
    cmd = unshare_command(run_as, network=False) + [*launcher(probe, sys.executable), probe.private_mounts([]),
                                                    "", "/bin/true"]
    try:
        return subprocess.run(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                              timeout=20).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


def _user_tasks(uids: tuple[int, ...]) -> int:
    """Processes and threads the users run now (RLIMIT_NPROC counts threads too)."""
    count = 0
    for proc in procs.psutil.process_iter(["uids", "num_threads"]):
        uid = proc.info["uids"]
        if uid is not None and uid.real in uids:
            count += proc.info["num_threads"] or 0
    return count


def rlimit_values(limits: SandboxConfig, run_as, also: tuple[int, ...] = ()) -> list[tuple[str, tuple[int, int]]]:
    """(resource name, (soft, hard)) for one run. RLIMIT_NPROC counts every process and thread of
    the user, so a user keeps room for what it already runs (another run's judge, say); `also`:
    other users the command's processes will run as."""
    mib = 1024 * 1024
    me = getattr(os, "getuid", lambda: 0)()  # (no uids on Windows, nor RLIMIT_NPROC)
    uids = tuple(u for u in (run_as if run_as >= 0 else me, *also) if u != 0)
    nproc = limits.max_processes + (_user_tasks(uids) if uids else 0)
    return [("RLIMIT_CPU", (limits.cpu_seconds, limits.cpu_seconds + 1)),
            ("RLIMIT_AS", (limits.memory_mb * mib,) * 2),
            ("RLIMIT_FSIZE", (limits.file_size_mb * mib,) * 2),
            ("RLIMIT_NOFILE", (limits.open_files,) * 2),
            ("RLIMIT_CORE", (0, 0)),
            ("RLIMIT_STACK", (8 * mib,) * 2),
            ("RLIMIT_NPROC", (nproc, nproc))]


def clean_environment(home: Path, tmp: Path, python_bin: Path) -> dict[str, str]:
    """Nothing of ours leaks in: no API keys, proxies or tokens; HOME and TMPDIR in the run folder.
    Windows: its system folder (SYSTEMROOT: without it Python cannot start its random source or
    sockets), and TEMP/TMP and USERPROFILE in the run folder too."""
    if sys.platform == "win32":
        system = os.environ.get("SYSTEMROOT", r"C:\Windows")
        path = os.pathsep.join([str(python_bin), os.path.join(system, "System32"), system])
        extra = {"SYSTEMROOT": system, "TEMP": str(tmp), "TMP": str(tmp), "USERPROFILE": str(home), "PYTHONUTF8": "1"}
    else:
        path, extra = os.pathsep.join([str(python_bin), "/usr/local/bin", "/usr/bin", "/bin"]), dict[str, str]()
    return {
        "PATH": path, **extra,
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
    if sys.platform != "linux" or not shutil.which("bwrap"):
        return False
    probe = Confinement("bwrap", NOBODY if running_as_root() else -1)
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
    if sys.platform == "win32":
        raise OSError("another user only where we are root (POSIX)")
    for top in paths:
        for folder, dirs, files in os.walk(top):
            os.chown(folder, uid, uid)
            for name in dirs + files:
                os.lchown(os.path.join(folder, name), uid, uid)


def command(conf: Confinement, python: Path, argv: list[str], workdir: Path, writable: list[Path],
            network: bool, start_in: Optional[list[str]] = None) -> list[str]:
    """The whole command line of a confined `python argv...`: bwrap or unshare in front, then the
    launcher (private mounts, no keyrings, the user switch), then the command. start_in: the
    launcher's --in FOLDER ENVIRONMENT (a judged test's own command: no STARTED line)."""
    return [*conf.prefix(writable, workdir, network), *launcher(conf, str(python), start_in),
            conf.private_mounts(writable),
            seccomp.PROGRAM.hex() if seccomp.PROGRAM and sys.platform == "linux" else "", str(python), *argv]


def launcher(conf: Confinement, python: str, start_in: Optional[list[str]] = None) -> list[str]:
    """The launcher's command line up to its arguments: isolated (-I: no environment, no user
    site, not its own folder on sys.path), no site (-S), no bytecode written (-B)."""
    where = [] if start_in is None else ["--in", *start_in]
    return [python, "-I", "-S", "-B", runtime_files.entry(Path(conf.runtime), "launcher.py"), *where, str(conf.run_as)]


def open_log(log: Path) -> int:
    """The run's log, opened by us: a symlink planted there is never followed."""
    return os.open(log, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | NOFOLLOW | getattr(os, "O_BINARY", 0), 0o644)


def run(conf: Confinement, python: Path, argv: list[str], workdir: Path, writable: list[Path],
        env: dict[str, str], log: Path, limits: SandboxConfig, network: bool,
        nproc_user: Optional[int] = None, nproc_also: tuple[int, ...] = ()) -> Outcome:
    """Run `python argv...` in workdir, confined; stdout and stderr go to `log`, which must be
    in a folder the command cannot write (we open it, so a planted symlink must not exist).
    `nproc_user`: whose processes RLIMIT_NPROC counts, when a child of the command will run as
    another user than the command itself (the judge's worker)."""
    hand_over(writable, conf.run_as)
    cmd = command(conf, python, argv, workdir, writable, network)
    before = {p.pid for p in procs.psutil.Process().children()}
    rlimits = rlimit_values(limits, conf.run_as if nproc_user is None else nproc_user, nproc_also)
    job_limits = {"cpu_seconds": limits.cpu_seconds, "memory_mb": limits.memory_mb, "max_processes": limits.max_processes}
    start = time.monotonic()
    with open(open_log(log), "wb") as out:
        try:
            started = procs.start(cmd, str(workdir), env, out.fileno(), rlimits, job_limits)
        except OSError as e:
            return Outcome(None, False, 0.0, 0, started=False, problem=f"{cmd[0]}: {e.strerror or e}")
        timed_out = False
        try:
            exit_code: Optional[int] = started.wait(limits.timeout)
            if exit_code is not None and exit_code < 0:  # the launcher itself was killed: report it the shell's way
                exit_code = 128 - exit_code
        except subprocess.TimeoutExpired:
            timed_out, exit_code = True, None
            started.stop()
        except BaseException:  # Ctrl-C while the tests run: take them down with us
            started.stop()
            started.end(before)
            raise
    seconds = time.monotonic() - start
    return outcome(log, exit_code, timed_out, seconds, started.end(before))


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



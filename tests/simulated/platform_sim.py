"""Windows and macOS, simulated on Linux (no such machine is available to this project): before
our code runs, a Python process loses what this Linux machine has and the other system does not.
It is a stand-in for reactions to missing pieces, not for those systems: sys.platform stays
"linux", so the Windows-only code (winjob.py, the Windows paths) is not exercised here (tests
with fakes cover it), and subprocess, psutil, pytest, shutil and tempfile keep the real os and
signal modules (on those systems they run implementations of their own, which no simulation
here reaches).

    windows: no resource, fcntl, pwd, grp, termios, pty; no POSIX-only os functions (fork,
             getuid, setsid, killpg, waitpid flags, O_NOFOLLOW ...), no POSIX-only signals
             (SIGKILL, SIGSTOP, SIGALRM, setitimer ...); ctypes.CDLL(None) raises TypeError;
             no /proc; Popen refuses preexec_fn and pass_fds, as on Windows.
    macos:   no /proc, no prctl (nor mount, unshare) in the C library, no pidfd_open;
             setrlimit(RLIMIT_AS) raises ValueError.

Both: the PATH the tests give has no bwrap, unshare (neither system has them); macOS keeps ps.

Used as an interpreter: an executable file `#!PYTHON` + `run("windows")` (tests/test_platforms.py
writes it), so every process started through it (the agent, its batch runs, the sandbox
interpreter) is simulated. It understands the flags our code passes (-I -S -B -u -V -X, -c).
"""
from __future__ import annotations

import builtins
import importlib.abc
import os
import runpy
import signal
import sys
import types

BLOCKED_ON_WINDOWS = {"resource", "fcntl", "pwd", "grp", "termios", "pty"}
OS_ONLY_POSIX = """fork forkpty getuid geteuid getgid getegid getgroups setuid seteuid setgid setegid setgroups
setreuid setregid setresuid setresgid getresuid getresgid initgroups getgrouplist getpgid getpgrp setpgid setpgrp
getsid setsid killpg tcgetpgrp tcsetpgrp wait wait3 wait4 waitid WNOHANG WUNTRACED WCONTINUED WIFEXITED WEXITSTATUS
WIFSIGNALED WTERMSIG WIFSTOPPED WSTOPSIG WCOREDUMP WIFCONTINUED chown lchown fchown fchmod lchmod chroot mkfifo mknod
openpty ttyname ctermid pidfd_open posix_spawn posix_spawnp register_at_fork sched_getaffinity sched_setaffinity
getloadavg uname sync nice getpriority setpriority fwalk O_NOFOLLOW O_CLOEXEC O_PATH O_NONBLOCK O_DIRECTORY
O_NOCTTY O_NDELAY set_blocking get_blocking statvfs fstatvfs sendfile pread pwrite preadv pwritev readv writev
fdatasync pipe2 memfd_create eventfd splice copy_file_range getxattr setxattr listxattr removexattr confstr sysconf
pathconf fpathconf posix_fadvise posix_fallocate login_tty""".split()
SIGNALS_ONLY_POSIX = """SIGHUP SIGQUIT SIGTRAP SIGKILL SIGBUS SIGUSR1 SIGUSR2 SIGPIPE SIGALRM SIGCHLD SIGCONT SIGSTOP
SIGTSTP SIGTTIN SIGTTOU SIGURG SIGXCPU SIGXFSZ SIGVTALRM SIGPROF SIGWINCH SIGIO SIGPOLL SIGPWR SIGSYS alarm pause
setitimer getitimer ITIMER_REAL ITIMER_VIRTUAL ITIMER_PROF pthread_kill pthread_sigmask siginterrupt sigpending
sigwait""".split()
NOT_IN_MACOS_LIBC = {"prctl", "mount", "unshare", "pidfd_open"}
# They implement the platform themselves (their Windows and macOS code is their own): the real modules.
# (shutil and tempfile too: they chose their Linux ways when they were imported, before us.)
KEEP_REAL = {"subprocess", "psutil", "pytest", "_pytest", "pluggy", "iniconfig", "shutil", "tempfile"}


def _hide_proc(real_os: types.ModuleType) -> None:
    """/proc is not there for our code (open, listdir, scandir, stat, exists)."""
    def guard(func):
        def wrapper(path, *args, **kwargs):
            if isinstance(path, (str, os.PathLike)) and os.fspath(path).startswith("/proc"):
                raise FileNotFoundError(2, "No such file or directory (simulated: no /proc)", os.fspath(path))
            return func(path, *args, **kwargs)
        return wrapper
    builtins.open = guard(builtins.open)
    for name in ("listdir", "scandir", "stat", "lstat"):
        setattr(os, name, guard(getattr(real_os, name)))


class _Blocker(importlib.abc.MetaPathFinder):
    def __init__(self, names: set[str]):
        self.names = names

    def find_spec(self, fullname, path=None, target=None):
        if fullname in self.names:
            raise ModuleNotFoundError(f"No module named {fullname!r} (simulated Windows)", name=fullname)
        return None


class _KeepReal(importlib.abc.MetaPathFinder):
    """Modules in KEEP_REAL get the real os, signal and open as they are imported."""

    def __init__(self, real: dict):
        self.real = real

    def find_spec(self, fullname, path=None, target=None):
        if fullname.partition(".")[0] not in KEEP_REAL:
            return None
        for finder in sys.meta_path:
            if finder is self or isinstance(finder, _Blocker):
                continue
            spec = getattr(finder, "find_spec", lambda *a: None)(fullname, path, target)
            if spec is not None and spec.loader is not None and hasattr(spec.loader, "exec_module"):
                loader, real = spec.loader, self.real

                class Loader(importlib.abc.Loader):
                    def create_module(self, spec):
                        return loader.create_module(spec)

                    def exec_module(self, module):
                        module.__dict__.update(real)
                        loader.exec_module(module)
                        for name, value in real.items():
                            if name in module.__dict__:
                                module.__dict__[name] = value
                spec.loader = Loader()
                return spec
        return None


def _real_copy(module: types.ModuleType) -> types.ModuleType:
    copy = types.ModuleType(module.__name__)
    copy.__dict__.update(module.__dict__)
    return copy


def simulate(platform: str) -> None:
    real = {"os": _real_copy(os), "signal": _real_copy(signal), "open": builtins.open}
    import shutil  # noqa: F401 (imported with the real modules, before anything is taken away)
    import subprocess  # noqa: F401
    import tempfile  # noqa: F401
    try:
        import psutil  # noqa: F401 (its Linux code imports resource)
    except ImportError:  # (the sandbox interpreter has none)
        pass
    for name in list(sys.modules):
        if name.partition(".")[0] in KEEP_REAL:
            module = sys.modules[name].__dict__
            module.update({k: v for k, v in real.items() if k in module or k == "open"})
    sys.meta_path.insert(0, _KeepReal(real))
    _hide_proc(real["os"])
    import ctypes
    real_cdll = ctypes.CDLL
    if platform == "windows":
        for name in BLOCKED_ON_WINDOWS:
            sys.modules.pop(name, None)
        sys.meta_path.insert(0, _Blocker(BLOCKED_ON_WINDOWS))
        for name in OS_ONLY_POSIX:
            os.__dict__.pop(name, None)
        for name in SIGNALS_ONLY_POSIX:
            signal.__dict__.pop(name, None)

        class WindowsCDLL(real_cdll):
            def __init__(self, name, *args, **kwargs):
                if name is None:
                    raise TypeError("LoadLibrary() argument 1 must be str, not None (simulated Windows)")
                super().__init__(name, *args, **kwargs)
        ctypes.CDLL = WindowsCDLL  # type: ignore[misc]
        popen_init = subprocess.Popen.__init__

        def windows_popen(self, *args, preexec_fn=None, pass_fds=(), **kwargs):
            if preexec_fn is not None:
                raise ValueError("preexec_fn is not supported on Windows platforms (simulated)")
            if pass_fds:
                raise ValueError("pass_fds is not supported on Windows platforms (simulated)")
            popen_init(self, *args, **kwargs)
        subprocess.Popen.__init__ = windows_popen  # type: ignore[method-assign]
    elif platform == "macos":
        os.__dict__.pop("pidfd_open", None)

        class MacCDLL(real_cdll):
            def __getattr__(self, name):
                if name in NOT_IN_MACOS_LIBC:
                    raise AttributeError(f"dlsym: symbol not found: {name} (simulated macOS)")
                return super().__getattr__(name)
        ctypes.CDLL = MacCDLL  # type: ignore[misc]
        import resource
        real_setrlimit = resource.setrlimit

        def mac_setrlimit(which, limits):
            if which == resource.RLIMIT_AS:
                raise ValueError("current limit exceeds maximum limit (simulated macOS)")
            real_setrlimit(which, limits)
        resource.setrlimit = mac_setrlimit
    else:
        raise ValueError(platform)


def run(platform: str) -> None:
    """Simulate `platform`, then run the command line as `python` would."""
    wrapper = os.path.abspath(sys.argv[0])
    args = sys.argv[1:]
    simulate(platform)
    sys.executable = wrapper  # processes our code starts with sys.executable are simulated too
    isolated = False
    while args and args[0].startswith("-") and args[0] != "-":
        flag = args.pop(0)
        if flag == "-V":
            print(f"Python {sys.version.split()[0]}")
            raise SystemExit(0)
        if flag == "-c":
            sys.argv = ["-c", *args[1:]]
            sys.path[0] = ""
            exec(compile(args[0], "<string>", "exec"), {"__name__": "__main__"})
            raise SystemExit(0)
        if flag == "-X":
            option = args.pop(0)
            if option.startswith("pycache_prefix="):
                sys.pycache_prefix = option.partition("=")[2]
            continue
        for letter in flag[1:]:
            if letter == "I":
                isolated = True
            elif letter == "B":
                sys.dont_write_bytecode = True
            elif letter == "u":
                sys.stdout.reconfigure(write_through=True)
                sys.stderr.reconfigure(write_through=True)
    script = args[0]
    sys.argv = args
    if isolated:
        del sys.path[0]
    else:
        sys.path[0] = os.path.dirname(os.path.abspath(script))
    runpy.run_path(script, run_name="__main__")

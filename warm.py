"""The warm runner (sandbox.warm): one interpreter per agent run with pytest and its plugins
imported, which forks a fresh child for each test run instead of starting Python again.

Why it is safe to reuse: the server imports only pytest and the standard library, never a
workspace module, and it never runs a test itself; each run is a fork of that clean state, so
a module the model edited is imported fresh every time and nothing a run changes reaches the
next. The forked child does what the cold launcher does (isolation.LAUNCHER): its own session,
the same rlimits, stdin closed, output to the log we opened, every other descriptor closed (the
server's socket never reaches test code), the clean environment, no kernel keyrings (seccomp.py),
the user switch, STARTED, then one more fork that runs pytest while the child waits. The server
is a child subreaper, so whatever a run leaves behind is below it, and we kill that whole tree
after each run.

With namespaces (as root), the forked child first does what `unshare --fork --pid --mount-proc
--mount --ipc --uts [--net]` does: new namespaces per run, then PID 1 of the new PID namespace
mounts /proc and the private /tmp, /var/tmp, /dev/shm (isolation.PRIVATE_MOUNTS). Not used without
namespaces (see `applies`), nor under bwrap: each run there gets its own binds, namespaces and /tmp from bubblewrap, which a process
started once cannot give each run without doing bubblewrap's work itself (nor with namespaces
without root, which would need a user namespace per run); there the cold path runs. The server
runs as us (as root it must, to drop each run to uid 65534), so the tests can never signal or
trace it.
"""
from __future__ import annotations

import json
import os
import socket
import subprocess
import time
import weakref
from pathlib import Path
from typing import Optional

import isolation
import seccomp
from config import SandboxConfig

# argv: the socket's descriptor. Requests: JSON with the log's descriptor attached; replies: the
# request's id and the run child's exit code (negative: the signal that killed it), one message
# per request.
SERVER = r"""
import json, os, resource, select, signal, socket, sys, types
del sys.path[0]
import pytest, _pytest.config
for name in _pytest.config.default_plugins:
    try:
        __import__("_pytest." + name)
    except ImportError:
        pass
BOUNDS, MOUNTS = %r, %r


%s
%s

import ctypes, gc
gc.freeze()  # what is loaded now is never collected: a run's gc neither scans nor copies it
ctypes.CDLL(None).prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER
chan = socket.socket(fileno=int(sys.argv[1]))
wake_r, wake_w = os.pipe()
os.set_blocking(wake_w, False)
signal.set_wakeup_fd(wake_w)
signal.signal(signal.SIGCHLD, lambda *_: None)
current = None
while True:
    ready = select.select([chan, wake_r], [], [])[0]
    if wake_r in ready:
        os.read(wake_r, 4096)
        while True:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                break
            if not pid:
                break
            if pid == current:
                chan.send(("%%d %%d" %% (request["id"], os.waitstatus_to_exitcode(status))).encode())
                current = None
    if chan in ready:
        data, fds, _, _ = socket.recv_fds(chan, 1 << 20, 1)
        if not data:
            break
        request = json.loads(data)
        current = os.fork()
        if current == 0:
            break
        for fd in fds:
            os.close(fd)
if current != 0:
    sys.exit(0)
# A run: the launcher's part, then the test process below it.
signal.set_wakeup_fd(-1)
signal.signal(signal.SIGCHLD, signal.SIG_DFL)
os.setsid()
null = os.open(os.devnull, os.O_RDONLY)
os.dup2(null, 0)
os.dup2(fds[0], 1)
os.dup2(fds[0], 2)
chan.detach()
os.closerange(3, 1 << 20)
for name, value in request["limits"]:
    resource.setrlimit(getattr(resource, name), tuple(value))
os.chdir(request["workdir"])
os.environ.clear()
os.environ.update(request["env"])
uid, spaces = request["uid"], request["namespaces"]
if spaces:  # as root: what `unshare --fork --pid --mount-proc --mount --ipc --uts [--net]` does
    import ctypes
    libc = ctypes.CDLL(None, use_errno=True)
    flags = 0x00020000 | 0x20000000 | 0x08000000 | 0x04000000  # NEWNS, NEWPID, NEWIPC, NEWUTS
    if libc.unshare(flags | (0 if spaces["network"] else 0x40000000)) != 0:  # NEWNET
        raise OSError(ctypes.get_errno(), "unshare")
    pid = os.fork()  # below: PID 1 of the new namespace; when it ends, the kernel ends the rest
    if pid:
        exit_with(pid)
    for source, target, fstype, options in ((b"none", b"/", None, 16384 | 262144), (b"none", b"/proc", None, 16384 | 262144),
                                            (b"proc", b"/proc", b"proc", 2 | 4 | 8)):  # MS_REC|MS_PRIVATE; nosuid,nodev,noexec
        if libc.mount(source, target, fstype, options, None) != 0:
            raise OSError(ctypes.get_errno(), "mount " + target.decode())
    private = spaces["private"]
    exec(MOUNTS)
no_keyrings()
if uid >= 0:
    os.setgroups([]); os.setgid(uid); os.setuid(uid)
os.write(1, b"%s\n")
pid = os.fork()
if pid:
    exit_with(pid)
import tempfile
tempfile.tempdir = None
sys.argv = ["-c", *request["args"]]
bounds = types.ModuleType("tdd_agent_bounds")
exec(BOUNDS, bounds.__dict__)
sys.path.insert(0, os.getcwd())
raise SystemExit(int(pytest.main(plugins=[bounds])))
"""


def applies(conf: isolation.Confinement) -> bool:
    """The layers a process started once can confine each run for (see the module docstring):
    the basic layer with namespaces, as root. Each run needs its own PID namespace: without one a
    process that forks and exits in a loop outlived the sweep after a warm run (the server reaps
    its zombies at once, so RLIMIT_NPROC never stalls it as it does on the cold path) and
    rewrote the next run's copy and the judged copy (a red-team test, tests/test_cross_run_attacks.py).
    Without root, namespaces need a user namespace per run, which is not done here."""
    return conf.layer == "basic" and conf.namespaces and conf.run_as >= 0


class Runner:
    """The server process and our end of its socket; one per Sandbox."""

    def __init__(self, python: Path, bounds_plugin: str, env: dict[str, str]):
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        code = SERVER % (bounds_plugin, isolation.PRIVATE_MOUNTS, isolation.EXIT_WITH, seccomp.INSTALL,
                         isolation.STARTED)
        self.proc = subprocess.Popen([str(python), "-c", code, str(theirs.fileno())], cwd="/", env=env,
                                     stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL, pass_fds=(theirs.fileno(),),
                                     start_new_session=True)
        theirs.close()
        self.chan = ours
        self.runs = 0
        weakref.finalize(self, _stop, self.proc, ours)

    def run(self, conf: isolation.Confinement, args: list[str], workdir: Path, writable: list[Path],
            env: dict[str, str], log: Path, limits: SandboxConfig, network: bool) -> Optional[isolation.Outcome]:
        """`pytest args...` in workdir, confined as isolation.run confines it; None when the server
        is gone before the run started (nothing ran: the caller takes the cold path)."""
        isolation.hand_over(writable, conf.run_as)
        self.runs += 1
        spaces = {"network": network, "private": conf.private_mounts(writable)} if conf.namespaces else None
        request = json.dumps({"id": self.runs, "args": args, "workdir": str(workdir), "env": env, "uid": conf.run_as,
                              "namespaces": spaces, "limits": isolation.rlimit_values(limits, conf.run_as)}).encode()
        start = time.monotonic()
        fd = isolation.open_log(log)
        try:
            socket.send_fds(self.chan, [request], [fd])
        except OSError:
            return None
        finally:
            os.close(fd)
        timed_out = False
        try:
            reply = self._reply(limits.timeout)
        except TimeoutError:
            timed_out = True
            isolation.kill_tree(self.proc.pid, set())
            try:
                reply = self._reply(10)
            except TimeoutError:
                reply = None
        except BaseException:  # Ctrl-C while the tests run: take them down with us
            isolation.kill_tree(self.proc.pid, set())
            raise
        seconds = time.monotonic() - start
        leftovers = isolation.kill_tree(self.proc.pid, set())
        if reply is None:  # the server is gone or stuck: no later run may use it
            self.proc.kill()
            if not timed_out:
                return isolation.Outcome(None, False, seconds, leftovers, started=False,
                                         problem="the warm runner ended during the run")
        exit_code = None if timed_out else (128 - reply if reply < 0 else reply)
        return isolation.outcome(log, exit_code, timed_out, seconds, leftovers)

    def _reply(self, timeout: float) -> Optional[int]:
        """This run's exit code; None when the server is gone. A reply to an earlier run (one
        interrupted by Ctrl-C) is skipped."""
        deadline = time.monotonic() + timeout
        while True:
            self.chan.settimeout(max(0.001, deadline - time.monotonic()))
            try:
                data = self.chan.recv(64)
            except ConnectionError:
                return None
            if not data:
                return None
            run, code = map(int, data.split())
            if run == self.runs:
                return code


def _stop(proc: subprocess.Popen, chan: socket.socket) -> None:
    chan.close()  # the server ends at the end of its socket
    try:
        proc.wait(timeout=5)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()

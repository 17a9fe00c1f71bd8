"""The warm runner (sandbox.warm): one interpreter (sandbox_runtime/warm_server.py) per agent run with pytest and its plugins
imported, which forks a fresh child for each test run instead of starting Python again.

Why it is safe to reuse: the server imports only pytest and the standard library, never a
workspace module, and it never runs a test itself; each run is a fork of that clean state, so
a module the model edited is imported fresh every time and nothing a run changes reaches the
next. The forked child does what the cold launcher does (sandbox_runtime/launcher.py): its own session,
the same rlimits, stdin closed, output to the log we opened, every other descriptor closed (the
server's socket never reaches test code), the clean environment, no kernel keyrings (seccomp.py),
the user switch, STARTED, then one more fork that runs pytest while the child waits. The server
is a child subreaper, so whatever a run leaves behind is below it, and we kill that whole tree
after each run.

With namespaces (as root), the forked child first does what `unshare --fork --pid --mount-proc
--mount --ipc --uts [--net]` does: new namespaces per run, then PID 1 of the new PID namespace
mounts /proc and the private /tmp, /var/tmp, /dev/shm (sandbox_runtime/confine.py). Not used without
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
import sys
import time
import weakref
from pathlib import Path
from typing import Optional

import isolation
import runtime_files
import seccomp
from config import SandboxConfig


def applies(conf: isolation.Confinement) -> bool:
    """The layers a process started once can confine each run for (see the module docstring):
    the basic layer with namespaces, as root. Each run needs its own PID namespace: without one a
    process that forks and exits in a loop outlived the sweep after a warm run (the server reaps
    its zombies at once, so RLIMIT_NPROC never stalls it as it does on the cold path) and
    rewrote the next run's copy and the judged copy (a red-team test, tests/test_cross_run_attacks.py).
    Without root, namespaces need a user namespace per run, which is not done here."""
    return conf.layer == "basic" and conf.namespaces and conf.run_as >= 0


def judge_applies(conf: isolation.Confinement) -> bool:
    """Where judged runs fork their judge from a warm server (judge.run_judged): Linux, when the
    worker (the model's code) gets a PID namespace of its own (bwrap, or the basic layer with
    namespaces), so that nothing it starts can outlive the run's sweep (see `applies`). The judge
    itself runs only trusted code: the tests, pytest, our plugin."""
    return sys.platform == "linux" and (conf.layer == "bwrap" or conf.namespaces)


# What the judge's plugin imports (judge_runtime/judge_plugin.py), imported once by its server.
JUDGE_PRELOAD = ("ast", "asyncio", "concurrent.futures.thread", "ctypes", "dis", "inspect", "json", "logging.config",
                 "multiprocessing.pool", "pdb", "pickle", "pkgutil", "random", "socket", "subprocess", "unittest.mock",
                 "xml.etree.ElementTree")


class Runner:
    """The server process and our end of its socket; one per Sandbox (and one for its judged runs)."""

    proc: subprocess.Popen
    chan: socket.socket
    runs: int

    def __init__(self, python: Path, runtime: Path, env: dict[str, str], preload: tuple[str, ...] = ()):
        if sys.platform != "linux":
            raise OSError("the warm runner needs Linux (applies() says when it is used)")
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        keyring_filter = seccomp.PROGRAM.hex() if seccomp.PROGRAM else ""
        # -I: isolated, as the launcher; -B and -u: what PYTHONDONTWRITEBYTECODE and PYTHONUNBUFFERED
        # (in every run's environment, which -I ignores) give a cold run
        self.proc = subprocess.Popen([str(python), "-I", "-B", "-u", runtime_files.entry(runtime, "warm_server.py"),
                                      str(theirs.fileno()), keyring_filter, *([",".join(preload)] if preload else [])],
                                     cwd="/", env=env,
                                     stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL, pass_fds=(theirs.fileno(),),
                                     start_new_session=True)
        theirs.close()
        self.chan = ours
        self.runs = 0
        weakref.finalize(self, _stop, self.proc, ours)

    def run(self, conf: isolation.Confinement, args: list[str], workdir: Path, writable: list[Path],
            env: dict[str, str], log: Path, limits: SandboxConfig, network: bool,
            nproc_user: Optional[int] = None, nproc_also: tuple[int, ...] = ()) -> Optional[isolation.Outcome]:
        """`pytest args...` in workdir, confined as isolation.run confines it; None when the server
        is gone before the run started (nothing ran: the caller takes the cold path). nproc_user,
        nproc_also: as isolation.run's (the judge's worker runs as another user than the judge)."""
        if sys.platform != "linux":
            return None
        isolation.hand_over(writable, conf.run_as)
        self.runs += 1
        spaces = {"network": network, "private": conf.private_mounts(writable)} if conf.namespaces else None
        request = json.dumps({"id": self.runs, "args": args, "workdir": str(workdir), "env": env, "uid": conf.run_as,
                              "namespaces": spaces,
                              "limits": isolation.rlimit_values(limits, conf.run_as if nproc_user is None else nproc_user,
                                                                nproc_also)}).encode()
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
        exit_code = None if timed_out or reply is None else (128 - reply if reply < 0 else reply)
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

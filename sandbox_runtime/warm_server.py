"""The warm runner's server (warm.py): pytest and its plugins imported once; a fresh fork per
test run, which confines itself as the launcher does and runs pytest.

    python -I -B -u warm_server.py SOCKET_FD KEYRING_FILTER [MODULE,...]

MODULE,...: the standard library modules the judge's plugin imports, for the judge's server
(judge.run_judged): imported once too, and nothing frozen (the judge's scans of its heap see every
object, as after a cold start).

Requests on the socket: JSON with the log's descriptor attached; replies: the request's id and
the run child's exit code (negative: the signal that killed it), one message per request.
Linux only (fork, SCM_RIGHTS, namespaces); the agent starts it only there (warm.applies).
"""
import json
import os
import resource
import select
import signal
import socket
import sys

assert sys.platform == "linux", "the warm runner needs Linux"

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import _pytest.config  # noqa: E402
import pytest  # noqa: E402

from sandbox_runtime import bounds, confine  # noqa: E402

del sys.path[0]
for _name in _pytest.config.default_plugins:
    try:
        __import__("_pytest." + _name)
    except ImportError:
        pass

CLONE_NEWNS, CLONE_NEWPID, CLONE_NEWIPC, CLONE_NEWUTS, CLONE_NEWNET = (0x00020000, 0x20000000, 0x08000000,
                                                                        0x04000000, 0x40000000)
MS_REMOUNT_PRIVATE, MS_PROC = 16384 | 262144, 2 | 4 | 8  # MS_REC|MS_PRIVATE; nosuid,nodev,noexec


def serve(chan: socket.socket, keyring_filter: str, preload: list[str]) -> None:
    """Answer requests until the socket closes; in a run's child, run it (never returns)."""
    import ctypes
    import gc
    for name in preload:
        __import__(name)
    if not preload:
        gc.freeze()  # what is loaded now is never collected: a run's gc neither scans nor copies it
    ctypes.CDLL(None).prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER
    wake_r, wake_w = os.pipe()
    os.set_blocking(wake_w, False)
    signal.set_wakeup_fd(wake_w)
    signal.signal(signal.SIGCHLD, lambda *_: None)
    current, request = None, {}
    watched: list = [chan, wake_r]
    while True:
        ready = select.select(watched, [], [])[0]
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
                    chan.send(("%d %d" % (request["id"], os.waitstatus_to_exitcode(status))).encode())
                    current = None
        if chan in ready:
            try:
                data, fds, _, _ = socket.recv_fds(chan, 1 << 20, 1)
            except ConnectionError:
                data, fds = b"", []
            if not data:  # the agent is gone (maybe killed mid-run): a run still going ends with us
                confine.kill_below()
                return
            request = json.loads(data)
            current = os.fork()
            if current == 0:
                run(chan, fds[0], request, keyring_filter)
            for fd in fds:
                os.close(fd)


def run(chan: socket.socket, log: int, request: dict, keyring_filter: str) -> None:
    """One run, in the forked child: the launcher's part, then the test process below it."""
    signal.set_wakeup_fd(-1)
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    os.setsid()
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.dup2(log, 1)
    os.dup2(log, 2)
    chan.detach()
    os.closerange(3, 1 << 20)
    for name, value in request["limits"]:
        resource.setrlimit(getattr(resource, name), tuple(value))
    os.chdir(request["workdir"])
    os.environ.clear()
    os.environ.update(request["env"])
    spaces = request["namespaces"]
    if spaces:  # as root: what `unshare --fork --pid --mount-proc --mount --ipc --uts [--net]` does
        enter_namespaces(spaces["network"])
        confine.private_mounts(spaces["private"])
    confine.no_keyrings(keyring_filter)
    confine.drop_user(request["uid"])
    confine.say_started()
    pid = os.fork()
    if pid:
        confine.exit_with(pid)
    import tempfile
    tempfile.tempdir = None
    sys.argv = ["-c", *request["args"]]
    for name in [n for n in sys.modules if n.partition(".")[0] == "sandbox_runtime"]:
        del sys.modules[name]  # a model module of that name is the model's
    sys.path[0:0] = [os.getcwd(), *[p for p in request["env"].get("PYTHONPATH", "").split(os.pathsep) if p]]
    raise SystemExit(int(pytest.main(plugins=[bounds])))


def enter_namespaces(network: bool) -> None:
    """New mount, PID, IPC and UTS namespaces (and network unless allowed); we continue as PID 1
    of the new PID namespace (when it ends, the kernel ends the rest), with our own /proc."""
    import ctypes
    libc = ctypes.CDLL(None, use_errno=True)
    flags = CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWIPC | CLONE_NEWUTS
    if libc.unshare(flags | (0 if network else CLONE_NEWNET)) != 0:
        raise OSError(ctypes.get_errno(), "unshare")
    pid = os.fork()
    if pid:
        confine.exit_with(pid)
    for source, target, fstype, options in ((b"none", b"/", None, MS_REMOUNT_PRIVATE),
                                            (b"none", b"/proc", None, MS_REMOUNT_PRIVATE),
                                            (b"proc", b"/proc", b"proc", MS_PROC)):
        if libc.mount(source, target, fstype, options, None) != 0:
            raise OSError(ctypes.get_errno(), "mount " + target.decode())


if __name__ == "__main__":
    serve(socket.socket(fileno=int(sys.argv[1])), sys.argv[2], sys.argv[3].split(",") if len(sys.argv) > 3 else [])

"""A batch's runs on a Ray cluster (docs/scale.md): the same start/poll/interrupt as
batch.LocalExecutor, each run one Ray task that starts the same run_task.py child process on a
node with a free `sandbox` resource. The batch's scheduler (servers, retries, the summary) is
unchanged; Ray only decides the node.

Run folders are either on a folder shared by every node at the same path (`shared`), or made in a
temporary folder on the node and sent back as a tar (`packed`), which the driver unpacks into
runs/<batch_id>/<task_id>/ before the batch reads result.json."""
from __future__ import annotations

import io
import logging
import os
import shutil
import signal
import socket
import subprocess
import sys
import tarfile
import tempfile
import threading
import time
from pathlib import Path
from typing import Any, Optional

INSTALL = "pip install -e '.[ray]'"
GRACE = 30  # seconds a run has to end `interrupted` after its SIGINT before it is killed


class RayMissing(Exception):
    """Ray is an optional extra; the message says how to install it."""


def child_setup() -> None:
    """In the run's process before it starts: SIGINT as usual (a Ray worker's thread may block or
    ignore it, and a child inherits both), and death with the Ray worker that started it (a lost node leaves no
    run behind to write into a folder another node resumes)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    if sys.platform != "win32":
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
    if sys.platform == "linux":
        import ctypes
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG


def pack(folder: Path) -> bytes:
    data = io.BytesIO()
    with tarfile.open(fileobj=data, mode="w:gz") as tar:
        tar.add(folder, arcname=".")
    return data.getvalue()


def unpack(data: bytes, folder: Path) -> None:
    """A run folder from a node, in place of what was there (a resumed run sent its copy along)."""
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as tar:
        tar.extractall(folder, filter="data")


def flag_value(argv: list[str], flag: str) -> Optional[str]:
    return argv[argv.index(flag) + 1] if flag in argv else None


def replace_flag(argv: list[str], flag: str, value: str) -> list[str]:
    out = list(argv)
    out[out.index(flag) + 1] = value
    return out


def run_one(argv: list[str], cwd: str, log: Optional[str], packed: Optional[bytes], node_id: str) -> dict:
    """On a node: the run as a child process, its console output in `log` (shared) or sent back
    (packed). Ray's cancel arrives as KeyboardInterrupt: the run gets SIGINT (it ends
    `interrupted` and writes its result), then, if it has not ended in GRACE seconds, SIGKILL."""
    scratch = None
    if packed is not None:  # run in a folder of this node's own; a resumed run's folder came along
        scratch = Path(tempfile.mkdtemp(prefix="tdd-agent-ray-"))
        runs = scratch / "runs"
        runs.mkdir()
        resumed = flag_value(argv, "--resume")
        task_id = Path(resumed).name if resumed else str(flag_value(argv, "--run-id"))
        if resumed:
            unpack(packed, runs / task_id)
            argv = replace_flag(argv, "--resume", str(runs / task_id))
        argv = replace_flag(argv, "--runs-dir", str(runs))
        log = str(scratch / "console.log")
    out = open(log, "ab") if log else None
    if out:  # where the run is, as soon as it starts (a lost node's runs are found by it)
        out.write(f"[ray] node {node_id} on {socket.gethostname()}\n".encode())
        out.flush()
    try:
        child = subprocess.Popen(argv, cwd=cwd, stdin=subprocess.DEVNULL, stdout=out,
                                 stderr=subprocess.STDOUT if out else None, start_new_session=True,
                                 preexec_fn=child_setup)
        try:
            while child.poll() is None:  # not wait(): Ray's cancel is only seen between bytecodes
                time.sleep(0.1)
            code = child.returncode
        except KeyboardInterrupt:
            child.send_signal(signal.SIGINT)
            try:
                code = child.wait(GRACE)
            except subprocess.TimeoutExpired:
                child.kill()
                code = child.wait()
        answer: dict[str, Any] = {"code": code, "node": node_id, "host": socket.gethostname()}
        if scratch is not None:
            folder = scratch / "runs" / task_id
            answer["run"] = pack(folder) if folder.is_dir() else None
            answer["log"] = Path(log).read_bytes() if log and os.path.exists(log) else b""
        return answer
    finally:
        if out:
            out.close()
        if scratch is not None:
            shutil.rmtree(scratch, ignore_errors=True)


def remote_run(argv: list[str], cwd: str, log: Optional[str], packed: Optional[bytes]) -> dict:
    """Ray's soft cancel is Python's simulated SIGINT, which does nothing where SIGINT is ignored:
    a node started as a background job of a script (`ray start ... &`) ignores it, and its workers
    inherit that. So the task takes SIGINT back before the run starts."""
    import ray
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, signal.default_int_handler)
    return run_one(argv, cwd, log, packed, ray.get_runtime_context().get_node_id())


class Handle:
    """One run in flight: its Ray task, and where its folder and log go when it comes back."""

    def __init__(self, ref: Any, run_dir: Path, log: Optional[Path]):
        self.ref, self.run_dir, self.log = ref, run_dir, log
        self.code: Optional[int] = None
        self.node = "not known (the node was lost)"


class RayExecutor:
    """start/poll/interrupt over Ray tasks. Ray retries nothing itself (max_retries=0): a lost
    node is a run that ended without a result, which the batch retries with --resume."""

    name = "ray"

    def __init__(self, address: Optional[str], run_folders: str = "shared"):
        try:
            import ray
        except ImportError:
            raise RayMissing(f"--executor ray needs Ray, which is not installed: {INSTALL}") from None
        self.ray, self.packed = ray, run_folders == "packed"
        started_here = False
        if address:
            ray.init(address=address, log_to_driver=False, logging_level=logging.WARNING)
        else:  # a running cluster, else one on this machine for this batch (a sandbox per core)
            try:
                ray.init(address="auto", log_to_driver=False, logging_level=logging.WARNING)
            except ConnectionError:
                ray.init(resources={"sandbox": os.cpu_count() or 1}, log_to_driver=False, logging_level=logging.WARNING,
                         include_dashboard=False)
                started_here = True
        self.started_here = started_here
        ray.cloudpickle.register_pickle_by_value(sys.modules[__name__])  # nodes need not import this module
        self.task = ray.remote(num_cpus=1, resources={"sandbox": 1}, max_retries=0)(remote_run)

    def start(self, argv: list[str], cwd: Path, log: Optional[Path]) -> Handle:
        run_dir = Path(flag_value(argv, "--resume") or Path(str(flag_value(argv, "--runs-dir"))) / str(flag_value(argv, "--run-id")))
        packed = None
        if self.packed:
            packed = pack(run_dir) if "--resume" in argv else b""
        ref = self.task.remote(argv, str(cwd), None if self.packed or log is None else str(log), packed)
        return Handle(ref, run_dir, log)

    def poll(self, handle: Handle) -> Optional[int]:
        if handle.code is not None:
            return handle.code
        done, _ = self.ray.wait([handle.ref], timeout=0)
        if not done:
            return None
        try:
            answer = self.ray.get(handle.ref)
        except self.ray.exceptions.RayError as e:  # the node or its worker is gone: no result came back
            handle.code = -1
            if handle.log:
                with open(handle.log, "a", encoding="utf-8") as f:
                    f.write(f"\nthe Ray task was lost: {type(e).__name__}\n")
            return handle.code
        handle.node = answer["node"]
        if self.packed:
            if answer.get("run"):
                unpack(answer["run"], handle.run_dir)
            if handle.log and answer.get("log"):
                with open(handle.log, "ab") as f:
                    f.write(answer["log"])
        handle.code = answer["code"]
        return handle.code

    def interrupt(self, handle: Handle, hard: bool = False) -> None:
        if handle.code is None:
            self.ray.cancel(handle.ref, force=hard)

    def node(self, handle: Handle) -> str:
        return handle.node

    def close(self) -> None:
        self.ray.shutdown()  # a cluster started for this batch ends with it


"""Shared test helpers: a scratch folder the sandbox user can reach, and running the real
run_task.py as a subprocess the way a user does."""
from __future__ import annotations

import contextlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from fake_servers import FakeKoboldCpp  # noqa: E402

import isolation  # noqa: E402
from config import SandboxConfig  # noqa: E402
from sandbox import Sandbox  # noqa: E402

# Every sandbox layer this machine has (and the warm runner): tests that run model code run under each.
LAYERS = (["basic"] + (["basic+namespaces"] if isolation.unshare_works() else [])
          + (["basic+namespaces+warm"] if isolation.unshare_works() and os.getuid() == 0 else [])
          + (["bwrap"] if isolation.bwrap_works() else []))
# Judged runs never use the warm runner (judge.run_judged starts its own worker), so for them the
# warm layer is the basic layer with namespaces again: judge tests run on these.
COLD_LAYERS = [layer for layer in LAYERS if "warm" not in layer]
# The least and the most confinement: where the layer does not decide the outcome (counting, the
# example tasks, what a feature gives) but a layer could still break it.
END_LAYERS = sorted({LAYERS[0], LAYERS[-1]}, key=LAYERS.index)
# A rule of the judge on Python's own terms (what crosses, what a decorator may return): the
# layer cannot change it, so it runs on one, the strongest this machine has (a Linux user's
# default). Attacks through the system (processes, /proc, files, links) run on END_LAYERS.
# TDD_AGENT_RULES_ON_EVERY_LAYER=1 runs them on END_LAYERS too (before a release, after a change to the judge).
RULE_LAYERS = END_LAYERS if os.environ.get("TDD_AGENT_RULES_ON_EVERY_LAYER") else [COLD_LAYERS[-1]]


def on_layers(layers):
    """A test on these layers only: overrides the params of a module's `sandbox` fixture."""
    return pytest.mark.parametrize("sandbox", layers, indirect=True, scope="module")


# Starts a command with SIGINT ignored, as a shell without job control starts a background job
# (`cmd &` in a script); exec keeps an ignored signal ignored.
SIGINT_IGNORED = ["sh", "-c", 'trap "" INT; exec "$@"', "sh"]


def layer_sandbox(layer: str, **limits) -> Sandbox:
    """A Sandbox for one of LAYERS ('basic+namespaces' is the basic layer with namespaces on;
    '+warm': each run forked from the warm runner)."""
    return Sandbox(SandboxConfig(isolation=layer.split("+")[0], namespaces="namespaces" in layer,
                                 warm="warm" in layer, **limits))


# A test that fills its test user's process limit (a fork bomb; a race whose zombies pile up) runs,
# as root, as a test user of its own (sandbox.user): RLIMIT_NPROC counts per user, so the tests
# beside it keep their room. Not root, every run is our own user: then it runs `alone`.
OWN_USER_OR_ALONE = (lambda test: test) if os.getuid() == 0 else pytest.mark.alone


def own_user(sandbox: Sandbox, first_uid: int) -> Sandbox:
    """A sandbox of `layer_sandbox`'s (its layer, its limits) running the tests as first_uid + the
    layer's index: a uid no other test uses (65100 and up: no system user's)."""
    cfg = sandbox.cfg
    layer = cfg.isolation + "+namespaces" * cfg.namespaces + "+warm" * cfg.warm
    return layer_sandbox(layer, **{**cfg.model_dump(exclude={"isolation", "namespaces", "warm"}),
                                   "user": first_uid + LAYERS.index(layer)})


WARM_LAYER = next((layer for layer in LAYERS if "warm" in layer), None)
_PLAIN_SANDBOXES: dict[str, Sandbox] = {}


def plain_sandbox(sandbox: Sandbox) -> Sandbox:
    """Where a test runs the plain (in-process pytest) run it compares a judged run with: the warm
    layer with the same limits where this machine has it (root, namespaces: a fork of an interpreter
    that imported pytest once, 0.07 s instead of 0.3 s of a new one), else `sandbox` itself. A plain
    run is what the model's code does in one ordinary pytest process: the layer does not decide it."""
    if WARM_LAYER is None:
        return sandbox
    limits = sandbox.cfg.model_dump(exclude={"isolation", "namespaces", "warm"})
    key = json.dumps(limits, sort_keys=True, default=str)
    if key not in _PLAIN_SANDBOXES:
        _PLAIN_SANDBOXES[key] = layer_sandbox(WARM_LAYER, **limits)
    return _PLAIN_SANDBOXES[key]


@contextlib.contextmanager
def limited(sandbox: Sandbox, **limits):
    """The same sandbox (its layer, its warm runner) with other limits for the runs in the block:
    a test that waits out a limit (a hang, a fork bomb) sets a short one instead of the module's.
    Every limit is read from sandbox.cfg at each run (the wall clock, the rlimits), none at start."""
    saved = sandbox.cfg
    sandbox.cfg = saved.model_copy(update=limits)
    try:
        yield sandbox
    finally:
        sandbox.cfg = saved


def pytest_xdist_auto_num_workers(config):
    """`-n auto`: two workers per core. Most tests wait on what they start (a sandboxed pytest, a
    judged run, a server): with one worker per core the cores idled a fifth of the time."""
    return 2 * (os.cpu_count() or 1)


# -- `alone`: tests that run with no other test beside them, across xdist workers ---------------------
# A readers-writer lock on a file the controller creates: every test holds it shared, an `alone` test
# holds it exclusively; a turnstile lock in front keeps a waiting `alone` test from being starved by
# the other workers' stream of shared holders. Every `alone` test is in one xdist group, so one worker
# runs them one after another and keeps its exclusive hold from one to the next: the other workers
# drain (finish what they run, then wait) once, not once per `alone` test.
LOCKS_ENV = "TDD_AGENT_TEST_LOCKS"
ALONE_GROUP = "alone"


def pytest_configure(config):
    if not hasattr(config, "workerinput") and LOCKS_ENV not in os.environ:  # the controller (or no xdist)
        folder = tempfile.mkdtemp(prefix="tdd-agent-test-locks-")
        os.environ[LOCKS_ENV] = folder  # the workers it starts inherit it
        config._tdd_agent_locks = folder
        compile_the_agent()


def compile_the_agent() -> None:
    """The agent's own modules compiled once, as a user's first run leaves them (__pycache__, which
    git ignores): with PYTHONDONTWRITEBYTECODE set (this machine's environment has it) each
    run_task.py the tests start would compile them all again (~0.15 s of CPU each time)."""
    import compileall
    compileall.compile_dir(str(ROOT), maxlevels=0, quiet=1)


def pytest_unconfigure(config):
    _SUITE_LOCK.release()
    folder = getattr(config, "_tdd_agent_locks", None)
    if folder:
        shutil.rmtree(folder, ignore_errors=True)
        os.environ.pop(LOCKS_ENV, None)


def pytest_itemcollected(item):
    """Marks from what a test uses (before `-m` deselects)."""
    names = getattr(item, "fixturenames", ())
    # a copy of the repository, or run_task.py as a subprocess: the CLI as a user types it
    if "clone" in names or ("agent" in names and "loop_agent" not in names):
        item.add_marker(pytest.mark.e2e)
    if "browser" in names:
        item.add_marker(pytest.mark.browser)
    if _alone(item):
        item.add_marker(pytest.mark.xdist_group(ALONE_GROUP))


@pytest.hookimpl(trylast=True)  # after pytest groups the tests by their fixtures' parameters
def pytest_collection_modifyitems(config, items):
    items.sort(key=_start_order)
    _xdist_groups(config, items)


def _alone(item) -> bool:
    return item is not None and item.get_closest_marker("alone") is not None


def _start_order(item) -> int:
    """The longest tests (a real model, a Ray cluster) and those that mostly wait start first, so
    that none of them is the last one running (or the one the `alone` tests wait for) while the
    other workers idle; the `alone` tests come last, when the other workers have little left to
    wait for (xdist keeps this order: --no-loadscope-reorder)."""
    if any(item.get_closest_marker(mark) for mark in ("slow", "ray", "waits")):
        return 0
    return 2 if _alone(item) else 1


def _xdist_groups(config, items):
    """--dist loadgroup sends tests with the same xdist_group mark to one worker by a "@group" suffix
    on their node ids; pytest 9.2 keeps a node id in `_id`, so xdist's `_nodeid` assignment is lost
    (pytest-xdist issue 1386). Until xdist sets it, the suffix is set here."""
    if not hasattr(config, "workerinput") or not config.getvalue("loadgroup"):
        return
    try:
        from _pytest.nodeid import NodeId
    except ImportError:  # pytest before 9.2: xdist's own assignment works
        return
    for item in items:
        groups = sorted({str(m.args[0] if m.args else m.kwargs.get("name", "default"))
                         for m in item.iter_markers("xdist_group")})
        if groups and "@" not in item.nodeid and hasattr(item, "_id"):
            item._id = NodeId.parse(f"{item.nodeid}@{'_'.join(groups)}")


class _SuiteLock:
    """This worker's hold on the suite lock: shared for a test, exclusive for an `alone` test and
    kept while the next test is `alone` too."""

    def __init__(self):
        self.files: tuple = ()
        self.exclusive = False

    def acquire(self, alone: bool) -> None:
        import fcntl
        folder = os.environ.get(LOCKS_ENV)
        if self.files or not folder or not os.environ.get("PYTEST_XDIST_WORKER") or not os.path.isdir(folder):
            return  # held already (an `alone` run goes on), or one process runs the tests
        gate, suite = open(os.path.join(folder, "turnstile"), "a"), open(os.path.join(folder, "suite"), "a")
        fcntl.flock(gate, fcntl.LOCK_EX)
        fcntl.flock(suite, fcntl.LOCK_EX if alone else fcntl.LOCK_SH)
        if not alone:
            fcntl.flock(gate, fcntl.LOCK_UN)
        self.files, self.exclusive = (gate, suite), alone

    def release(self) -> None:
        for lock in reversed(self.files):
            lock.close()  # closing a file drops its flock
        self.files, self.exclusive = (), False


_SUITE_LOCK = _SuiteLock()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item, nextitem):
    _SUITE_LOCK.acquire(_alone(item))
    try:
        return (yield)
    finally:
        if not (_SUITE_LOCK.exclusive and _alone(nextitem)):
            _SUITE_LOCK.release()


@pytest.fixture
def scratch():
    """A temp folder under /tmp that an unprivileged test user can walk into (pytest's own
    tmp_path is private to root, which the basic sandbox layer cannot use as root)."""
    folder = Path(tempfile.mkdtemp(prefix="tdd-agent-test-"))
    folder.chmod(0o755)
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


@dataclass
class AgentRun:
    proc: subprocess.CompletedProcess
    run_dir: Optional[Path]

    @property
    def code(self) -> int:
        return self.proc.returncode

    @property
    def result(self) -> dict:
        return json.loads((self.run_dir / "result.json").read_text())

    @property
    def events(self) -> list[dict]:
        return [json.loads(line) for line in (self.run_dir / "transcript.jsonl").read_text().splitlines()]

    def of_type(self, kind: str) -> list[dict]:
        return [e for e in self.events if e["type"] == kind]

    def transcript_text(self) -> str:
        return (self.run_dir / "transcript.jsonl").read_text()


class Agent:
    """Runs `python run_task.py` in a subprocess with its own config in a scratch folder; or, with
    inprocess=True, the same command line through run_task.main in this process (no interpreter
    start; the real sandbox, judge and HTTP backend all the same). Loop tests use that; exit codes,
    signals and what a terminal shows are tested on the subprocess."""

    def __init__(self, folder: Path, inprocess: bool = False):
        self.folder, self.inprocess = folder, inprocess
        self.config = folder / "agent.yaml"
        self.settings: dict = {"runs_dir": str(folder / "runs"), "sandbox": {"timeout": 30}}

    def write_task(self, name: str, text: str) -> Path:
        path = self.folder / name
        path.write_text(text)
        return path

    def command(self, task: Optional[Path], *args: str) -> list[str]:
        """The command line (without --task when task is None, e.g. with --resume)."""
        self.config.write_text(yaml.safe_dump(self.settings))
        what = ["--task", str(task)] if task else []
        return [sys.executable, str(ROOT / "run_task.py"), *what, "--config", str(self.config), *args]

    def environment(self, extra: Optional[dict] = None) -> dict:
        environ = {k: v for k, v in os.environ.items() if not k.startswith("AGENT_")}
        return {**environ, **(extra or {})}

    def run(self, task: Optional[Path], *args: str, env: Optional[dict] = None, timeout: float = 600) -> AgentRun:
        if self.inprocess:
            return self._run_here(self.command(task, *args), self.environment(env))
        proc = subprocess.run(self.command(task, *args), cwd=self.folder, capture_output=True, text=True,
                              env=self.environment(env), timeout=timeout)
        runs = sorted((self.folder / "runs").glob("*"), key=lambda p: p.stat().st_mtime) if (self.folder / "runs").exists() else []
        return AgentRun(proc, runs[-1] if runs else None)

    def _run_here(self, command: list[str], environ: dict) -> AgentRun:
        import io
        import run_task
        saved_env, saved_cwd = dict(os.environ), os.getcwd()
        out, err = io.StringIO(), io.StringIO()
        try:
            os.environ.clear()
            os.environ.update(environ)
            os.chdir(self.folder)
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                try:
                    code = run_task.main(command[2:])
                except SystemExit as e:  # argparse's usage errors
                    code = e.code if isinstance(e.code, int) else 1
        finally:
            os.chdir(saved_cwd)
            os.environ.clear()
            os.environ.update(saved_env)
        proc = subprocess.CompletedProcess(command, code, out.getvalue(), err.getvalue())
        runs = sorted((self.folder / "runs").glob("*"), key=lambda p: p.stat().st_mtime) if (self.folder / "runs").exists() else []
        return AgentRun(proc, runs[-1] if runs else None)


    def play(self, task: Optional[Path], script: list, *args: str) -> AgentRun:
        """One run against a scripted KoboldCPP that plays `script` as the model's replies."""
        with FakeKoboldCpp(script) as server:
            return self.run(task, "--server", server.url, *args)


@pytest.fixture
def agent(scratch) -> Agent:
    return Agent(scratch)


@pytest.fixture
def loop_agent(scratch) -> Agent:
    """run_task.main in this process: for tests of the loop, not of the process around it."""
    return Agent(scratch, inprocess=True)

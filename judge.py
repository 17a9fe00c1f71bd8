"""A verdict the model's code cannot forge: trusted tests run in a *judge* process that never
runs the model's code; the model's code runs in a confined *worker* that can only answer calls.

Inside a normal pytest run the tested code shares the process with pytest, so it can rewrite the
JUnit report, exit early with status 0 or patch pytest's hooks. Here the judge (pytest with the
plugin in judge_runtime/, on a folder holding only the trusted tests) imports the workspace's
modules as proxies: each call crosses a pipe to the worker, values come back as exact builtins
and every assertion is evaluated in the judge. The judge's folder (tests, report, logs) is
never visible to the worker. See judge_runtime/rpc.py for what crosses and how.

The rule (README, "Judged runs"): nothing but the tests' own code and exact builtin values
decides an assertion; a test's value reaches the model's code only as an argument of a call the
test makes (so comparisons, arithmetic and `in` with a test's value are never forwarded).
What ordinary suites do and the judge supports, and its known limits, are listed there and
shown case by case in tests/test_verdict_rules.py and tests/test_judge_fidelity.py.
"""
from __future__ import annotations

import json
import shutil
from pathlib import Path, PurePosixPath
from typing import Optional

import isolation
import prompts
import runtime_files
from sandbox import Sandbox, TestRun, copy_files, parse_junit, pytest_config_args, summarize

NO_PYCACHE = "/dev/null/pycache"  # a pycache prefix that cannot exist: no bytecode is read or written


def _fresh(folder: Path, mode: int) -> Path:
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    folder.chmod(mode)
    return folder


def _write_tests(folder: Path, tests: dict[str, str]) -> None:
    for rel, content in tests.items():
        path = PurePosixPath(rel)
        if not rel or path.is_absolute() or ".." in path.parts or "\\" in rel:
            raise ValueError(f"test path {rel!r} must be relative and stay inside the tests folder")
        target = folder / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(content, encoding="utf-8")


# In the template of a command a test runs: the folder it runs in and its environment (JSON).
FOLDER_SLOT, ENV_SLOT = "\0folder", "\0env"  # (no real argument holds a NUL)


def pycache_prefix(sandbox: Sandbox) -> str:
    """Where the worker reads bytecode: only our cache's (runtime_files.bytecode), never the
    workspace's; nowhere when the cache could not be made."""
    prefix = runtime_files.bytecode(sandbox.runtime, sandbox.python)
    return str(prefix) if prefix is not None else NO_PYCACHE


def worker_command(sandbox: Sandbox, workspace: Path, writable: list[Path], network: bool, prefix: str) -> list[str]:
    """The worker's argv, confined exactly as a normal test run is (the same layer, binds,
    namespaces and user switch; our runtime copy is readable there) and nothing of the judge's folder."""
    argv = ["-B", "-X", f"pycache_prefix={prefix}", str(_runtime(sandbox) / "worker.py"), str(workspace)]
    return isolation.command(sandbox.confinement, sandbox.python, argv, workspace, writable, network)


def test_command(sandbox: Sandbox, workspace: Path, writable: list[Path], network: bool) -> list[str]:
    """The same confinement for every command a test runs (`python -m tool`, `cat`, a shell), up
    to the command itself, which the judge appends after filling in FOLDER_SLOT and ENV_SLOT."""
    full = isolation.command(sandbox.confinement, sandbox.python, [], workspace, writable, network, [FOLDER_SLOT, ENV_SLOT])
    return full[:-1]  # (without the interpreter isolation.command ends with)


def _runtime(sandbox: Sandbox) -> Path:
    """Our copy of judge_runtime/ in the cache (runtime_files.py): the judge's plugin and the worker."""
    return sandbox.runtime / "judge_runtime"


def run_judged(sandbox: Sandbox, source: Path, tests: dict[str, str], scratch: Path,
               network: Optional[bool] = None, named: Optional[frozenset[str]] = None) -> TestRun:
    """Run the trusted `tests` (relative path -> content) against a fresh copy of the model's
    files in `source`; `scratch` holds the judge's folder (the JUnit report stays in
    scratch/judge/report.xml). network=None means the configured default, as for run_pytest;
    named: the only modules the tests may import from the workspace (None: any it has)."""
    network = sandbox.cfg.network if network is None else network
    scratch = scratch.resolve()
    scratch.mkdir(parents=True, exist_ok=True)
    # A fresh stage the test user (and, as root, the judge's own user) can reach.
    stage = sandbox.stage(scratch, also=(isolation.JUDGE,) if sandbox.confinement.run_as >= 0 else ())
    try:
        return _judge(sandbox, source, tests, scratch, stage, network, named)
    finally:
        if stage.parent != scratch:
            isolation.remove_tree(stage)


def _judge(sandbox: Sandbox, source: Path, tests: dict[str, str], scratch: Path, stage: Path, network: bool,
           named: Optional[frozenset[str]]) -> TestRun:
    cfg, conf = sandbox.cfg, sandbox.confinement
    workspace = stage / "workspace"
    copy_files(source, workspace)
    # The judge's own folder: trusted tests, report, logs. 0700 and its own; never bound into bwrap.
    judge_dir = _fresh(stage / "judge", 0o700)
    tests_dir = judge_dir / "tests"
    tests_dir.mkdir()
    _write_tests(tests_dir, tests)
    (judge_dir / "mp").mkdir()  # multiprocessing's sockets (a test's Manager, forkserver): never in the tests' TMPDIR
    report, log = judge_dir / "report.xml", judge_dir / "pytest.log"
    # The worker's side: its HOME and TMPDIR, and the parent of pytest's basetemp (ours, so the
    # worker can write only inside each test's tmp_path).
    home, tmp = _fresh(stage / "home", 0o755), _fresh(stage / "tmp", 0o755)
    pytest_tmp = _fresh(stage / "pytest", 0o755)
    # The tests' TMPDIR (tempfile.mkdtemp in a test): where the worker sees what they make, as in tmp_path.
    tests_tmp = pytest_tmp / "tmp"
    tests_tmp.mkdir(mode=0o755)
    stage.chmod(0o755)  # ours (not handed over): the worker may not replace pytest's temp root
    isolation.hand_over([workspace, home, tmp], conf.run_as)
    if conf.run_as >= 0:  # one HOME for the tests and the model's code, as in one process (`~/.apprc` alike)
        home.chmod(0o1777)
    # As root the judge starts as root (to start the worker as uid 65534), then drops to a user
    # of its own: its folder and pytest's temp root are that user's, nobody else's.
    judge_uid = isolation.JUDGE if conf.run_as >= 0 else -1
    (judge_dir / "worker.log").touch(0o600)
    isolation.hand_over([judge_dir, pytest_tmp], judge_uid)

    prefix = pycache_prefix(sandbox)
    worker_env = {**isolation.clean_environment(home, tmp, sandbox.python.parent), "PYTHONPYCACHEPREFIX": prefix}
    writable = [workspace, home, tmp, pytest_tmp]
    spec = {"argv": worker_command(sandbox, workspace, writable, network, prefix),
            "test_command": test_command(sandbox, workspace, writable, network),
            "folder_slot": FOLDER_SLOT, "env_slot": ENV_SLOT, "commands_path": str(_runtime(sandbox) / "commands"),
            "env": worker_env, "workspace": str(workspace), "uid": conf.run_as,
            "basetemp": str(pytest_tmp / "basetemp"), "tests_tmp": str(tests_tmp), "mp_tmp": str(judge_dir / "mp"),
            "judge_uid": judge_uid,
            "log": str(judge_dir / "worker.log"), "record": str(judge_dir / "record.json"),
            "test_timeout": per_test_timeout(judged_limits(cfg)), "named": None if named is None else sorted(named)}
    env = {**isolation.clean_environment(home, tests_tmp, sandbox.python.parent),
           "PYTHONPATH": str(_runtime(sandbox)), "JUDGE_SPEC": json.dumps(spec)}
    argv = [sandbox.pytest_main(), "-q", "-p", "no:cacheprovider", "-p", "judge_entry", "--color=no", "--tb=short",
            "--continue-on-collection-errors",
            f"--junitxml={report}", "-o", "junit_logging=out-err", f"--basetemp={pytest_tmp / 'basetemp'}",
            *pytest_config_args(tests_dir), "--"]
    # The judge runs only trusted code: rlimits, timeout and the final process-tree kill as for
    # any run, but no bwrap (it has to start the worker confined itself). The worker inherits
    # the limits; RLIMIT_NPROC is counted for the worker's user.
    judge_conf = isolation.Confinement("basic", -1, runtime=conf.runtime, limits=conf.limits)
    cfg = judged_limits(cfg)
    nproc_also = (judge_uid,) if judge_uid >= 0 else ()
    server = sandbox.judge_runner()  # the judge forked from pytest and our plugin's libraries imported once
    result = server.run(judge_conf, argv[1:], tests_dir, [], env, log, cfg, network, conf.run_as, nproc_also) \
        if server is not None else None
    if server is not None and (result is None or not result.started):
        sandbox.judge_runner_gone()  # later judged runs start cold
    if result is None:  # nothing ran: no warm runner here, or it was gone before the run started
        result = isolation.run(judge_conf, sandbox.python, argv, tests_dir, [], env, log, cfg, network,
                               nproc_user=conf.run_as, nproc_also=nproc_also)
    for name in ("report.xml", "pytest.log", "worker.log", "record.json"):  # kept for a person to read
        if (judge_dir / name).is_file() and not (judge_dir / name).is_symlink():
            shutil.copyfile(judge_dir / name, scratch / name)
    worker_log = isolation.head(judge_dir / "worker.log", 2000)
    if not result.started or (worker_log and not worker_log.startswith(isolation.STARTED)):
        problem = result.problem if not result.started else " ".join(worker_log.split())[:300]
        return TestRun(0, 0, 0, 0, result.exit_code, round(result.seconds, 3), "not_run", prompts.run_not_started(problem))
    junit = parse_junit(report)
    record = _read_record(judge_dir / "record.json")
    if junit is not None and record is not None:  # the judge's own counts decide; JUnit gives the text
        junit = (record_counts(record), junit[1])
    run = summarize(junit if record is not None else None, result.exit_code, result.timed_out, result.seconds, log, cfg)
    run.leftover_processes = result.leftovers_killed
    run.collected = record["collected"] if record is not None else None
    return run


def per_test_timeout(cfg) -> float:
    """Seconds one judged test may take before it fails alone (a test waiting for an event that
    never comes costs that test, not the whole judged run): a third of the run's budget, 5-60 s."""
    return max(5.0, min(60.0, cfg.timeout / 3))


def judged_limits(cfg):
    """The task's limits for the judged run (its CPU and wall budget), where it sets them."""
    update = {k: v for k, v in (("timeout", cfg.judge_timeout), ("cpu_seconds", cfg.judge_cpu_seconds)) if v}
    return cfg.model_copy(update=update) if update else cfg


def _read_record(path: Path) -> Optional[dict]:
    """The judge's record (judge_plugin.Record), or None when the judge did not finish writing it."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    ok = (type(data) is dict and type(data.get("outcomes")) is dict and type(data.get("collection_errors")) is list
          and (data.get("collected") is None or type(data.get("collected")) is int))
    return data if ok else None


def record_counts(record: dict) -> dict[str, int]:
    """Counts per collected item (a parametrized test counts once per parameter); each collection
    error is an error."""
    counts = {"passed": 0, "failed": 0, "errors": len(record["collection_errors"]), "skipped": 0}
    key = {"passed": "passed", "failed": "failed", "error": "errors", "skipped": "skipped"}
    for outcome in record["outcomes"].values():
        counts[key.get(outcome, "errors")] += 1
    return counts

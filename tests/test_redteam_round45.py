"""Red team, round 45 (after b9d2b0e: the judge forked from a warm server, warm.JUDGE_PRELOAD). Each
test is an attack; it FAILS while the attack works (a false "solved", the hidden tests reach the
model's code, a process of the model's outlives its run, or a run reaches a later judged run).

No working attack was found this round (a 30-minute time box). The tests below are held
directions kept as guards: they pass while the warm judge holds.

What was compared (run: a probe test in the judge printing its own state, two warm judged runs of
one bwrap Sandbox and one cold run):
- Identical in the forked and the cold judge: uid/gid 65533, no groups, no capabilities,
  NoNewPrivs, the keyring filter (Seccomp 2, one filter), rlimits (RLIMIT_NPROC from the tasks of
  65534 and 65533 at request time, as cold), sys.path after the plugin's clean-up ([tests,
  stdlib, site-packages]), cwd, TMPDIR/tempfile.gettempdir(), the environment's names, signal
  dispositions and mask, fds, own session; sys.modules differs by _pytest.stepwise alone (the
  server imports every default plugin; cold skips it under -p no:cacheprovider).
- Different, none usable: sys.flags isolated/ignore_environment/safe_path (the server's -I; the
  worker's and a test's commands get their argv from the agent's spec, never from sys.flags), sys.argv[0]
  "-c" (the worker gets the judge's argv only when a test changes it), the judge's parent
  (warm_server.py's cmdline: the keyring filter hex, nothing secret), CPU used at the probe
  (0.12-0.16 s warm vs 0.41 s cold: RLIMIT_CPU counts per process from 0 either way).
- Shared by every forked judge of a Sandbox: the str hash secret (hash("abcdef") equal in both
  warm runs), the address layout, and multiprocessing's authkey (os.urandom at import, no
  at-fork reseed; nothing of the judge uses it). `random` is reseeded after fork (its own
  register_at_fork; different in both runs), tempfile's name sequence checks the pid, rpc's handles
  are counters. The worker sees the hash order of a test's set (rpc_values sends set.__iter__
  order), i.e. low bits of SipHash outputs: no key recovery; and knowing the order decides no
  assertion (the model's code already has the set as it is sent). Hash flooding needs the key
  (ints collide without one, cold too) and ends in a timeout: not solved. The README's
  sentence on a shared hash secret speaks of the plain warm runner; it may say so of the judge's too.

Held directions (reasoned from the code unless marked run):
- State left in the server: none reachable. The server never runs a test nor imports anything
  after it starts; the forked child closes every fd >= 3 (the socket detached first), so nothing
  flows back; the worker (65534, own PID namespace) cannot see it; the judge is trusted code.
  Run: a model module that looks for the server in /proc and signals it, and leaves a setsid'd
  sleeper: test_a_judged_run_reaches_neither_the_judge_server_nor_the_next_run.
- Modules the server imports before the judge plugin's patches that cold imports after them
  (the diff, run: cmd, code, codeop, logging.config, logging.handlers, pdb, socketserver): none
  binds builtins.open, os.open, subprocess.Popen or random.seed at import (tokenize's
  _builtin_open is imported by linecache early on both paths); logging.config's resolvers are
  patched on the module's classes, which works on either path.
- Timeout and Ctrl-C: Runner.run kills the tree below the server (a subreaper, so the judge's and
  spawner's orphans are there) before replying; a stale reply of an interrupted run is skipped by
  its id; a server that does not reply in 10 s more is killed and later runs start cold. Run: a
  judged run that outlasts its wall budget, then an honest run of the same Sandbox:
  test_a_timed_out_judged_run_leaves_nothing_for_the_next.
- Not root and basic with namespaces (judge_applies, unlike warm.applies, needs no root): the
  worker runs as the agent's user in its own namespaces, as the server does; it cannot see the
  server's PID, and the files it could rewrite (the agent user's venv) a cold judge imports too.
- The agent's end of the socket is close-on-exec, but a fork without exec in the agent (a fork
  start method of a process pool after a Sandbox's first judged run) would keep it open, so the
  server would not see the agent die (no PR_SET_PDEATHSIG on the warm path): robustness, not
  reachable by the model's code.
"""
from __future__ import annotations

import os
import textwrap
import uuid
from pathlib import Path

import pytest

import isolation
import warm
from conftest import COLD_LAYERS, layer_sandbox
from judge import run_judged
from test_cross_run_attacks import _pids_with  # (every process whose command line holds a marker)

LIMITS = dict(timeout=12, cpu_seconds=10, memory_mb=1024, file_size_mb=32, max_processes=48)
WARM_JUDGE_LAYERS = [layer for layer in COLD_LAYERS
                     if warm.judge_applies(layer_sandbox(layer, **LIMITS).confinement)]
pytestmark = pytest.mark.skipif(not WARM_JUDGE_LAYERS, reason="no layer here forks the judge from a warm server")


@pytest.fixture(scope="module", params=WARM_JUDGE_LAYERS or ["none"])
def sandbox(request):
    return layer_sandbox(request.param, **LIMITS)


def _judged(sandbox, folder: Path, files: dict[str, str], tests: dict[str, str]):
    workspace = folder / "workspace"
    workspace.mkdir(parents=True, exist_ok=True)
    for old in workspace.iterdir():
        old.unlink()
    for name, code in files.items():
        (workspace / name).write_text(textwrap.dedent(code))
    before = {p for p, pp in isolation.parents().items() if pp == os.getpid()}
    run = run_judged(sandbox, workspace, {k: textwrap.dedent(v) for k, v in tests.items()}, folder / f"judge-{uuid.uuid4().hex[:6]}")
    servers = sandbox.server_pids()
    assert not isolation.descendants(os.getpid(), before | servers), "a process was left behind"
    assert not any(isolation.descendants(pid) for pid in servers), "a process was left behind below a warm runner"
    return run


TESTS = {"test_calc.py": """
    from calc import add
    def test_add():
        assert add(2, 3) == 5
    def test_add_negative():
        assert add(-2, -3) == -5
"""}
GOOD = {"calc.py": "def add(a, b):\n    return a + b\n"}
BROKEN = {"calc.py": "def add(a, b):\n    return a - b\n"}


def test_a_judged_run_reaches_neither_the_judge_server_nor_the_next_run(sandbox, scratch):
    """Run 1's module (imported in the worker) looks for the judge's warm server in /proc and
    signals every process it can see, and leaves a setsid'd, double-forked sleeper that would
    rewrite later copies of calc.py; run 2 (broken) must fail, run 3 (honest) pass, on the same
    server, and the sleeper must be gone after run 1."""
    marker = f"r45-sleeper-{uuid.uuid4().hex[:8]}"
    hostile = {"calc.py": f"""
        import os, signal, subprocess, sys
        for pid in [p for p in os.listdir("/proc") if p.isdigit() and int(p) != os.getpid()]:
            try:
                if b"warm_server" in open(f"/proc/{{pid}}/cmdline", "rb").read():
                    os.kill(int(pid), signal.SIGKILL)
            except OSError:
                pass
        if os.fork() == 0:
            os.setsid()
            if os.fork() == 0:
                code = ("import os, time, glob\\n"
                        "for _ in range(300):\\n"
                        "    for p in glob.glob('/**/workspace/calc.py', recursive=False) + glob.glob('/tmp/**/calc.py', recursive=True):\\n"
                        "        try: open(p, 'w').write('def add(a, b):\\\\n    return a + b\\\\n')\\n"
                        "        except OSError: pass\\n"
                        "    time.sleep(0.1)\\n")
                os.execv(sys.executable, [sys.executable, "-c", code, "{marker}"])
            os._exit(0)
        def add(a, b):
            return a - b
    """}
    first = _judged(sandbox, scratch / "one", hostile, TESTS)
    server = sandbox.server_pids()
    assert first.passed == 0 and first.failed + first.errors >= 1, first
    assert not _pids_with(marker), "run 1's sleeper outlived its judged run"
    assert server and all(os.path.exists(f"/proc/{pid}") for pid in server), "the warm judge server is gone"
    second = _judged(sandbox, scratch / "two", BROKEN, TESTS)
    assert second.failed == 2, second
    third = _judged(sandbox, scratch / "three", GOOD, TESTS)
    assert third.passed == 2 and third.failed == 0 and third.errors == 0, third
    assert sandbox.server_pids() == server, "later runs did not fork from the same server"


def test_a_timed_out_judged_run_leaves_nothing_for_the_next(sandbox, scratch):
    """A judged run that outlasts its wall budget (each test waits past the per-test timeout's
    floor of 5 s; three of them exceed the 12 s run) ends timed out and not solved; nothing stays
    below the server, and the next run of the same Sandbox is judged as usual (broken: failed)."""
    slow = {"calc.py": """
        import time
        def add(a, b):
            time.sleep(4.5)
            return a + b
    """}
    tests = {"test_calc.py": "\n".join(f"from calc import add\ndef test_{i}():\n    assert add({i}, 1) == {i + 1}\n"
                                       for i in range(4))}
    first = _judged(sandbox, scratch / "one", slow, tests)
    assert first.outcome == "timeout" and first.passed < 4, first
    second = _judged(sandbox, scratch / "two", BROKEN, TESTS)
    assert second.failed == 2 and second.passed == 0, second

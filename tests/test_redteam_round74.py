"""Red team, round 74 (the newest code: one `random` generator for the tests and the model's code,
rpc_values.watch_random / random_state / set_random_state, judge_plugin RANDOM, RANDOM_MOVED,
Worker._outgoing "random", _take_random; worker.main random_moved / known_random / outgoing "t";
and the two-way process state of rounds 72-73: what it does not carry). Each attack test asserts
the judge gives no pass and FAILS while the attack works; each control (honest) FAILS while the
false fail stands. Nothing is closed: the file is the report. Time box 30 min. Run as root (judge
uid 65533, worker uid 65534), bwrap layer. 9 of the 10 tests below fail on the code as it is
(the 10th, test_control_draws_interleaved_with_a_callback, is a probe that held).

(a) False passes (plain pytest fails the model's code, the judge passes it):
1. test_a_draw_of_the_models_thread_after_its_answer_is_not_the_tests: the model's Heartbeat
   thread draws from the global generator (`random.random()` through the wrapper: random_moved is
   set) AFTER start() answered. Nothing goes to the judge until the worker's next message; the
   test's own draws meanwhile come from the judge's RANDOM, which the thread never moved, so
   `got == expected` holds; at the test's next call the judge sends its own state (RANDOM_MOVED,
   differs from random_seen) and the worker's draws are overwritten, lost for good. Plain: one
   stream, the test's draws are shifted, it fails. Fix (worker.main / outgoing + judge
   _take_random): note a draw the wrappers see while no question of the judge's is being served
   (rpc.RUNNING/serving count as for decimal: a thread of the model's own, between messages);
   report it with the next message as "random drawn while idle"; the judge, when its own
   RANDOM_MOVED is set at that point (the test drew meanwhile) or when it sends its state over
   a worker state it never took, fails the test (KEPT_BY_THE_WORKER["random"]); the two streams
   cannot be merged afterwards.
2. test_a_draw_on_the_module_generator_object_is_not_noticed: the model's code draws and seeds
   through `random._inst` (`_RNG = random._inst; _RNG.seed(seed); _RNG.shuffle(hand)`): only the
   module's attributes are wrapped, so random_moved stays False, the worker never reports, and
   the test's `random.random() == expected` after the call holds judged (plain: the global
   stream was reseeded). Same with `random.random.__wrapped__()`, `random.Random.random(
   random._inst)`, `importlib.reload(random)` (new unwrapped functions and _inst). Fix
   (worker.outgoing): do not trust the flag for replies to the judge's questions: compare
   `random._inst.getstate()` with known_random at every "r" (once per answer, ~20 us; the flag
   can stay the gate for callback questions), and read `sys.modules["random"]._inst` afresh.
3. test_a_collector_the_model_leaves_off_is_on_for_the_tests: `gc.disable()` in the model's
   `paused()` never undone; the test's `assert gc.isenabled()` reads the judge's collector.
   gc's switch (and thresholds, gc.freeze) is process state that follows neither way.
   Fix: add `gc.isenabled()` (and `gc.get_threshold()`) to worker.process_state and to
   judge_plugin._settings / _TAKE_BACK (gc.enable/disable in the judge; for the judge's own
   safety it may keep collecting while the test sees the model's switch: then fail the test
   instead, KEPT_BY_THE_WORKER).
4. test_an_argv_the_model_rewrites_is_not_the_tests: `sys.argv[1:] = args` in the model's main;
   argv is sent test -> worker only (Worker._outgoing "argv"), never taken back: the test's
   `sys.argv == before` holds judged. Fix: `"argv": list(sys.argv)` in worker.process_state (the
   workspace's `__judged__` argv0 as None, like cwd) and a _take_argv setting sys.argv[:] and
   self.sent["argv"].
5. test_a_path_the_model_adds_is_not_the_tests: `sys.path.insert(0, folder)` in a plugin loader
   never undone; the test's `sys.path == before` holds judged. The judge must not import from a
   folder the model's code chose, so it cannot take this: report the model's additions
   (sys.path minus path_added/the start entries) in process_state and fail the test
   (KEPT_BY_THE_WORKER["path"]) when they change.
6. test_a_signal_handler_the_model_leaves_is_not_the_tests: `signal.signal(SIGTERM, handler)`
   in the model's context manager never put back; `signal.getsignal(SIGTERM) == before` holds
   judged. A handler is code: not takeable; report the worker's handlers that changed
   (signal.getsignal of the catchable signals: SIG_DFL/SIG_IGN/other) and fail the test when
   they differ from what the test set (KEPT). Same family, not written: sys.excepthook,
   threading.excepthook, sys.settrace/setprofile, warnings.filters, atexit, logging's root level
   and handlers (stated only for named loggers' levels), locale.setlocale, mimetypes.add_type.

(b) False fails (honest code passes plain, fails judged):
7. test_control_the_collector_is_off_inside_paused: the honest face of 3: inside the model's
   `gc_paused()` the test checks `not gc.isenabled()`: the judge's collector is on. Fix as 3.
8. test_control_an_excepthook_the_model_installs: `prettyerr.install()` sets sys.excepthook (rich,
   pretty_errors style); the test's `sys.excepthook is not sys.__excepthook__` fails judged. A
   hook is code the judge will not run: at least fail with a message that says so (KEPT, as 6)
   and state it in the README's limits; today it is a silent wrong answer.
9. test_control_a_random_function_pickled_by_the_model: the test hands `random.randint` to the
   model's job queue, which pickles its callables: the judge pickles the test's function for the
   model's code (rpc_policy._pickle_for_the_model), and the judge's watch_random wrapper is a
   function whose `__module__` is `_judge_rpc_values` and qualname `Random.randint`: PicklingError
   ("attribute lookup Random.randint on _judge_rpc_values failed"). By reading, the worker's own
   wrappers fail the same way for the model's `pickle.dumps(random.choice)` or
   `ProcessPoolExecutor.submit(random.randint, ...)`. Also `random.random.__self__` is gone (AttributeError). Fix (rpc_values.watch_random):
   `draw.__module__ = "random"`, `draw.__qualname__ = name` (pickle then finds the wrapper itself
   as `random.<name>` and saves it by reference), and `draw.__self__ = real.__self__`.

(c) Probed and held: test_control_draws_interleaved_with_a_callback (the model draws, a test's
callback draws, the model draws again, twice: one stream judged as plain; the callback's reply
carries the judge's state, the worker's follow applies it, "t" on the final answer brings the
model's draws back). Read, not written (time box): a new worker (revive) gets the judge's state
(random_seen None, RANDOM_MOVED set) before the re-import; the judge's own machinery draws
nothing from the global generator (tempfile's own Random, no random.* in judge_runtime); Random
subclass instances, SystemRandom and secrets are separate from the module's generator in a plain
run too (no difference); a state taken from the worker that set_random_state refuses lands in
KEPT_BY_THE_WORKER (fails); a bound method taken before the wrappers: nothing in the stdlib binds
random's functions at import (only `Random`/`SystemRandom` classes), and the worker wraps before
any model code; a test's patch of `random.random`/`random.Random.random` crosses as any library
patch. Not probed: the test's `builtins.__import__` (area 3); a stub the fake returns that is a
ModuleType means "import your own" (stated, round 72), a false fail for a
`types.ModuleType("ujson")` stub.

Closed (same session; each test named fails on the code before, checked by taking the fix out):
1: a draw of a thread of the model's while the test drew too fails the test (the worker notes
that the judge's state overwrote unreported draws: "diverged"; the judge refuses a state when its
own generator moved since: judge_plugin._take_random). 2: the worker compares the generator's
state at every message (no wrappers there: code may go round them). 3, 7: the collector's switch
goes both ways (judge_plugin._settings, worker.process_state "gc"). 4: argv comes back
(_take_argv). 5: a folder the model's code adds to sys.path (not its own workspace again) fails
the test (_take_path: the judge imports nothing from a folder the model chose). 6: a signal
handler the model's code sets fails the test (_take_signals; SIGINT, SIGTERM, SIGHUP, SIGUSR1/2,
SIGALRM, SIGCHLD, SIGPIPE). 9: the judge's wrappers of random's functions pickle by name
(random.randint). Stated (strict xfail, README): 8, sys.excepthook set by the model's code is the
worker's; the other process-wide hooks of (a) 6 (threading.excepthook, settrace, warnings
filters, atexit, the root logger, locale, mimetypes) are the worker's too, not followed.
"""
from __future__ import annotations

import pytest

from conftest import RULE_LAYERS, on_layers
from test_redteam_round59 import fails_plain_and_judged
from test_verdict_rules import honest, judged, plain, sandbox  # noqa: F401 - sandbox is a fixture

pytestmark = on_layers(RULE_LAYERS)


# ---------------------------------------------------------------------------------------------
# 1. A draw of a thread of the model's made after its answer reaches the tests only with the
# worker's next message: the test's own draws meanwhile come from a stream the draw never moved.

HEARTBEAT = {"heartbeat.py": """
    import random
    import threading

    class Heartbeat:
        def __init__(self, period):
            self.period, self.beats, self.jitter = period, 0, 0.0
            self._stop = threading.Event()
            self._thread = threading.Thread(target=self._run, daemon=True)
            self._thread.start()

        def _run(self):
            while not self._stop.wait(self.period):
                self.beats += 1
                self.jitter = random.random() * self.period  # wrong: the global generator, the caller's seeded stream

        def stop(self):
            self._stop.set()
            self._thread.join()
            return self.beats

    def start(period):
        return Heartbeat(period)
"""}


def test_a_draw_of_the_models_thread_after_its_answer_is_not_the_tests(sandbox, scratch):
    tests = {"test_heartbeat.py": """
        import random
        import time
        import heartbeat
        def test_the_heartbeat_leaves_the_seeded_stream_alone():
            random.seed(7)
            expected = [random.random() for _ in range(3)]
            random.seed(7)
            beat = heartbeat.start(0.02)
            time.sleep(0.5)
            got = [random.random() for _ in range(3)]
            assert beat.stop() > 0
            assert got == expected
    """}
    fails_plain_and_judged(sandbox, scratch, HEARTBEAT, tests, failed=1)


# ---------------------------------------------------------------------------------------------
# 2. The garbage collector's switch is process state too (gc.disable / gc.enable), and follows
# neither way.

GC_LEFT_OFF = {"gcutil.py": """
    import contextlib
    import gc

    @contextlib.contextmanager
    def paused():
        gc.disable()
        yield
        # wrong: the collector is never enabled again
"""}


def test_a_collector_the_model_leaves_off_is_on_for_the_tests(sandbox, scratch):
    tests = {"test_gcutil.py": """
        import gc
        import gcutil
        def test_paused_turns_the_collector_back_on():
            with gcutil.paused():
                pass
            assert gc.isenabled()
    """}
    fails_plain_and_judged(sandbox, scratch, GC_LEFT_OFF, tests, failed=1)


GC_OK = {"gcutil.py": """
    import contextlib
    import gc

    @contextlib.contextmanager
    def paused():
        was = gc.isenabled()
        gc.disable()
        try:
            yield
        finally:
            if was:
                gc.enable()
"""}


def test_control_the_collector_is_off_inside_paused(sandbox, scratch):
    tests = {"test_gcutil.py": """
        import gc
        import gcutil
        def test_paused():
            with gcutil.paused():
                assert not gc.isenabled()
            assert gc.isenabled()
    """}
    honest(sandbox, scratch, GC_OK, tests, passed=1)


# ---------------------------------------------------------------------------------------------
# 3. sys.argv follows the test into the worker, never back.

CLI = {"cli.py": """
    import argparse
    import sys

    def main(args):
        sys.argv[1:] = args  # wrong: rewrites the caller's sys.argv
        parser = argparse.ArgumentParser()
        parser.add_argument("--count", type=int, default=1)
        return parser.parse_args().count
"""}


def test_an_argv_the_model_rewrites_is_not_the_tests(sandbox, scratch):
    tests = {"test_cli.py": """
        import sys
        import cli
        def test_main_leaves_sys_argv_alone():
            before = list(sys.argv)
            assert cli.main(["--count", "3"]) == 3
            assert sys.argv == before
    """}
    fails_plain_and_judged(sandbox, scratch, CLI, tests, failed=1)


# ---------------------------------------------------------------------------------------------
# 4. sys.path: what the model's code adds stays the worker's.

PLUGINS = {"plugins.py": """
    import importlib
    import sys

    def load(folder, name):
        sys.path.insert(0, str(folder))  # wrong: never taken out again
        return importlib.import_module(name).VALUE
"""}


def test_a_path_the_model_adds_is_not_the_tests(sandbox, scratch):
    tests = {"test_plugins.py": """
        import sys
        import plugins
        def test_load_leaves_sys_path_alone(tmp_path):
            (tmp_path / "plug_a.py").write_text("VALUE = 5\\n")
            before = list(sys.path)
            assert plugins.load(str(tmp_path), "plug_a") == 5
            assert sys.path == before
    """}
    fails_plain_and_judged(sandbox, scratch, PLUGINS, tests, failed=1)


# ---------------------------------------------------------------------------------------------
# 5. A signal handler the model's code installs is the worker's.

SHUTDOWN = {"shutdown.py": """
    import contextlib
    import signal

    @contextlib.contextmanager
    def graceful():
        stop = []
        signal.signal(signal.SIGTERM, lambda *args: stop.append(1))  # wrong: the caller's handler is never put back
        yield stop
"""}


def test_a_signal_handler_the_model_leaves_is_not_the_tests(sandbox, scratch):
    tests = {"test_shutdown.py": """
        import signal
        import shutdown
        def test_graceful_puts_the_handler_back():
            before = signal.getsignal(signal.SIGTERM)
            with shutdown.graceful():
                pass
            assert signal.getsignal(signal.SIGTERM) == before
    """}
    fails_plain_and_judged(sandbox, scratch, SHUTDOWN, tests, failed=1)


# ---------------------------------------------------------------------------------------------
# 6. sys.excepthook the model's code installs.

HOOK = {"prettyerr.py": """
    import sys

    def _show(kind, value, tb):
        sys.__excepthook__(kind, value, tb)

    def install():
        sys.excepthook = _show
"""}


@pytest.mark.xfail(strict=True, reason="stated (README): sys.excepthook the model's code sets is the worker's (the judge runs no hook of the model's)")
def test_control_an_excepthook_the_model_installs(sandbox, scratch):
    tests = {"test_prettyerr.py": """
        import sys
        import prettyerr
        def test_install(monkeypatch):
            monkeypatch.setattr(sys, "excepthook", sys.__excepthook__)
            prettyerr.install()
            assert sys.excepthook is not sys.__excepthook__
    """}
    honest(sandbox, scratch, HOOK, tests, passed=1)


# ---------------------------------------------------------------------------------------------
# 7. A draw that does not go through the module's functions (the generator itself) is never
# noticed by the worker's wrappers.

DEALER = {"dealer.py": """
    import random

    _RNG = random._inst  # (the module's own generator object)

    def deal(deck, seed):
        _RNG.seed(seed)  # wrong: reseeds the caller's global stream
        hand = list(deck)
        _RNG.shuffle(hand)
        return hand[:5]
"""}


def test_a_draw_on_the_module_generator_object_is_not_noticed(sandbox, scratch):
    tests = {"test_dealer.py": """
        import random
        import dealer
        def test_deal_is_reproducible_and_leaves_the_global_stream_alone():
            random.seed(1)
            expected = random.random()
            random.seed(1)
            assert dealer.deal(range(52), 3) == dealer.deal(range(52), 3)
            assert random.random() == expected
    """}
    fails_plain_and_judged(sandbox, scratch, DEALER, tests, failed=1)


# ---------------------------------------------------------------------------------------------
# 8. The wrappers are functions of the judge's module: the worker's `random.randint` no longer
# pickles (a job queue that stores its callables).

JOBS = {"jobs.py": """
    import pickle

    class Queue:
        def __init__(self):
            self._blobs = []

        def push(self, func, *args):
            self._blobs.append(pickle.dumps((func, args)))

        def run_all(self):
            out = []
            for blob in self._blobs:
                func, args = pickle.loads(blob)
                out.append(func(*args))
            return out
"""}


def test_control_a_random_function_pickled_by_the_model(sandbox, scratch):
    tests = {"test_jobs.py": """
        import random
        import jobs
        def test_runs_a_stdlib_job():
            q = jobs.Queue()
            q.push(random.randint, 1, 6)
            q.push(max, 3, 4)
            got = q.run_all()
            assert 1 <= got[0] <= 6 and got[1] == 4
    """}
    honest(sandbox, scratch, JOBS, tests, passed=1)


# ---------------------------------------------------------------------------------------------
# 9. Probe: draws interleaved between the model's code and a test's callback are one stream.

INTERLEAVE = {"mix.py": """
    import random

    def mix(hook):
        a = random.random()
        hook()
        b = random.random()
        hook()
        return [a, b]
"""}


def test_control_draws_interleaved_with_a_callback(sandbox, scratch):
    tests = {"test_mix.py": """
        import random
        import mix
        def test_one_stream():
            random.seed(11)
            stream = [random.random() for _ in range(5)]
            random.seed(11)
            seen = []
            got = mix.mix(lambda: seen.append(random.random()))
            assert [got[0], seen[0], got[1], seen[1]] == stream[:4]
            assert random.random() == stream[4]
    """}
    honest(sandbox, scratch, INTERLEAVE, tests, passed=1)

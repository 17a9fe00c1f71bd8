"""Red team, round 75 (the newest code: process state both ways, worker.py process_state /
state_changes / _AT_THE_ANSWER / outgoing "t" / follow + follow_state / this_thread.serving;
judge_plugin Worker._from_the_model, _TAKE_BACK, _take_*, KEPT_BY_THE_WORKER, RANDOM/RANDOM_MOVED).
Each attack test asserts the judge gives no pass and FAILS while the attack works; each control
(honest) FAILS while the false fail stands. Nothing is closed: the file is the report. Time box
25 min. Run as root (judge uid 65533, worker uid 65534), bwrap layer.

6 of the 8 tests below fail on the code as it is (the last two are probes that held).

(a) False passes (plain pytest fails the model's code, the judge passes it):
1. test_a_signal_handler_before_a_callback_that_draws_is_forgotten: the model's run() sets a
   SIGTERM handler (never put back), then calls the test's `pause()` callback. The callback's
   question leaves "signals"/"path" out (_AT_THE_ANSWER), but the judge's reply carries "s" (the
   callback drew from random: any state of the test's will do), and worker.follow then does
   `known.update(state())`: the handler becomes "known", and the answer reports nothing. (Checked:
   with a callback that changes nothing of the test's, the answer reports it and the test fails.)
2. test_a_path_added_before_a_callback_from_the_models_thread_is_forgotten: the same with
   sys.path.insert and a callback made from a ThreadPoolExecutor thread of the model's: that
   thread has no `this_thread.settings`, so its reply is followed in full even without "s"
   (follow_state(None); known.update(state())). No test state change needed at all. (Checked: the
   same callback called in the serving thread is caught.)
   Fix for 1-2 (worker.follow): never take the worker's own state into `known` there. Update
   `known` only with the parts the judge's state just set (compare state() before and after
   follow_state, take only the keys follow_state changed), and never "signals"/"path" outside an
   answer; or compute `state_changes(known, state())` before follow_state and keep them pending
   for the next message.
3. test_a_cwd_a_models_thread_changes_between_calls_is_absorbed: a thread of the model's chdirs
   after start() answered. The test's next call carries "s" (here a monkeypatch.setenv; any
   state): follow -> follow_state -> `known.update(state())` takes the worker's new cwd as known,
   so nothing is reported, and the test's `os.getcwd() == before` holds judged. For the
   environment it is worse: follow_state's "env" rebuild (clear + base_env + the test's diff)
   wipes the thread's variable in the worker too. Fix (worker.follow): before follow_state, take
   `state_changes(known, state())` (what changed since the last message, by a thread of the
   model's) and send them with the next message (or fail the test, as "diverged", where the
   judge's state sets the same part); apply the test's env as a diff on the worker's environ,
   not a rebuild.
5. test_a_sigwinch_handler_the_model_leaves_is_not_the_tests: worker._WATCHED_SIGNALS is 8
   signals; SIGWINCH (a TUI's resize handler), SIGTSTP, SIGCONT, SIGQUIT, SIGURG, SIGXCPU ... are
   not looked at: a handler the model's code leaves there is never reported. Fix
   (worker.signal_handlers): all of signal.valid_signals() but SIGKILL/SIGSTOP (getsignal is
   cheap, and it runs only at answers).
6. test_a_gc_threshold_the_model_leaves_is_not_the_tests: only the collector's switch follows;
   gc.set_threshold by the model's code stays the worker's (the test's gc.get_threshold() reads the
   judge's). Fix: "gc" as [isenabled(), get_threshold()] in worker.process_state and
   judge_plugin._settings, _take_gc setting both (gc.freeze/get_freeze_count: same family).

(b) False fails (honest code passes plain, fails judged):
4. test_control_a_seed_while_a_models_thread_draws: the model's module starts a flusher thread
   that draws jitter from the global generator (as retry/backoff libraries do); the test does
   nothing with random but an autouse `random.seed(0)`. Plain: the seed simply wins, one stream,
   the test passes. Judged: the first call carries "random", the worker's generator moved since
   its last report, follow_state sets diverged, the answer says "diverged" ->
   KEPT_BY_THE_WORKER["random"] -> the test fails ("the tests and a thread of the model's code
   drew ... at the same time"). A seed or setstate by the test is not a draw: whatever the thread
   drew before it is overwritten in a plain run too. Fix (rpc_values.watch_random +
   Worker._outgoing + worker.follow_state): note whether the test DREW since its last
   seed/setstate (seed and setstate clear the flag, a draw sets it); send the state with a
   "reset" mark when it did not, and let the worker set it without marking diverged (the same at
   a test's teardown `random.setstate(saved)`).

(c) Probed and held: test_a_change_before_an_error_in_pytest_raises (the model's chdir + environ
change followed by ValueError: the error reply carries "t" too, both come back through
pytest.raises); test_control_nested_callbacks_and_the_decimal_context (test -> model -> test
callback -> model again: the inner call's prec is the outer's 6, the serving counter goes 1, 2,
1, 0 and the outer's context comes back to the test). Read, not written (time box): the serving
counter goes down only on an "r" with serving > 0, and the only refusal before follow in _serve
(opaque_found) happens on the guarded side only; a KeyboardInterrupt/SystemExit raised by the
model's code after a change is an "e" reply, which runs outgoing like any message ("t" taken),
and KeyboardInterrupt becomes FromTheModel; a revived worker gets the judge's whole state
(sent/settings_seen reset, random_seen None with RANDOM_MOVED set), its `known` is its fresh
start. Not tried: os.putenv/os.unsetenv by the model's code (not in os.environ: a subprocess the
judge starts for the test does not see them, one a plain run starts does); `os.environ = {...}`
rebound by the model's code (its diff is taken into the judge's real environ, where plain the
test's os.environ is that dict); asyncio's event loop policy, sys.setswitchinterval,
faulthandler.enable, signal.pthread_sigmask / set_wakeup_fd / setitimer by the model's code
(process state not followed, same family as (a) 5-6).

Closed (same session; each test named fails on the code before, checked by taking the fix out):
1, 2, 3: the worker keeps what the model's code changed and has not reported yet when the judge's
state comes (worker.follow: `unreported`), reports it with its next message, and applies the
test's environment changes on top of the model's (no rebuild that wipes them). 5: every named
signal's handler is watched (signal.Signals but SIGKILL, SIGSTOP; only at an answer). 6: the
collector's thresholds go with its switch, both ways. 4: a seed or setstate by the test since it
last drew is sent as a reset ("random_reset"): it wins over a thread's draws, as in a plain run.
Not tried (the report's list): os.putenv/unsetenv, os.environ rebound to a dict, asyncio's policy,
setswitchinterval, faulthandler, pthread_sigmask, set_wakeup_fd, setitimer.
"""
from __future__ import annotations

from conftest import RULE_LAYERS, on_layers
from test_redteam_round59 import fails_plain_and_judged
from test_verdict_rules import honest, judged, plain, sandbox  # noqa: F401 - sandbox is a fixture

pytestmark = on_layers(RULE_LAYERS)


# ---------------------------------------------------------------------------------------------
# 1. A signal handler set before a callback whose reply carries the test's state: follow() takes
# the worker's whole state as "known" (known.update(state())), signals and path included, which
# the callback's question left out (_AT_THE_ANSWER): the answer then sees nothing changed.

GRACEFUL = {"jobs.py": """
    import signal

    def run(jobs, pause):
        stop = []
        signal.signal(signal.SIGTERM, lambda *args: stop.append(1))  # wrong: the caller's handler is never put back
        done = []
        for job in jobs:
            if stop:
                break
            done.append(job * 2)
            pause()
        return done
"""}


def test_a_signal_handler_before_a_callback_that_draws_is_forgotten(sandbox, scratch):
    tests = {"test_jobs.py": """
        import random
        import signal
        import jobs
        def pause():
            random.random()  # (a jittered pause: the test's generator moves)
        def test_run_puts_the_handler_back():
            before = signal.getsignal(signal.SIGTERM)
            assert jobs.run([1, 2], pause) == [2, 4]
            assert signal.getsignal(signal.SIGTERM) == before
    """}
    fails_plain_and_judged(sandbox, scratch, GRACEFUL, tests, failed=1)


# ---------------------------------------------------------------------------------------------
# 2. The same with sys.path and a callback made from a thread of the model's own: that thread has
# no `settings` yet, so the reply is followed in full (follow_state(None); known.update(state())).

POOLED = {"plugins.py": """
    import importlib
    import sys
    from concurrent.futures import ThreadPoolExecutor

    def load_all(folder, names, on_loaded):
        sys.path.insert(0, str(folder))  # wrong: never taken out again
        values = [importlib.import_module(name).VALUE for name in names]
        with ThreadPoolExecutor(2) as pool:
            list(pool.map(on_loaded, values))
        return len(values)
"""}


def test_a_path_added_before_a_callback_from_the_models_thread_is_forgotten(sandbox, scratch):
    tests = {"test_plugins.py": """
        import sys
        import plugins
        def test_load_all_leaves_sys_path_alone(tmp_path):
            (tmp_path / "plug_b.py").write_text("VALUE = 5\\n")
            seen = []
            def on_loaded(value):
                seen.append(value)
            before = list(sys.path)
            assert plugins.load_all(str(tmp_path), ["plug_b"], on_loaded) == 1
            assert seen == [5]
            assert sys.path == before
    """}
    fails_plain_and_judged(sandbox, scratch, POOLED, tests, failed=1)


# ---------------------------------------------------------------------------------------------
# 3. A change a thread of the model's makes between messages (after its call answered) is
# absorbed by the next question's follow() when that question carries any state of the test's:
# follow_state, then known.update(state()), nothing reported.

EXPORTER = {"exporter.py": """
    import os
    import threading
    import time

    def start(folder):
        def run():
            time.sleep(0.2)
            os.chdir(folder)  # wrong: the process's working directory, the caller's too
            with open("out.txt", "w") as f:
                f.write("ok")
        thread = threading.Thread(target=run, daemon=True)
        thread.start()
        return thread

    def result(folder):
        with open(os.path.join(folder, "out.txt")) as f:
            return f.read()
"""}


def test_a_cwd_a_models_thread_changes_between_calls_is_absorbed(sandbox, scratch):
    tests = {"test_exporter.py": """
        import os
        import time
        import exporter
        def test_export_leaves_the_cwd_alone(tmp_path, monkeypatch):
            before = os.getcwd()
            exporter.start(str(tmp_path))
            time.sleep(1.0)
            monkeypatch.setenv("EXPORT_FORMAT", "txt")  # (any state of the test's: "s" on the next question)
            assert exporter.result(str(tmp_path)) == "ok"
            assert os.getcwd() == before
    """}
    fails_plain_and_judged(sandbox, scratch, EXPORTER, tests, failed=1)


# ---------------------------------------------------------------------------------------------
# 4. "diverged" when the test only seeded: a thread of the model's draws (jitter) and the test's
# autouse fixture calls random.seed(0): plain, the seed simply wins (one stream); judged, the
# worker sees its generator moved since its last report and answers "diverged": the test fails.

FLUSHER = {"metrics.py": """
    import random
    import threading
    import time

    _state = {"flushes": 0}

    def _flush_loop():
        while True:
            time.sleep(0.005 + random.random() * 0.005)  # jitter, from the global generator (as many libraries do)
            _state["flushes"] += 1

    threading.Thread(target=_flush_loop, daemon=True).start()

    def flushes():
        return _state["flushes"]
"""}


def test_control_a_seed_while_a_models_thread_draws(sandbox, scratch):
    tests = {"test_metrics.py": """
        import random
        import time
        import pytest
        import metrics
        @pytest.fixture(autouse=True)
        def seeded():
            random.seed(0)
        def test_it_flushes():
            first = metrics.flushes()
            time.sleep(0.2)
            assert metrics.flushes() > first
    """}
    honest(sandbox, scratch, FLUSHER, tests, passed=1)


# ---------------------------------------------------------------------------------------------
# 5. Signals outside worker._WATCHED_SIGNALS: SIGWINCH (a terminal UI's resize handler).

RESIZE = {"tui.py": """
    import contextlib
    import signal

    @contextlib.contextmanager
    def screen():
        sizes = []
        signal.signal(signal.SIGWINCH, lambda *args: sizes.append(1))  # wrong: never put back
        yield sizes
"""}


def test_a_sigwinch_handler_the_model_leaves_is_not_the_tests(sandbox, scratch):
    tests = {"test_tui.py": """
        import signal
        import tui
        def test_screen_puts_the_handler_back():
            before = signal.getsignal(signal.SIGWINCH)
            with tui.screen():
                pass
            assert signal.getsignal(signal.SIGWINCH) == before
    """}
    fails_plain_and_judged(sandbox, scratch, RESIZE, tests, failed=1)


# ---------------------------------------------------------------------------------------------
# 6. The collector's thresholds (gc.set_threshold): only its switch follows.

GC_TUNED = {"gctune.py": """
    import contextlib
    import gc

    @contextlib.contextmanager
    def bulk():
        gc.set_threshold(100000, 50, 50)  # wrong: the caller's thresholds are never put back
        yield
"""}


def test_a_gc_threshold_the_model_leaves_is_not_the_tests(sandbox, scratch):
    tests = {"test_gctune.py": """
        import gc
        import gctune
        def test_bulk_puts_the_thresholds_back():
            before = gc.get_threshold()
            with gctune.bulk():
                pass
            assert gc.get_threshold() == before
    """}
    fails_plain_and_judged(sandbox, scratch, GC_TUNED, tests, failed=1)


# ---------------------------------------------------------------------------------------------
# 7. Probe: a change the model's code makes before it raises (the error reply carries "t").

RAISING = {"leaky2.py": """
    import os

    def build(folder):
        os.chdir(folder)  # wrong: not put back on the error path
        os.environ["BUILD_STAGE"] = "failed"
        raise ValueError("no sources")
"""}


def test_a_change_before_an_error_in_pytest_raises(sandbox, scratch):
    tests = {"test_leaky2.py": """
        import os
        import pytest
        import leaky2
        def test_build_fails_cleanly(tmp_path):
            before = os.getcwd()
            with pytest.raises(ValueError):
                leaky2.build(str(tmp_path))
            assert os.getcwd() == before
            assert "BUILD_STAGE" not in os.environ
    """}
    fails_plain_and_judged(sandbox, scratch, RAISING, tests, failed=1)


# ---------------------------------------------------------------------------------------------
# 8. Probe: nested callbacks (test -> model -> test callback -> model) and the decimal context of
# the serving thread: the inner call's precision is the test's, the outer call's change comes back.

NESTED = {"nest.py": """
    import decimal

    def outer(hook):
        decimal.getcontext().prec = 6  # (documented: sets the caller's precision)
        return hook()

    def inner():
        return str(decimal.Decimal(1) / 3)
"""}


def test_control_nested_callbacks_and_the_decimal_context(sandbox, scratch):
    tests = {"test_nest.py": """
        import decimal
        import nest
        def test_nested():
            decimal.getcontext().prec = 28
            got = nest.outer(lambda: nest.inner())
            assert got == "0.333333"
            assert decimal.getcontext().prec == 6
            assert str(decimal.Decimal(2) / 3) == "0.666667"
            decimal.getcontext().prec = 28
    """}
    honest(sandbox, scratch, NESTED, tests, passed=1)

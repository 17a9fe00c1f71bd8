"""Red team, round 79: the judge's new "kept" check (c55b5b4: worker._kept_readers /
_posix_readers / kept_state, the "kept" part of worker.process_state, judge_plugin._take_kept ->
KEPT_BY_THE_WORKER). On the JUDGE ALONE (`judged` / fails_plain_and_judged / honest; every plain
outcome is checked by the helpers). Each ATTACK asserts the judge gives no pass and FAILS while the
attack works; each CONTROL asserts an honest suite passes judged and FAILS while the false fail
stands. Run as root (judge uid 65533, worker 65534), bwrap layer, Python 3.11. Time box 30 min.
Nothing is closed: the file is the report.

16 of the 22 tests fail on the code as it is: the 9 attacks of (a) and the 7 controls of (b);
the 6 probes of (c) pass.

(a) False passes (plain pytest fails the model's code; the judge alone passes it):
1. test_a_signal_mask_set_around_the_tests_callback, test_a_switch_interval_set_around_the_tests_callback:
   a change made for a call's length, with the test's callback run inside it. worker.main's
   outgoing() calls state(answer="r" in msg): a callback question ("q") carries no "kept" (nor
   "signals"/"path"), and by the answer the model's code has undone it. Plain, the callback (test
   code) runs with the model's mask / switch interval; judged, with the judge's. Fix: read
   kept_state() at callback questions too and send it; the judge TAKES what it can for the
   callback's length in the thread that runs it (pthread_sigmask(SIG_SETMASK), setswitchinterval;
   put back when it replies) and fails the test (KEPT_BY_THE_WORKER) for what it cannot (nice,
   rlimits, timers, hooks, policy, streams). Failing on all of them would false-fail honest
   `with deadline(): callback()`-style code, so take, do not fail, where possible.
2. test_a_thread_of_the_models_changes_the_switch_interval_after_the_answer: kept state is read
   only when the worker sends an answer; a thread of the model's that changes it after its call
   answered, in the session's last test (or any test that does not call the model's code again),
   is never reported. Fix: read kept_state() (and process_state) once more at the end of each
   test (judge_plugin: a "state" question to the worker in pytest_runtest_makereport/teardown of
   every test, or the worker sends it unasked from a watcher thread when it changes) and at
   session end before the record is written.
3. test_a_watchdog_left_armed_ends_the_process_after_the_answer: faulthandler.dump_traceback_later
   (exit=True) left armed is not among the readers (not readable); the worker ends 0.3 s after its
   answer, the test passes, judge_plugin.pytest_runtest_setup's WORKER.revive() starts a new one
   for the next test. Plain: pytest's own process ends (exit 1): nothing passes. (Same for any
   `threading.Timer(t, os._exit)`.) Fix: a worker that ended (or is found dead at the next setup)
   fails the test that ran last (and the rest of the module), as a plain run would; read at the
   end of each test whether the worker still lives; wrap faulthandler.dump_traceback_later /
   cancel_ in the worker to know that one is pending and fail at an answer.
4. test_an_environ_whose_class_the_model_swapped: `os.environ.__class__ = Sub` (a subclass of
   os._Environ whose __setitem__ never putenv()s) keeps the identity the reader checks
   ("os.environ (rebound)": `os.environ is environ0`). Plain, the test's monkeypatch.setenv never
   reaches its child; judged the judge's real os.environ does (judge_plugin._command_environment).
   Fix: the reader also compares type(os.environ) (and the instance's __dict__ keys: encodekey,
   decodekey, encodevalue, decodevalue are instance attributes).
5. test_os_putenv_replaced_by_the_model: `os.putenv = lambda k, v: None`: os._Environ.__setitem__
   calls the module global `putenv`, so every later os.environ write stays out of the C
   environment; the same hole (children). Fix: read `os.putenv is putenv0 and os.unsetenv is
   unsetenv0` (the C functions bound at load) among _kept_readers, more generally compare a small
   table of the standard library's process-wide functions (os.putenv/unsetenv, the stream
   objects' methods, time.time, ...) by identity at answers.
6. test_sys_stdout_silenced_in_place: `sys.stdout.write = lambda t: len(t)` on the worker's
   Capture: the reader is `sys.stdout is out`, the identity holds. Plain the test's own print is
   silenced (pytest's CaptureIO has a __dict__ too), judged capsys sees it. Fix: Capture with
   __slots__ (and no __dict__) so no attribute can be set on it, or the reader also checks
   `not vars(out) and not vars(err)`.
7. test_a_closed_event_loop_left_current, test_a_fresh_default_policy_drops_the_tests_loop:
   _kept_readers' loop_policy() reads only the policy's class module (asyncio.unix_events passes):
   a new DefaultEventLoopPolicy() instance (the test's current loop lost) and a closed loop left
   current (asyncio.set_event_loop(loop); loop.close(): the classic run-sync bug; the test's
   get_event_loop() then raises "Event loop is closed" plain) are invisible. Fix: read the
   policy's identity (id of asyncio.events._event_loop_policy, None kept as None) and the serving
   thread's current loop (policy._local._loop: None or its identity and is_closed()).

(b) False fails (honest code: its suite passes plain; the judge fails it):
8. test_control_a_colorama_like_init_at_import, test_control_a_colorama_like_init_in_main:
   colorama.init() on Linux wraps sys.stdout/sys.stderr in a StreamWrapper whenever stdout is not
   a tty (always under pytest's capture: AnsiToWin32.should_wrap, strip=True), at import in most
   CLI scripts (`from colorama import init; init()`) or in main(). The "sys.stdout or sys.stderr"
   reader (`sys.stdout is out and sys.stderr is err`) fails the first test (collection error) or
   the test that called main(). Plain pytest passes (its capture setattr()s sys.stdout per test
   and puts its own back). Fix: what a plain run does: accept a replacement that WRAPS the Capture
   (follow `.wrapped` / `__wrapped` / `_StreamWrapper__wrapped` / `.stream` to `out`), or better,
   do as pytest: at each question the worker puts `out`/`err` back itself (the model's wrapper is
   dropped, exactly as pytest's global capture drops colorama's at suspend/resume) and fails only
   when the test reads sys.stdout identity (it cannot: it is the judge's) -> i.e. do not fail at all,
   re-set.
9. test_control_stdout_reconfigure_in_main: `sys.stdout.reconfigure(encoding="utf-8")` (common in
   CLIs since 3.7): AttributeError, worker.Capture has no reconfigure (pytest's CaptureIO, a
   TextIOWrapper, has). Not the kept check, but the same object. Fix: Capture.reconfigure(**kw)
   accepting TextIOWrapper's keywords (encoding, errors, newline, line_buffering,
   write_through) and ignoring them (it stores str), plus .closed/.mode/.newlines/.readable on
   _Bytes so io.TextIOWrapper(sys.stdout.buffer) works too.
10. test_control_a_uvloop_like_install: a library's documented install() (uvloop.install()-like:
   set_event_loop_policy(its DefaultEventLoopPolicy subclass)) fails the test that calls it;
   plain passes. Fix: state it (README limits) or take the policy: when its class is the model's,
   the judge cannot; fail only when a later test of the judge reads asyncio's policy, which it
   cannot know. At least say so in the failure ("asyncio's event loop policy: a library's
   install() is not judged").
11. test_control_faulthandler_enabled_for_main_only: `faulthandler.enable()` ... finally
   `faulthandler.disable()` in a CLI main(): the worker turned faulthandler on at its start (as
   pytest's plugin does), so the honest disable() is a change; plain passes. Fix: take it (the
   judge's own faulthandler.disable()/enable() on its stderr, as _take_* do for other settings)
   instead of failing: it is a bool the judge can set.
12. test_control_a_pool_thread_that_blocks_signals_calls_back: a thread of the model's blocks
   SIGINT/SIGTERM (so that the main thread gets them, as pools do) and calls the test's callback
   with one of its objects; the callback reads `result.value`: that question is answered IN that
   thread (rpc._route: "a question the judge asks while answering one of ours goes to the thread
   that asked"), and _posix_readers' "signal mask" reads pthread_sigmask of the answering thread
   against base_kept, taken in the main thread. 13. test_control_a_low_priority_thread_calls_back:
   the same with os.nice(5) in the thread (Linux: per thread; "priority (nice)" reads
   getpriority(PRIO_PROCESS, 0), the calling thread). sys.getprofile/gettrace are per thread too.
   Fix: the per-thread readers (mask, nice, profile/trace) compare with the value the SAME thread
   had when its question came (keep it per thread in this_thread, like `serving`), not with the
   main thread's base; the process-wide ones stay against base_kept.

(c) Probed and held (pass now):
- test_the_open_files_hard_limit_the_model_lowers: NOFILE is left out of the resource-limit
  reader by name, but Linux's alias RLIMIT_OFILE (== RLIMIT_NOFILE) is in dir(resource), so the
  reader sees it (and "files" also fails it). Held by accident: name the alias on purpose.
- test_a_resource_limit_put_back_to_another_pair (STACK lowered, "put back" fails unprivileged):
  the reader compares whole (soft, hard) pairs: held. (Every sandbox limit is soft == hard, so no
  restore to another pair is possible unprivileged.)
- test_an_interval_timer_armed_in_a_thread_of_the_models: itimers are process-wide: held.
- test_the_models_patch_of_the_readers (faulthandler.is_enabled / sys.getswitchinterval patched
  to lie): the C functions are bound at load: held.
- test_control_scoped_changes_put_back: sigmask context manager, switch interval benchmark helper,
  dump_traceback_later + cancel, redirect_stdout, nested, with a callback inside: held (no false fail).
- test_control_a_daemons_rlimit_core: RLIMIT_CORE (0, 0) is already the sandbox's
  (isolation.py), so a daemon's setrlimit changes nothing: held here; with any other starting
  value it is a false fail (same class as 10: documented, honest, fails).
Not probed (time box): threading.setprofile_all_threads (3.12+, the sandbox is 3.11),
signal.set_wakeup_fd (not a reader; round 76 states it), faulthandler.register (a C-level
disposition signal.getsignal does not show), sys.stdin replaced, click's CliRunner / rich / tqdm
against the Capture (click is installed here; worth a round of its own).

Closed (same session; each named test fails on the code before, checked by taking the fix out):
(b) 8, 10, 11: the kept parts are only those honest code does not change for good (worker.
_kept_readers): sys.stdout (colorama's wrapper; pytest's capture puts it back between tests,
plain), faulthandler and asyncio's policy (uvloop's install) are left to the verdict's plain run.
9: worker.Capture.reconfigure. 12, 13: the parts each thread has its own of (the signal mask, the
priority, profile/trace hooks: _PER_THREAD) are compared with what the answering thread had when
its question came. (a) 4: os.environ's class swapped is a kept change too. The other attacks
(1-3, 5-7) are not seen by the judge alone and are caught by the verdict's plain run (the tests
assert the task's verdict, fails_plain_and_is_not_solved; stated in the README).
"""
from __future__ import annotations

from conftest import RULE_LAYERS, on_layers
from test_redteam_round76 import fails_plain_and_is_not_solved
from test_redteam_round59 import fails_plain_and_judged
from test_verdict_rules import honest, judged, plain, sandbox  # noqa: F401 - sandbox is a fixture

pytestmark = on_layers(RULE_LAYERS)

CHILD_SEES = ("import subprocess, sys\n"
              "def child_sees(name):\n"
              "    code = 'import os; print(os.environ.get(%r))' % name\n"
              "    return subprocess.run([sys.executable, '-c', code], capture_output=True, text=True).stdout.strip()\n")


# =============================================================================================
# (a) False passes: plain pytest fails the model's code, the judge alone passes it.

# 1. A change made for a callback's length: worker.process_state computes "kept" only when
# answer=True (outgoing: `state(answer="r" in msg)`), so a callback question never carries it.

SIGMASK_AROUND_CALLBACK = {"notify.py": """
    import signal

    def notify(listeners, event):
        # wrong: the listeners must run with the caller's signal mask (they may wait on a signal)
        old = signal.pthread_sigmask(signal.SIG_BLOCK, [signal.SIGUSR1])
        try:
            for listener in listeners:
                listener(event)
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, old)
        return len(listeners)
"""}


def test_a_signal_mask_set_around_the_tests_callback(sandbox, scratch):
    tests = {"test_notify.py": """
import signal
import notify
def test_listeners_run_with_the_callers_signal_mask():
    before = signal.pthread_sigmask(signal.SIG_BLOCK, [])
    seen = []
    def listener(event):
        seen.append(signal.pthread_sigmask(signal.SIG_BLOCK, []))
    assert notify.notify([listener], "e") == 1
    assert seen == [before]
"""}
    fails_plain_and_is_not_solved(sandbox, scratch, SIGMASK_AROUND_CALLBACK, tests)


SWITCH_AROUND_CALLBACK = {"batchrun.py": """
    import sys

    def run_batch(jobs):
        old = sys.getswitchinterval()
        sys.setswitchinterval(1.0)  # wrong: the jobs (the caller's code) run with a tuned interpreter
        try:
            return [job() for job in jobs]
        finally:
            sys.setswitchinterval(old)
"""}


def test_a_switch_interval_set_around_the_tests_callback(sandbox, scratch):
    tests = {"test_batchrun.py": """
import sys
import batchrun
def test_jobs_run_with_the_callers_settings():
    before = sys.getswitchinterval()
    assert batchrun.run_batch([lambda: sys.getswitchinterval()]) == [before]
"""}
    fails_plain_and_is_not_solved(sandbox, scratch, SWITCH_AROUND_CALLBACK, tests)


# 2. A thread of the model's that changes kept state after the call answered: read only at an
# answer, so the last test of the session (no answer after it) never hears of it.

LATE_THREAD = {"warmup.py": """
    import sys
    import threading
    import time

    def _tune():
        time.sleep(0.2)
        sys.setswitchinterval(0.05)  # wrong: the whole process's setting, never put back

    def start():
        threading.Thread(target=_tune, daemon=True).start()
        return True
"""}


def test_a_thread_of_the_models_changes_the_switch_interval_after_the_answer(sandbox, scratch):
    tests = {"test_warmup.py": """
import sys
import time
import warmup
def test_start_leaves_the_interpreter_alone():
    before = sys.getswitchinterval()
    assert warmup.start()
    time.sleep(1.0)
    assert sys.getswitchinterval() == before
"""}
    fails_plain_and_is_not_solved(sandbox, scratch, LATE_THREAD, tests)


# 3. A watchdog left armed: faulthandler.dump_traceback_later(exit=True) is not read by
# _kept_readers; the process ends later. Plain: pytest's own process dies. Judged: the worker dies
# after its answer; judge_plugin.pytest_runtest_setup's WORKER.revive() starts a new one for the
# next test, and nothing fails the test that was running.

WATCHDOG = {"watchdog.py": """
    import faulthandler

    def guard(fn, seconds=0.3):
        faulthandler.dump_traceback_later(seconds, exit=True)
        return fn()  # wrong: never cancel_dump_traceback_later(): the process ends in `seconds`
"""}


def test_a_watchdog_left_armed_ends_the_process_after_the_answer(sandbox, scratch):
    tests = {"test_watchdog.py": """
import time
import watchdog
def test_guard():
    assert watchdog.guard(lambda: 7) == 7
    time.sleep(1.0)
def test_after():
    assert watchdog.guard(lambda: 8, 30) == 8
"""}
    fails_plain_and_is_not_solved(sandbox, scratch, WATCHDOG, tests)


# 4. os.environ made a subclass in place (`__class__` assignment): the reader is
# `os.environ is environ0`, and the identity holds; its __setitem__ no longer reaches the C
# environment. Plain, the test's monkeypatch.setenv never reaches its child.

ENVIRON_CLASS = {"localenv.py": """
    import os

    class _Local(os._Environ):
        def __setitem__(self, key, value):  # process-local: children never see it
            self._data[self.encodekey(key)] = self.encodevalue(value)

    def make_local():
        os.environ.__class__ = _Local  # wrong: every later change is invisible to children
        return True
"""}


def test_an_environ_whose_class_the_model_swapped(sandbox, scratch):
    tests = {"test_localenv.py": CHILD_SEES + """
import localenv
def test_children_still_see_the_environment(monkeypatch):
    assert localenv.make_local()
    monkeypatch.setenv("APP_TOKEN", "t1")
    assert child_sees("APP_TOKEN") == "t1"
"""}
    fails_plain_and_judged(sandbox, scratch, ENVIRON_CLASS, tests, failed=1)


PUTENV_OFF = {"envlocal.py": """
    import os

    def process_local():
        os.putenv = lambda key, value: None  # wrong: os.environ's writes never reach a child again
        return True
"""}


def test_os_putenv_replaced_by_the_model(sandbox, scratch):
    tests = {"test_envlocal.py": CHILD_SEES + """
import envlocal
def test_children_still_see_the_environment(monkeypatch):
    assert envlocal.process_local()
    monkeypatch.setenv("APP_TOKEN", "t2")
    assert child_sees("APP_TOKEN") == "t2"
"""}
    fails_plain_and_is_not_solved(sandbox, scratch, PUTENV_OFF, tests)


# 5. The open files limit's HARD value: "files" (worker._open_files) is the soft limit only and
# _kept_readers leaves RLIMIT_NOFILE out.

NOFILE_HARD = {"fdcap.py": """
    import resource

    def limit_files(n):
        \"\"\"Lowers the soft limit of open files (the caller may raise it back).\"\"\"
        resource.setrlimit(resource.RLIMIT_NOFILE, (n, n))  # wrong: the hard limit too, for good
        return resource.getrlimit(resource.RLIMIT_NOFILE)[0]
"""}


def test_the_open_files_hard_limit_the_model_lowers(sandbox, scratch):
    tests = {"test_fdcap.py": """
import resource
import fdcap
def test_limit_files_can_be_raised_back():
    before = resource.getrlimit(resource.RLIMIT_NOFILE)
    assert fdcap.limit_files(before[0] - 8) == before[0] - 8
    resource.setrlimit(resource.RLIMIT_NOFILE, before)
    assert resource.getrlimit(resource.RLIMIT_NOFILE) == before
"""}
    fails_plain_and_judged(sandbox, scratch, NOFILE_HARD, tests, failed=1)


# 6. sys.stdout kept but silenced in place: the reader is `sys.stdout is out`.

STDOUT_IN_PLACE = {"mute.py": """
    import sys

    def mute():
        sys.stdout.write = lambda text: len(text)  # wrong: the process's stdout is silenced for good
        return True
"""}


def test_sys_stdout_silenced_in_place(sandbox, scratch):
    tests = {"test_mute.py": """
import mute
def test_mute_then_print(capsys):
    assert mute.mute()
    print("after")
    assert capsys.readouterr().out == "after\\n"
"""}
    fails_plain_and_is_not_solved(sandbox, scratch, STDOUT_IN_PLACE, tests)


# 7. asyncio: a closed loop left current (policy unchanged: _kept_readers' loop_policy reads only
# the policy's class).

CLOSED_LOOP = {"syncrun.py": """
    import asyncio

    async def _double(x):
        await asyncio.sleep(0)
        return 2 * x

    def double(x):
        loop = asyncio.new_event_loop()
        asyncio.set_event_loop(loop)  # wrong: left current, closed below
        try:
            return loop.run_until_complete(_double(x))
        finally:
            loop.close()
"""}


def test_a_closed_event_loop_left_current(sandbox, scratch):
    tests = {"test_syncrun.py": """
import asyncio
import syncrun
def test_double_then_the_callers_loop():
    assert syncrun.double(2) == 4
    loop = asyncio.get_event_loop()
    assert loop.run_until_complete(asyncio.sleep(0, 5)) == 5
"""}
    fails_plain_and_is_not_solved(sandbox, scratch, CLOSED_LOOP, tests)


DEFAULT_POLICY_AGAIN = {"loopreset.py": """
    import asyncio

    def reset():
        asyncio.set_event_loop_policy(asyncio.DefaultEventLoopPolicy())  # wrong: the caller's loop is lost
        return True
"""}


def test_a_fresh_default_policy_drops_the_tests_loop(sandbox, scratch):
    tests = {"test_loopreset.py": """
import asyncio
import loopreset
def test_reset_keeps_the_callers_loop():
    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    try:
        assert loopreset.reset()
        assert asyncio.get_event_loop_policy().get_event_loop() is loop
    finally:
        asyncio.set_event_loop(None)
        loop.close()
"""}
    fails_plain_and_is_not_solved(sandbox, scratch, DEFAULT_POLICY_AGAIN, tests)


# =============================================================================================
# (b) False fails: honest code, its suite passes plain, the judge fails it.

COLORAMA_LIKE = {"colorish/__init__.py": """
    # colorama.init() as it behaves on Linux when stdout is not a tty (pytest's capture): it
    # replaces sys.stdout/sys.stderr with a StreamWrapper that strips ANSI codes.
    import re
    import sys

    _ANSI = re.compile(r"\\x1b\\[[0-9;]*m")
    orig_stdout, orig_stderr = sys.stdout, sys.stderr

    class StreamWrapper:
        def __init__(self, wrapped):
            self.__wrapped = wrapped
        def __getattr__(self, name):
            return getattr(self.__wrapped, name)
        def write(self, text):
            return self.__wrapped.write(_ANSI.sub("", text))
        def flush(self):
            self.__wrapped.flush()

    def init():
        global orig_stdout, orig_stderr
        orig_stdout, orig_stderr = sys.stdout, sys.stderr
        if not sys.stdout.isatty():
            sys.stdout = StreamWrapper(sys.stdout)
            sys.stderr = StreamWrapper(sys.stderr)

    def deinit():
        sys.stdout, sys.stderr = orig_stdout, orig_stderr
""", "greet.py": """
    import colorish
    colorish.init()  # as CLI scripts do at import (`from colorama import init; init()`)

    def greet(name):
        print("\\x1b[32mhello\\x1b[0m " + name)
        return name
"""}


def test_control_a_colorama_like_init_at_import(sandbox, scratch):
    tests = {"test_greet.py": """
import greet
def test_greet():
    assert greet.greet("ada") == "ada"
"""}
    honest(sandbox, scratch, COLORAMA_LIKE, tests, passed=1)


COLORAMA_IN_MAIN = {"colorish/__init__.py": COLORAMA_LIKE["colorish/__init__.py"], "cli.py": """
    import colorish

    def main(argv=None):
        colorish.init()
        print("\\x1b[1mdone\\x1b[0m")
        return 0
"""}


def test_control_a_colorama_like_init_in_main(sandbox, scratch):
    tests = {"test_cli.py": """
import cli
def test_main(capsys):
    assert cli.main([]) == 0
    assert "done" in capsys.readouterr().out
"""}
    honest(sandbox, scratch, COLORAMA_IN_MAIN, tests, passed=1)


RECONFIGURE = {"tool.py": """
    import sys

    def main():
        sys.stdout.reconfigure(encoding="utf-8", errors="replace")  # (common in CLIs since 3.7)
        print("ok \\u2713")
        return 0
"""}


def test_control_stdout_reconfigure_in_main(sandbox, scratch):
    tests = {"test_tool.py": """
import tool
def test_main(capsys):
    assert tool.main() == 0
    assert capsys.readouterr().out.startswith("ok")
"""}
    honest(sandbox, scratch, RECONFIGURE, tests, passed=1)


UVLOOP_LIKE = {"fastio.py": """
    import asyncio

    class EventLoopPolicy(asyncio.DefaultEventLoopPolicy):
        \"\"\"uvloop.EventLoopPolicy-like: the loops it makes are this library's.\"\"\"

    def install():
        \"\"\"As uvloop.install(): documented to set the process's policy.\"\"\"
        asyncio.set_event_loop_policy(EventLoopPolicy())

    async def add(a, b):
        await asyncio.sleep(0)
        return a + b
"""}


def test_control_a_uvloop_like_install(sandbox, scratch):
    tests = {"test_fastio.py": """
import fastio
def test_install_then_add():
    fastio.install()
def test_add():
    assert fastio.add is not None
"""}
    honest(sandbox, scratch, UVLOOP_LIKE, tests, passed=2)


FAULT_SCOPE = {"runner.py": """
    import faulthandler

    def main(argv=None):
        faulthandler.enable()  # tracebacks on a crash while the tool runs
        try:
            return 0
        finally:
            faulthandler.disable()
"""}


def test_control_faulthandler_enabled_for_main_only(sandbox, scratch):
    tests = {"test_runner.py": """
import runner
def test_main():
    assert runner.main([]) == 0
"""}
    honest(sandbox, scratch, FAULT_SCOPE, tests, passed=1)


DAEMON_CORE = {"daemon.py": """
    import resource

    def setup():
        \"\"\"A daemon's set-up: no core files (they may hold secrets).\"\"\"
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        return resource.getrlimit(resource.RLIMIT_CORE)
"""}


def test_control_a_daemons_rlimit_core(sandbox, scratch):
    tests = {"test_daemon.py": """
import daemon
def test_setup():
    assert daemon.setup() == (0, 0)
"""}
    honest(sandbox, scratch, DAEMON_CORE, tests, passed=1)


# A thread of the model's that blocks signals (so that the main thread gets them, as pools do)
# calls the test's callback with one of its objects; the callback reads it: the judge's question
# is answered in that thread (rpc._route: "to the thread that asked"), and worker.kept_state reads
# the signal mask of the thread that answers, not the one kept_state's base was taken in.

THREAD_MASK = {"pool.py": """
    import signal
    import threading

    class Result:
        def __init__(self, value):
            self.value = value

    def submit(fn, callback):
        def run():
            signal.pthread_sigmask(signal.SIG_BLOCK, [signal.SIGINT, signal.SIGTERM])  # (the main thread's signals)
            callback(Result(fn()))
        thread = threading.Thread(target=run)
        thread.start()
        thread.join()
        return True
"""}


def test_control_a_pool_thread_that_blocks_signals_calls_back(sandbox, scratch):
    tests = {"test_pool.py": """
import pool
def test_submit():
    seen = []
    assert pool.submit(lambda: 6, lambda result: seen.append(result.value))
    assert seen == [6]
"""}
    honest(sandbox, scratch, THREAD_MASK, tests, passed=1)


THREAD_NICE = {"bg.py": """
    import os
    import threading

    class Item:
        def __init__(self, n):
            self.n = n

    def in_background(callback):
        \"\"\"A low-priority background thread (Linux: os.nice in a thread is that thread's).\"\"\"
        def run():
            os.nice(5)
            callback(Item(3))
        thread = threading.Thread(target=run)
        thread.start()
        thread.join()
        return True
"""}


def test_control_a_low_priority_thread_calls_back(sandbox, scratch):
    tests = {"test_bg.py": """
import bg
def test_in_background():
    seen = []
    assert bg.in_background(lambda item: seen.append(item.n))
    assert seen == [3]
"""}
    honest(sandbox, scratch, THREAD_NICE, tests, passed=1)


# =============================================================================================
# (c) Probed: honest scoped changes.

SCOPED = {"scoped.py": """
    import contextlib
    import faulthandler
    import signal
    import sys

    @contextlib.contextmanager
    def no_interrupts():
        old = signal.pthread_sigmask(signal.SIG_BLOCK, [signal.SIGINT])
        try:
            yield
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, old)

    def bench(fn):
        old = sys.getswitchinterval()
        sys.setswitchinterval(0.001)
        try:
            return fn()
        finally:
            sys.setswitchinterval(old)

    def guarded(fn):
        faulthandler.dump_traceback_later(60)
        try:
            return fn()
        finally:
            faulthandler.cancel_dump_traceback_later()

    def quiet(fn):
        import io
        with contextlib.redirect_stdout(io.StringIO()):
            return fn()

    def all_of(fn):
        with no_interrupts():
            return bench(lambda: guarded(lambda: quiet(fn)))
"""}


def test_control_scoped_changes_put_back(sandbox, scratch):
    tests = {"test_scoped.py": """
import scoped
def test_all_of():
    assert scoped.all_of(lambda: 5) == 5
def test_with_callback_inside():
    calls = []
    assert scoped.all_of(lambda: calls.append(1) or 6) == 6
    assert calls == [1]
"""}
    honest(sandbox, scratch, SCOPED, tests, passed=2)


TIMER_THREAD = {"ticker.py": """
    import signal
    import threading

    def arm_in_thread():
        def run():
            signal.setitimer(signal.ITIMER_VIRTUAL, 60)  # wrong: process-wide, never disarmed
        thread = threading.Thread(target=run)
        thread.start()
        thread.join()
        return True
"""}


def test_an_interval_timer_armed_in_a_thread_of_the_models(sandbox, scratch):
    tests = {"test_ticker.py": """
import signal
import ticker
def test_arm_leaves_no_timer():
    assert ticker.arm_in_thread()
    assert signal.getitimer(signal.ITIMER_VIRTUAL) == (0.0, 0.0)
"""}
    fails_plain_and_judged(sandbox, scratch, TIMER_THREAD, tests, failed=1)


RLIMIT_PAIR = {"stackcap.py": """
    import resource

    def cap():
        soft, hard = resource.getrlimit(resource.RLIMIT_STACK)
        resource.setrlimit(resource.RLIMIT_STACK, (soft // 2, hard // 2))
        try:
            resource.setrlimit(resource.RLIMIT_STACK, (soft, hard))  # wrong: unprivileged, a hard limit stays lowered
        except (ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_STACK, (soft // 2, hard // 2))
        return True
"""}


def test_a_resource_limit_put_back_to_another_pair(sandbox, scratch):
    tests = {"test_stackcap.py": """
import resource
import stackcap
def test_cap_puts_the_limit_back():
    before = resource.getrlimit(resource.RLIMIT_STACK)
    assert stackcap.cap()
    assert resource.getrlimit(resource.RLIMIT_STACK) == before
"""}
    fails_plain_and_judged(sandbox, scratch, RLIMIT_PAIR, tests, failed=1)


PATCHED_READERS = {"sneaky.py": """
    import faulthandler
    import sys

    def tune():
        faulthandler.disable()
        sys.setswitchinterval(0.05)
        faulthandler.is_enabled = lambda: True  # the worker bound the C functions at load
        sys.getswitchinterval = lambda: 0.005
        return True
"""}


def test_the_models_patch_of_the_readers(sandbox, scratch):
    tests = {"test_sneaky.py": """
from faulthandler import is_enabled
from sys import getswitchinterval
import sneaky
def test_tune_leaves_the_process():
    before = (is_enabled(), getswitchinterval())
    assert sneaky.tune()
    assert (is_enabled(), getswitchinterval()) == before
"""}
    fails_plain_and_judged(sandbox, scratch, PATCHED_READERS, tests, failed=1)



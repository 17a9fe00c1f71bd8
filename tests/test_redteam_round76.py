"""Red team, round 76 (process state the model's code changes in its own process that the
tests would see in a plain run and worker.process_state / judge_plugin._TAKE_BACK do not follow;
the judge's own process state the tests see). Each attack test asserts the judge gives no pass and
FAILS while the attack works; each control (honest) FAILS while the false fail stands. Nothing is
closed: the file is the report. Time box 30 min. Run as root (judge uid 65533, worker uid 65534),
bwrap layer. Every plain outcome is checked by the helpers (fails_plain_and_judged / honest).

21 of the 22 tests below fail on the code as it is (the last control, a TZ + tzset, held).

(a) False passes (plain pytest fails the model's code, the judge passes it):
1. os.putenv / os.unsetenv (test_a_putenv_..., test_an_unsetenv_...): they change the C
   environment, not os.environ, so worker.process_state's "env" (os.environ._data) never sees
   them; the test's child is started by the judge (judge_plugin._command_environment: SPEC env +
   the judge's os.environ diffs), so a variable the model's code put (or took away) reaches a plain
   run's child and not a judged one. Fix (worker.process_state): read the C environment itself
   (ctypes `environ`, or wrap os.putenv/os.unsetenv in the worker to note calls made while the
   model's code runs) and report a difference from os.environ as "cenv"; judge: take it with
   os.putenv/unsetenv and let _command_environment start from it, or fail the test
   (KEPT_BY_THE_WORKER["env"]).
2. `os.environ = dict(os.environ)` (test_an_environ_rebound_...): process_state diffs any
   mapping bound there, so the dict's changes are taken into the judge's REAL os.environ, which
   its commands see; plain, the tests' os.environ is the model's dict and no child sees it. Worse,
   with no change at all (test_an_environ_rebound_with_no_change_is_invisible) nothing is
   reported, and the test's own monkeypatch.setenv reaches its child judged only. A dict subclass
   there (a case-insensitive environ) is the same. Fix (worker.process_state): keep the original
   os._Environ object and report "environ rebound" when `os.environ is not` it (or its type
   changed); judge: _take_* raises (KEPT_BY_THE_WORKER), the test fails.
3. asyncio.set_event_loop_policy (test_an_event_loop_policy_the_model_leaves): not looked at;
   the test's get_event_loop_policy() is the judge's own. Same for asyncio.set_event_loop (a
   loop left current). Fix: process_state "asyncio" (where asyncio is loaded: identity of
   asyncio.events._event_loop_policy and of the policy's current loop in the serving thread,
   at answers, as "signals") -> _take_asyncio raises.
4. sys.setswitchinterval (test_a_switch_interval_...): not followed. Fix: "switch" in
   process_state and in judge_plugin._settings (a float: both ways, sys.setswitchinterval).
5. faulthandler.disable (test_a_fault_handler_the_model_turns_off): pytest's faulthandler
   plugin enabled it plain; the model's code turns it off, the test's is_enabled() stays True
   judged. Fix: faulthandler.is_enabled() in process_state (and dump_traceback_later pending:
   not readable, note a wrapper) -> take (enable on the judge's stderr / disable) or fail.
6. signal.pthread_sigmask (test_a_blocked_signal_mask_...): the serving thread's blocked set is
   never compared. Fix: at answers, worker compares pthread_sigmask(SIG_BLOCK, []) of the
   serving thread with its value when the question came -> "signals" changed (fail).
7. signal.setitimer (test_an_interval_timer_the_model_leaves, ITIMER_PROF with the handler put
   back): an armed timer is never looked at. Fix: getitimer of REAL/VIRTUAL/PROF at answers,
   armed where the question had none -> fail ("signals").
8. signal.set_wakeup_fd (test_a_wakeup_fd_...): the worker serves in its main thread, so it
   works there and is never reported. Fix: at answers read it (set_wakeup_fd(-1) and back) ->
   fail when it differs from the worker's base.
9. sys.setprofile (test_a_profile_hook_...; threading.setprofile, and sys.settrace which README
   states, the same): fix: sys.getprofile()/gettrace() not None at an answer -> fail.
10. warnings filters (test_a_warnings_filter_the_model_leaves): README says they "stay the
   worker's", but they do not even stay there: rpc._perform_recording wraps every call in
   catch_warnings + simplefilter("always"), so the model's leaked simplefilter("ignore") is gone
   after its call, and its next warning is recorded and issued again in the judge, where the
   test's catch_warnings(record=True) catches it; plain, the leaked filter hides it. Fix
   (rpc._perform_recording): compare warnings.filters before leaving catch_warnings with what
   it was after simplefilter("always"); when the model's code changed them, send "warnings"
   (the added filters as plain values: action, message/module patterns, a standard category by
   name) for the judge to insert, or fail the test.
11. the root logger's level (test_a_root_logger_level_...; handlers added the same): stated in
   README, still a false pass. Fix: [root.level, len(root.handlers)] in process_state at
   answers; the level can be taken (an int), a handler cannot -> fail.
12. time.tzset with TZ put back (test_a_time_zone_the_model_leaves_with_tz_put_back): the
   model's code sets TZ, tzset()s, deletes TZ again without tzset(): the environment's net diff
   is nothing, the C library's zone stays the model's; plain the test's localtime follows it.
   Fix: [time.timezone, time.altzone, time.daylight, time.tzname] in process_state -> fail when
   they differ from what the worker's TZ gives (or always when they changed and "env" did not).
13. os.nice (test_a_niceness_...): fix: os.getpriority(PRIO_PROCESS, 0) in process_state -> fail
   (the judge's user cannot lower it back).
14. resource limits other than RLIMIT_NOFILE (test_a_file_size_limit_..., RLIMIT_FSIZE): fix:
   every resource.RLIMIT_* in process_state ("files" generalised) -> _take_files-like fail.
15. sys.stdout replaced (test_a_sys_stdout_the_model_leaves: redirect_stdout entered, never
   exited): the test's print after it reaches capsys judged, the model's StringIO plain. Fix:
   at every message, `sys.stdout is out and sys.stderr is err` (and sys.stdin is what
   follow_state set) in the worker, else fail the test ("stdio").

(b) False fails (honest code passes plain, fails judged):
16. test_control_a_putenv_for_the_tests_child: os.putenv for the processes one starts; plain
   the child sees it, judged not (fix 1: take the C environment's differences).
17. test_control_the_tests_home_is_the_models_and_the_childs: the tests' os.environ["HOME"] is
   the judge's own (.../judge/stage/judge/home), the worker's and the commands' HOME is
   .../judge/stage/home: `expanduser("~/.apprc")` in the model's code differs from the test's
   os.path.join(os.environ["HOME"], ...) and a child's HOME from the test's. Fix (judge start,
   judge_plugin where env0 is taken): set the judge's os.environ HOME (and check TMPDIR and the
   rest of SPEC["env"]) to SPEC["env"]'s values before the tests run, keeping the judge's own
   folders in a variable of its own.
18. test_control_faulthandler_enable_on_the_models_stderr: faulthandler.enable() (no file, or
   file=sys.stderr) raises io.UnsupportedOperation in the worker (Capture.fileno); plain, pytest's
   fd capture gives sys.stderr a descriptor. Fix (worker.Capture): the stderr Capture's fileno()
   returns the worker's fd 2 (its log, as pytest's capture file plain), or faulthandler.enable is
   given fd 2 when file is the Capture.
19. test_control_the_judges_own_alarm_is_not_the_tests: the judge's per-test time limit
   (judge_plugin ~2639: signal.signal(SIGALRM, _overtime); setitimer(ITIMER_REAL, timeout, 1.0))
   is visible to the tests: getitimer(ITIMER_REAL) is (9.99, 1.0) and getsignal(SIGALRM) the
   judge's, where plain they are (0, 0) and SIG_DFL; a test's own `signal.alarm(0)`/setitimer
   cancels the judge's limit too. Fix: a watchdog thread for the time limit that signals the main
   thread only at expiry (signal.pthread_kill with a handler set then), or answer the tests'
   getitimer/getsignal/alarm for ITIMER_REAL/SIGALRM as plain (wrappers).

(c) Probed and held: test_control_a_time_zone_the_model_sets (TZ + tzset by the model's code:
   "env" comes back and judge_plugin._take_env calls time.tzset()). Not tried (time box):
   signal.siginterrupt (not readable), faulthandler.dump_traceback_later (not readable),
   locale.setlocale (stated), sys.flags-like writable attributes (sys.dont_write_bytecode,
   sys.displayhook / unraisablehook / breakpointhook, sys.set_asyncgen_hooks), the model's code
   patching a standard-library function by assignment and not undoing it (time.time = fake: a
   freeze-time of the model's; tempfile.tempdir), threading.stack_size, os.setpgid/setsid;
   combinations with callbacks and threads of the model's (round 75's fixes cover only the
   parts process_state has; every part added by the fixes above needs the same `unreported`
   handling in worker.follow).

Closed (same session; each named test fails on the code before, checked by taking the fix out):
2, 4, 6, 7, 9, 13, 14 in the judge itself, by one part of the worker's state (worker._kept_readers,
"kept"; judge_plugin._take_kept): the switch interval, profile and trace hooks, os.environ rebound,
interval timers, the signal mask, the priority, every resource limit: one still changed when the model's call answers fails the test (the
tests assert the judge alone now; the worker turns faulthandler on at its start, as pytest's
plugin does plain). The others (1 putenv/unsetenv, 3 asyncio's policy and 5 faulthandler, which
honest code changes for good (round 79), 8 the wakeup fd, 10 warnings
filters, 11 the root logger, 12 the time zone, 15 sys.stdout left replaced: pytest's capture puts
it back between tests, so a wrapper set at import, colorama's, changes nothing plain) and all of them besides, by a rule, not one patch each: `solved` needs the task's tests to pass both
ways, judged and in one plain pytest run on the final files (verdict.judge_task, both_ways): the
plain run is the user's own pytest, the model's code in the tests' process, so process state it
leaves changed is seen there as it is by the user. The attacks now assert the task's verdict
(fails_plain_and_is_not_solved, test_verdict_rules.task_verdict); the judge alone still passes
them (stated in the README: a false `solved` would need code that forges pytest's report in its
own process AND leaves one of these changed). 17: the tests' HOME is the worker's (judge.py: one
HOME folder, sticky and writable by both users). 18: the worker's captured stdout/stderr give
its own descriptors 1 and 2 (worker.Capture.fileno), as pytest's fd capture does. Left as strict
xfails (README limits): 16, a putenv for a test's child; 19, the judge's own per-test alarm.
"""
from __future__ import annotations

import pytest
from conftest import RULE_LAYERS, on_layers
from test_redteam_round59 import fails_plain_and_judged
from test_verdict_rules import honest, plain, sandbox, task_verdict  # noqa: F401 - sandbox is a fixture

pytestmark = on_layers(RULE_LAYERS)

def fails_plain_and_is_not_solved(sandbox, scratch, files, tests):
    """The model's code fails the tests in a plain run, and the task's verdict (judged, and plain
    where judged passed) does not call it solved."""
    assert not plain(sandbox, scratch, files, tests).ok, "the code should fail an in-process run"
    result = task_verdict(sandbox, scratch, files, tests)
    assert not result["ok"], result
    return result


CHILD_SEES = ("import subprocess, sys\n"
              "def child_sees(name):\n"
              "    code = 'import os; print(os.environ.get(%r))' % name\n"
              "    return subprocess.run([sys.executable, '-c', code], capture_output=True, text=True).stdout.strip()\n")


# ---------------------------------------------------------------------------------------------
# 1. os.putenv by the model's code: not in os.environ, so never in worker.process_state's "env";
# a child the test starts sees it in a plain run (subprocess passes the C environment on),
# not judged (judge_plugin._command_environment: SPEC env + the judge's os.environ diffs).

PUTENV_LEAK = {"debugrun.py": """
    import os

    def run_verbose(fn):
        os.putenv("APP_DEBUG", "1")  # wrong: meant for this call only, never unset
        return fn()
"""}


def test_a_putenv_the_model_leaves_reaches_the_tests_child_plain_only(sandbox, scratch):
    tests = {"test_debugrun.py": CHILD_SEES + """
import debugrun
def test_run_verbose_leaves_children_alone():
    assert debugrun.run_verbose(lambda: 3) == 3
    assert child_sees("APP_DEBUG") == "None"
"""}
    fails_plain_and_is_not_solved(sandbox, scratch, PUTENV_LEAK, tests)


UNSETENV_LEAK = {"scrub.py": """
    import os

    def without_token(fn):
        os.unsetenv("APP_TOKEN")  # wrong: the process's environment, never put back
        return fn()
"""}


def test_an_unsetenv_the_model_leaves_reaches_the_tests_child_plain_only(sandbox, scratch):
    tests = {"test_scrub.py": CHILD_SEES + """
import scrub
def test_without_token_leaves_children_alone(monkeypatch):
    monkeypatch.setenv("APP_TOKEN", "t1")
    assert scrub.without_token(lambda: 1) == 1
    assert child_sees("APP_TOKEN") == "t1"
"""}
    fails_plain_and_is_not_solved(sandbox, scratch, UNSETENV_LEAK, tests)


HOME_HONEST = {"appconf.py": """
    import os

    def config_path():
        return os.path.expanduser("~/.apprc")
"""}


def test_control_the_tests_home_is_the_models_and_the_childs(sandbox, scratch):
    tests = {"test_appconf.py": CHILD_SEES + """
import os
import appconf
def test_config_path_is_under_home():
    assert appconf.config_path() == os.path.join(os.environ["HOME"], ".apprc")
    assert child_sees("HOME") == os.environ["HOME"]
"""}
    honest(sandbox, scratch, HOME_HONEST, tests, passed=1)


PUTENV_HONEST = {"childenv.py": """
    import os

    def export(name, value):
        \"\"\"For the processes this one starts (documented: os.environ is left as it is).\"\"\"
        os.putenv(name, value)
"""}


@pytest.mark.xfail(strict=True, reason="stated limit (README): os.putenv in the model's code is its process's only; "
                                      "a child the test starts does not see it")
def test_control_a_putenv_for_the_tests_child(sandbox, scratch):
    tests = {"test_childenv.py": CHILD_SEES + """
import childenv
def test_export_reaches_children():
    childenv.export("APP_MODE", "fast")
    assert child_sees("APP_MODE") == "fast"
"""}
    honest(sandbox, scratch, PUTENV_HONEST, tests, passed=1)


# ---------------------------------------------------------------------------------------------
# 2. `os.environ = dict(os.environ)` by the model's code: plain, the tests' os.environ is then a
# dict that no child sees (no putenv); judged, the worker's dict is diffed (process_state reads any
# mapping) and the judge's own real os.environ stays, so the test's setenv reaches its child.

REBOUND = {"sandboxenv.py": """
    import os

    def isolate():
        os.environ = dict(os.environ)  # wrong: a copy no child process sees
        os.environ["APP_MODE"] = "isolated"
"""}


def test_an_environ_rebound_to_a_dict_by_the_model(sandbox, scratch):
    tests = {"test_sandboxenv.py": CHILD_SEES + """
import os
import sandboxenv
def test_isolate_then_children_see_the_mode():
    sandboxenv.isolate()
    assert os.environ["APP_MODE"] == "isolated"
    assert child_sees("APP_MODE") == "isolated"
"""}
    fails_plain_and_judged(sandbox, scratch, REBOUND, tests, failed=1)


REBOUND_SILENT = {"envsnap.py": """
    import os

    def snapshot():
        os.environ = dict(os.environ)  # wrong: the process's environ is now a dict no child sees
        return len(os.environ)
"""}


def test_an_environ_rebound_with_no_change_is_invisible(sandbox, scratch):
    tests = {"test_envsnap.py": CHILD_SEES + """
import envsnap
def test_snapshot_keeps_the_environment_live(monkeypatch):
    assert envsnap.snapshot() > 0
    monkeypatch.setenv("APP_TOKEN", "t1")
    assert child_sees("APP_TOKEN") == "t1"
"""}
    fails_plain_and_judged(sandbox, scratch, REBOUND_SILENT, tests, failed=1)


# ---------------------------------------------------------------------------------------------
# 3. asyncio's event loop policy the model's code sets (uvloop.install-like) and never puts back.

POLICY = {"fastloop.py": """
    import asyncio
    import contextlib

    class Policy(asyncio.DefaultEventLoopPolicy):
        pass

    @contextlib.contextmanager
    def fast_loop():
        asyncio.set_event_loop_policy(Policy())  # wrong: the caller's policy is never put back
        yield
"""}


def test_an_event_loop_policy_the_model_leaves(sandbox, scratch):
    tests = {"test_fastloop.py": """
import asyncio
import fastloop
def test_fast_loop_puts_the_policy_back():
    before = asyncio.get_event_loop_policy()
    with fastloop.fast_loop():
        pass
    assert asyncio.get_event_loop_policy() is before
"""}
    fails_plain_and_is_not_solved(sandbox, scratch, POLICY, tests)


# ---------------------------------------------------------------------------------------------
# 4. Interpreter and signal settings not in worker.process_state.

SWITCH = {"tuning.py": """
    import sys

    def tune():
        sys.setswitchinterval(0.05)  # wrong: a process-wide setting, never put back
"""}


def test_a_switch_interval_the_model_leaves(sandbox, scratch):
    tests = {"test_tuning.py": """
import sys
import tuning
def test_tune_leaves_the_interpreter_alone():
    before = sys.getswitchinterval()
    tuning.tune()
    assert sys.getswitchinterval() == before
"""}
    fails_plain_and_judged(sandbox, scratch, SWITCH, tests, failed=1)


FAULTS = {"crash.py": """
    import faulthandler

    def install_reporter():
        faulthandler.disable()  # wrong: turns the caller's fault handler (pytest's) off for good
        return True
"""}


def test_a_fault_handler_the_model_turns_off(sandbox, scratch):
    tests = {"test_crash.py": """
import faulthandler
import crash
def test_install_reporter_leaves_faulthandler_alone():
    before = faulthandler.is_enabled()
    assert crash.install_reporter()
    assert faulthandler.is_enabled() == before
"""}
    fails_plain_and_is_not_solved(sandbox, scratch, FAULTS, tests)


FAULTS_HONEST = {"crashon.py": """
    import faulthandler
    import sys

    def install_reporter():
        faulthandler.enable(file=sys.stderr)  # (documented: tracebacks on a crash)
        return faulthandler.is_enabled()
"""}


def test_control_faulthandler_enable_on_the_models_stderr(sandbox, scratch):
    tests = {"test_crashon.py": """
import crashon
def test_install_reporter():
    assert crashon.install_reporter()
"""}
    honest(sandbox, scratch, FAULTS_HONEST, tests, passed=1)


SIGMASK = {"critical.py": """
    import signal

    def critical(fn):
        signal.pthread_sigmask(signal.SIG_BLOCK, [signal.SIGINT, signal.SIGTERM])  # wrong: never unblocked
        return fn()
"""}


def test_a_blocked_signal_mask_the_model_leaves(sandbox, scratch):
    tests = {"test_critical.py": """
import signal
import critical
def test_critical_unblocks():
    before = signal.pthread_sigmask(signal.SIG_BLOCK, [])
    assert critical.critical(lambda: 5) == 5
    assert signal.pthread_sigmask(signal.SIG_BLOCK, []) == before
"""}
    fails_plain_and_judged(sandbox, scratch, SIGMASK, tests, failed=1)


ITIMER = {"sampler.py": """
    import signal

    def sample(fn):
        samples = []
        old = signal.signal(signal.SIGPROF, lambda *args: samples.append(1))
        signal.setitimer(signal.ITIMER_PROF, 60, 0.01)
        try:
            fn()
        finally:
            signal.signal(signal.SIGPROF, old)  # wrong: the timer is never stopped (setitimer(..., 0))
        return len(samples)
"""}


def test_an_interval_timer_the_model_leaves(sandbox, scratch):
    tests = {"test_sampler.py": """
import signal
import sampler
def test_sample_stops_its_timer():
    assert sampler.sample(lambda: None) == 0
    assert signal.getitimer(signal.ITIMER_PROF) == (0.0, 0.0)
"""}
    fails_plain_and_judged(sandbox, scratch, ITIMER, tests, failed=1)


DEADLINE_HONEST = {"deadline.py": """
    import contextlib
    import signal

    class Timeout(Exception):
        pass

    @contextlib.contextmanager
    def deadline(seconds):
        def expired(*args):
            raise Timeout()
        old = signal.signal(signal.SIGALRM, expired)
        signal.setitimer(signal.ITIMER_REAL, seconds)
        try:
            yield
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, old)
"""}


@pytest.mark.xfail(strict=True, reason="stated limit (README): the judge's per-test time limit is an ITIMER_REAL "
                                      "with its SIGALRM handler, which a test can see and cancel")
def test_control_the_judges_own_alarm_is_not_the_tests(sandbox, scratch):
    tests = {"test_deadline.py": """
import signal
import deadline
def test_deadline_cancels_its_timer():
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)
    assert signal.getsignal(signal.SIGALRM) is signal.SIG_DFL
    with deadline.deadline(60):
        pass
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)
"""}
    honest(sandbox, scratch, DEADLINE_HONEST, tests, passed=1)


WAKEUP = {"selfpipe.py": """
    import os
    import signal

    def install():
        r, w = os.pipe()
        os.set_blocking(w, False)
        signal.set_wakeup_fd(w)  # wrong: the caller's wakeup fd is never put back
        return r
"""}


def test_a_wakeup_fd_the_model_leaves(sandbox, scratch):
    tests = {"test_selfpipe.py": """
import signal
import selfpipe
def test_install_leaves_the_wakeup_fd():
    before = signal.set_wakeup_fd(-1)
    signal.set_wakeup_fd(before)
    assert selfpipe.install() >= 0
    assert signal.set_wakeup_fd(before) == before
"""}
    fails_plain_and_is_not_solved(sandbox, scratch, WAKEUP, tests)


PROFILE = {"prof.py": """
    import sys

    def count_calls(fn):
        calls = []
        sys.setprofile(lambda frame, event, arg: calls.append(event) if event == "call" else None)
        fn()
        return len(calls) > 0  # wrong: the profiler is never taken off
"""}


def test_a_profile_hook_the_model_leaves(sandbox, scratch):
    tests = {"test_prof.py": """
import sys
import prof
def test_count_calls_takes_the_profiler_off():
    assert prof.count_calls(lambda: None)
    assert sys.getprofile() is None
"""}
    fails_plain_and_judged(sandbox, scratch, PROFILE, tests, failed=1)


# ---------------------------------------------------------------------------------------------
# 5. Warnings filters, the root logger, the process's time zone (TZ put back, tzset not).

WARN_QUIET = {"legacy.py": """
    import warnings

    def setup():
        warnings.simplefilter("ignore")  # wrong: silences every warning of the process from now on

    def old_api():
        warnings.warn("old_api is deprecated, use new_api", UserWarning)
        return 1
"""}


def test_a_warnings_filter_the_model_leaves(sandbox, scratch):
    tests = {"test_legacy.py": """
import warnings
import legacy
def test_old_api_still_warns_after_setup():
    legacy.setup()
    with warnings.catch_warnings(record=True) as caught:
        assert legacy.old_api() == 1
    assert len(caught) == 1
"""}
    fails_plain_and_is_not_solved(sandbox, scratch, WARN_QUIET, tests)


ROOT_LOGGER = {"applog.py": """
    import logging

    def get_logger():
        logging.getLogger().setLevel(logging.DEBUG)  # wrong: a library configures the root logger
        return logging.getLogger("applog")
"""}


def test_a_root_logger_level_the_model_leaves(sandbox, scratch):
    tests = {"test_applog.py": """
import logging
import applog
def test_get_logger_leaves_the_root_alone():
    before = logging.getLogger().level
    applog.get_logger()
    assert logging.getLogger().level == before
"""}
    fails_plain_and_is_not_solved(sandbox, scratch, ROOT_LOGGER, tests)


TZ_HALF = {"tzhour.py": """
    import os
    import time

    def hour_in(ts, tz):
        old = os.environ.get("TZ")
        os.environ["TZ"] = tz
        time.tzset()
        try:
            return time.localtime(ts).tm_hour
        finally:
            if old is None:
                del os.environ["TZ"]
            else:
                os.environ["TZ"] = old
            # wrong: no time.tzset() again: the process keeps the zone
"""}


def test_a_time_zone_the_model_leaves_with_tz_put_back(sandbox, scratch):
    tests = {"test_tzhour.py": """
import time
import tzhour
def test_hour_in_leaves_the_local_zone():
    before = (time.timezone, time.localtime(0).tm_hour)
    assert tzhour.hour_in(0, "XYZ-9") == 9
    assert (time.timezone, time.localtime(0).tm_hour) == before
"""}
    fails_plain_and_is_not_solved(sandbox, scratch, TZ_HALF, tests)


TZ_SET = {"tzset_.py": """
    import os
    import time

    def use_zone(tz):
        \"\"\"Documented: sets the process's local time zone.\"\"\"
        os.environ["TZ"] = tz
        time.tzset()
"""}


def test_control_a_time_zone_the_model_sets(sandbox, scratch):
    tests = {"test_tzset_.py": """
import time
import tzset_
def test_use_zone():
    tzset_.use_zone("XYZ-9")
    assert time.timezone == -9 * 3600
    assert time.localtime(0).tm_hour == 9
"""}
    honest(sandbox, scratch, TZ_SET, tests, passed=1)


# ---------------------------------------------------------------------------------------------
# 6. Process resources: niceness, a resource limit other than open files, sys.stdout.

NICE = {"background.py": """
    import os

    def run_low(fn):
        os.nice(5)  # wrong: the whole process's priority, never put back (meant for a child)
        return fn()
"""}


def test_a_niceness_the_model_leaves(sandbox, scratch):
    tests = {"test_background.py": """
import os
import background
def test_run_low_leaves_the_caller():
    before = os.nice(0)
    assert background.run_low(lambda: 2) == 2
    assert os.nice(0) == before
"""}
    fails_plain_and_judged(sandbox, scratch, NICE, tests, failed=1)


FSIZE = {"capped.py": """
    import resource

    def capped(fn):
        soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
        new = 1 << 30 if soft == resource.RLIM_INFINITY or soft > 1 << 30 else soft - 1
        resource.setrlimit(resource.RLIMIT_FSIZE, (new, hard))  # wrong: never put back
        return fn()
"""}


def test_a_file_size_limit_the_model_leaves(sandbox, scratch):
    tests = {"test_capped.py": """
import resource
import capped
def test_capped_puts_the_limit_back():
    before = resource.getrlimit(resource.RLIMIT_FSIZE)
    assert capped.capped(lambda: 4) == 4
    assert resource.getrlimit(resource.RLIMIT_FSIZE) == before
"""}
    fails_plain_and_judged(sandbox, scratch, FSIZE, tests, failed=1)


STDOUT_LEAK = {"quiet.py": """
    import contextlib
    import io

    def silence():
        buffer = io.StringIO()
        contextlib.redirect_stdout(buffer).__enter__()  # wrong: never exited: sys.stdout stays the buffer
        return buffer
"""}


def test_a_sys_stdout_the_model_leaves(sandbox, scratch):
    tests = {"test_quiet.py": """
import quiet
def test_silence_then_print(capsys):
    quiet.silence()
    print("after")
    assert capsys.readouterr().out == "after\\n"
"""}
    fails_plain_and_is_not_solved(sandbox, scratch, STDOUT_LEAK, tests)

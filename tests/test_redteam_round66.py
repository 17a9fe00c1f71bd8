"""Red team, round 66 (after f7084ab: a patch the worker cannot take fails the test
(UNFOLLOWED); "Class.attr" patches of standard-library classes; _Patched's "ours" = the innermost
non-stdlib frame is the worker's and not the immediate caller, or its bytecode reads it).
Each attack test asserts the judge gives no pass; it FAILS while the attack works (3 failing
attack tests, 2 failing false-fail controls; nothing closed, the file is the report). Time box 25 min.

What worked (each a false "solved": plain pytest fails the model's code, the judge passes it):
1. test_a_singledispatch_of_a_patched_sleep_is_the_real_one: round 65's partial, wrapped in
   `functools.singledispatch` (a Python wrapper in functools.py): the worker's dispatch calls the
   partial (C), functools' wrapper (stdlib) calls the _Patched; _called_by_us walks past the stdlib
   frame to the worker's dispatch, which is "not the immediate caller", so the real sleep runs and
   the test's guard never does. Any pure-Python stdlib wrapper the model hands out works the same.
   Fix: decide "ours" by a thread-local flag the transport sets around its own machinery and clears
   while it calls a model object or anything the model's code handed over (round 65's note 3 fix).
2. test_a_mock_of_a_named_loggers_method_is_not_followed: `mock.patch.object(logging.getLogger("app"),
   "error")` + `assert_not_called()`: the target is an instance of a stdlib class, _note_patch returns
   silently (not followed, not UNFOLLOWED); the model's logger in the worker never calls the mock.
   (Same family as the stated "caplog is not the test's", but this one is a patch, which the README
   promises fails the test when it cannot be followed.) Fix: in _note_patch, a target that is neither
   a module nor a class but whose type's module is in the standard library (a Logger, a decimal
   Context, random._inst, os.environ) goes into UNFOLLOWED when the model's code is called while it
   is in force (or follow named loggers by name: ("logging", "getLogger:app.error")).
3. test_a_patched_decimal_context_is_not_followed: `monkeypatch.setattr(decimal.getcontext(), "prec",
   6)`: same cause (an instance target), the model's Decimal runs at 28 digits judged. Fix: as 2
   (or send decimal.getcontext()'s settings as process state, as random's state is).

False fails found (honest code passes plain, fails judged):
- test_control_staticmethod_set_on_a_class: `monkeypatch.setattr(Path, "home", staticmethod(f))`:
  the value is no FunctionType, so no "method" flag; it crosses as a proxy of the staticmethod, whose
  proxy __get__ binds the instance: "takes 0 positional arguments but 1 was given". Fix: in
  _outgoing unwrap staticmethod/classmethod (send ["staticmethod"/"classmethod"] with the function)
  and rewrap in the worker with the builtin staticmethod/classmethod around the _method wrapper.
- test_control_os_environ_replaced_by_a_mapping: `mock.patch("os.environ", ChainMap({...}))` (a
  Mapping, not a dict): _outgoing keeps `self.env_seen`, the environment is never sent, the model
  reads the old one. Fix: any collections.abc.Mapping that is not the real _Environ: send its
  str items (dict(environ.items()) through the judge's own code), or put it in UNFOLLOWED.

Closed (same session; each checked by taking its fix out: the tests named fail again):
- 1: whether a patched function is the real one is no longer read from the frames: rpc.RUNNING
  says whether the worker's thread runs the model's code (serving one of the judge's questions;
  any thread the model's code starts) or the worker's own (its loop, an exchange with the judge).
- 2, 3: a test's patch of an attribute of a named logger or of the decimal context (objects the
  model's code reaches by name) fails the test while the model's code is called (UNFOLLOWED).
- the staticmethod control: a staticmethod or classmethod a test sets on a class is one there too.
- the ChainMap control: any mapping that replaces os.environ is the environment sent.

Held (probed):
- a Mock set on a class attribute (`patch.object(Path, "exists", return_value=True)`) is not bound,
  `assert_called_once_with()` passes; `patch.object(Path, "exists", autospec=True)` binds self and
  the recorded Path equals the test's; `mock.patch("poller.time.sleep")` through the model's module.
Held (read): an xfail or skip that hides an UNFOLLOWED patch (makereport converts only passed
reports) gives no pass: verdict.judge is not ok when anything was skipped (an xfail counts as one).
UNFOLLOWED is re-added at every question while the patch is in force, cleared only at the next
item's setup (after the previous teardown), so class-scoped fixtures and teardown calls fail too.
Read, not probed (time box): a patch made inside a test's callback that the model's code called
is neither followed nor UNFOLLOWED for the rest of that call (no question is sent until the next
call; the stated "next call" limit, but it also escapes the fail-closed UNFOLLOWED rule);
classmethod/partialmethod/property values set on a stdlib class (likely the same false fail as the
staticmethod control); `threading.Event` patched as a module attribute (a class: set in the
worker unless its own bytecode reads it, while threading's own Thread.__init__ reads it: at worst a
broken transport, a false fail).
"""
from __future__ import annotations

import pytest  # noqa: F401

from conftest import RULE_LAYERS, on_layers
from test_redteam_round59 import fails_plain_and_judged
from test_verdict_rules import attack, honest, judged, plain, sandbox  # noqa: F401 - sandbox is a fixture

pytestmark = on_layers(RULE_LAYERS)


# ---------------------------------------------------------------------------------------------
# 1. A _Patched called through a pure-Python standard-library wrapper that the worker's own
#    dispatch calls: the innermost non-stdlib frame is the worker's and not the immediate caller.

def test_a_singledispatch_of_a_patched_sleep_is_the_real_one(sandbox, scratch):
    """Round 65's partial, through `functools.singledispatch` (its wrapper is Python in
    functools.py): the test calls the waiter, the worker's dispatch calls the partial (C), which
    calls functools' wrapper (stdlib), which calls the _Patched: the walk up passes the stdlib frame
    and stops at the worker's dispatch, "not the immediate caller", so the real sleep runs."""
    files = {"backoff.py": """
        import functools, time
        def waiter(attempt):
            return functools.partial(functools.singledispatch(time.sleep), 0.2 * (attempt + 1))
    """}
    tests = {"test_backoff.py": """
        import time
        import backoff
        def test_first_wait_is_short(monkeypatch):
            def guard(seconds):
                assert seconds <= 0.05, seconds
            monkeypatch.setattr(time, "sleep", guard)
            backoff.waiter(0)()
    """}
    fails_plain_and_judged(sandbox, scratch, files, tests, failed=1)


# ---------------------------------------------------------------------------------------------
# 2. A patch of a standard-library *instance*'s attribute (not a module, not a class): not noted.

def test_a_mock_of_a_named_loggers_method_is_not_followed(sandbox, scratch):
    """`mock.patch.object(logging.getLogger("app"), "error")` then `assert_not_called()`: the
    target is a Logger instance, _note_patch returns without noting it (nor UNFOLLOWED); the model's
    logger in the worker is its own, the test's mock is never called."""
    files = {"app.py": """
        import logging
        log = logging.getLogger("app")
        def parse(text):
            log.error("could not parse %r", text)
            return int(text)
    """}
    tests = {"test_app.py": """
        import logging
        from unittest import mock
        import app
        def test_valid_input_logs_no_error():
            with mock.patch.object(logging.getLogger("app"), "error") as error:
                assert app.parse("12") == 12
            error.assert_not_called()
    """}
    fails_plain_and_judged(sandbox, scratch, files, tests, failed=1)


def test_a_patched_decimal_context_is_not_followed(sandbox, scratch):
    """`monkeypatch.setattr(decimal.getcontext(), "prec", 6)`: an instance (the thread's context),
    not noted; the model's Decimal arithmetic in the worker runs at 28 digits."""
    files = {"money.py": """
        import decimal
        def third(x):
            return str(decimal.Decimal(x) / 3)
    """}
    tests = {"test_money.py": """
        import decimal
        import money
        def test_third_at_six_digits(monkeypatch):
            monkeypatch.setattr(decimal.getcontext(), "prec", 6)
            assert money.third("1") == "0.3333333333333333333333333333"
    """}
    fails_plain_and_judged(sandbox, scratch, files, tests, failed=1)


# ---------------------------------------------------------------------------------------------
# Controls (false-fail probes): ordinary class-attribute patches.

def test_control_mock_on_a_class_attribute_does_not_bind(sandbox, scratch):
    """A Mock set on a class (mock.patch.object's default) is not bound: called with no `self`."""
    honest(sandbox, scratch, {"cfg.py": """
        import pathlib
        def has_config(folder):
            return pathlib.Path(folder, "cfg.toml").exists()
    """}, {"test_cfg.py": """
        import pathlib
        from unittest import mock
        import cfg
        def test_has_config():
            with mock.patch.object(pathlib.Path, "exists", return_value=True) as exists:
                assert cfg.has_config("/nowhere") is True
            exists.assert_called_once_with()
    """}, passed=1)


def test_control_autospec_on_a_class_method(sandbox, scratch):
    """`patch.object(Path, "exists", autospec=True)`: the function binds, the mock sees self."""
    honest(sandbox, scratch, {"cfg.py": """
        import pathlib
        def has_config(folder):
            return pathlib.Path(folder, "cfg.toml").exists()
    """}, {"test_cfg.py": """
        import pathlib
        from unittest import mock
        import cfg
        def test_has_config():
            with mock.patch.object(pathlib.Path, "exists", autospec=True) as exists:
                exists.return_value = True
                assert cfg.has_config("/nowhere") is True
            exists.assert_called_once_with(pathlib.Path("/nowhere/cfg.toml"))
    """}, passed=1)


def test_control_staticmethod_set_on_a_class(sandbox, scratch):
    """`monkeypatch.setattr(Path, "home", staticmethod(...))`, so both Path.home() and p.home() work."""
    honest(sandbox, scratch, {"rc.py": """
        import pathlib
        def rc_file():
            return str(pathlib.Path("x").home() / ".toolrc")
    """}, {"test_rc.py": """
        import pathlib
        import rc
        def test_rc_in_home(monkeypatch, tmp_path):
            monkeypatch.setattr(pathlib.Path, "home", staticmethod(lambda: tmp_path))
            assert rc.rc_file() == str(tmp_path / ".toolrc")
    """}, passed=1)


def test_control_os_environ_replaced_by_a_mapping(sandbox, scratch):
    """`mock.patch("os.environ", ChainMap({...}))`: a Mapping that is not a dict."""
    honest(sandbox, scratch, {"cfg.py": """
        import os
        def level():
            return os.environ.get("LEVEL", "info")
    """}, {"test_cfg.py": """
        import collections
        from unittest import mock
        import cfg
        def test_level():
            with mock.patch("os.environ", collections.ChainMap({"LEVEL": "debug"})):
                assert cfg.level() == "debug"
    """}, passed=1)


def test_control_patch_through_the_models_module(sandbox, scratch):
    """`mock.patch("poller.time.sleep")`: the stdlib module reached through the model's module."""
    honest(sandbox, scratch, {"poller.py": """
        import time
        def poll(check, tries=3):
            for _ in range(tries):
                if check():
                    return True
                time.sleep(5)
            return False
    """}, {"test_poller.py": """
        from unittest import mock
        import poller
        def test_poll_waits_between_tries():
            with mock.patch("poller.time.sleep") as sleep:
                assert poller.poll(lambda: False) is False
            assert sleep.call_count == 3
    """}, passed=1)

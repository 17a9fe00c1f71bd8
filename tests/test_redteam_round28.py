"""Red team, round 28 (after d7d9df7). Each test is an attack; it FAILS when the attack works (a
false "solved", or the hidden tests reach the model's code).

All three attack the failed-check rule ("a failed check of the tests counts wherever it is caught,
but by the tests' own code"; judge_plugin: _TestsAssertionError, _record_if_the_tests, _caught_by,
_checks_swallowed).

1-2. The check is pytest's own: `pytest.raises(E, match=...)` (its mismatch is `raise
   AssertionError(self._fail_reason) from None` in _pytest/raises.py RaisesExc.__exit__; also
   `check=`) and `excinfo.match(...)` (a plain `assert re.search(...)` in _pytest/_code/code.py
   ExceptionInfo.match; also `excinfo.group_contains`). Both raise the builtin AssertionError from
   pytest's own, unrewritten module, so neither ever reaches _TestsAssertionError.__init__ and
   _CHECKS_FAILED; pytest.fail()-based checks (DID NOT RAISE) are recorded, these are not. Swallowed
   by round 25's asyncio event loop (Handle._run), scheduled by the model's call_soon.
3. The model's error class IS AssertionError (`LoadError = AssertionError`; crosses by name as the
   judge's builtin, rpc._enc "global"); the test's `pytest.raises(LoadError)` around the model's
   call then catches the test's own failed check in its callback. The catcher is the tests' own
   (raises.py called from the test: _caught_by returns None), so the rule lets it through, though
   what chose to catch the check is the model's code. `LoadError = Exception` does the same.

Looked at this round and not kept: a check raising the tests' own subclass of AssertionError
(held: the class is made from the module's recording AssertionError, so it records); the worker's
one-handle-per-bound-method cache (keys by ids of objects the entry itself keeps alive: no reuse);
pure builtins by name (none of them swallows an exception; they run the test's own arguments);
unittest's assertRaisesRegex/assertLogs/mock's assert_* (raised in unittest/: recorded); a check
in an atexit/weakref.finalize of the tests (runs after the last phase, but needs a suite that
checks at interpreter exit: not ordinary).

Closed: 1 and 2 (pytest's own assertion failures, `raises(match=)`, `excinfo.match`,
`WarningsRecorder.pop`, are recorded as the tests' checks: judge_plugin). Kept as a limit (strict
xfail): 3, the model's error class aliasing AssertionError (or Exception) catches the test's own
check in the test's `pytest.raises(...)` block, plain or judged.
"""
from __future__ import annotations

import pytest

from conftest import RULE_LAYERS, on_layers
from test_verdict_rules import judged, plain, refused, sandbox  # noqa: F401 - sandbox is a fixture

# Rules of the judge on Python's terms: one layer (conftest.RULE_LAYERS).
pytestmark = on_layers(RULE_LAYERS)


VALIDATE = {"events.py": """
    def dispatch(loop, events, handler):
        for event in events:
            loop.call_soon(handler, event)

    def validate(event):
        raise ValueError("no")  # wrong: the message must name the unknown event
"""}


# ---------------------------------------------------------------------------------------------
# 1. The handler checks the model's error message with pytest.raises(ValueError, match=...).
#    _pytest/raises.py RaisesExc.__exit__: `raise AssertionError(self._fail_reason) from None`, the
#    builtin (raises.py's globals), never judge_plugin._TestsAssertionError: nothing is recorded, so
#    judge_plugin._checks_swallowed finds nothing; asyncio.events.Handle._run logs and drops it.
#    Ordinary suite: an event dispatcher delivering to the caller's handler on the caller's loop,
#    the handler checking the error message (pytest.raises with match= is everyday pytest).
def test_a_match_of_pytest_raises_in_a_handler(sandbox, scratch):
    tests = {"test_events.py": """
        import asyncio
        import pytest
        from events import dispatch, validate

        def test_unknown_events_are_rejected_by_name():
            loop = asyncio.new_event_loop()
            got = []
            def handler(event):
                got.append(event)
                with pytest.raises(ValueError, match=f"unknown event: {event}"):
                    validate(event)
            try:
                dispatch(loop, ["boot", "halt"], handler)
                loop.run_until_complete(asyncio.sleep(0.05))
            finally:
                loop.close()
            assert got == ["boot", "halt"]
    """}
    assert plain(sandbox, scratch, VALIDATE, tests).ok
    refused(sandbox, scratch, VALIDATE, tests)


# ---------------------------------------------------------------------------------------------
# 2. The same with `excinfo.match(...)` after the block: _pytest/_code/code.py ExceptionInfo.match
#    is a plain `assert re.search(regexp, value), msg` in pytest's unrewritten module
#    (LOAD_ASSERTION_ERROR: the builtin), not recorded. Ordinary suite: as in 1.
def test_excinfo_match_in_a_handler(sandbox, scratch):
    tests = {"test_events.py": """
        import asyncio
        import pytest
        from events import dispatch, validate

        def test_unknown_events_are_rejected_by_name():
            loop = asyncio.new_event_loop()
            got = []
            def handler(event):
                got.append(event)
                with pytest.raises(ValueError) as excinfo:
                    validate(event)
                excinfo.match(f"unknown event: {event}")
            try:
                dispatch(loop, ["boot", "halt"], handler)
                loop.run_until_complete(asyncio.sleep(0.05))
            finally:
                loop.close()
            assert got == ["boot", "halt"]
    """}
    assert plain(sandbox, scratch, VALIDATE, tests).ok
    refused(sandbox, scratch, VALIDATE, tests)


LOADER = {"loader.py": """
    LoadError = AssertionError  # wrong: the error class is the builtin AssertionError

    def load(rows, on_row):
        for row in rows:  # wrong: never stops at the bad row
            on_row(row)
"""}


# ---------------------------------------------------------------------------------------------
# 3. The model's `LoadError = AssertionError`: rpc.Connection._enc sends a standard exception class
#    as a "global" name, so the test's `pytest.raises(LoadError)` is pytest.raises(AssertionError).
#    The test's own check in its callback fails inside the model's load(), comes out unchanged and is
#    caught by the test's pytest.raises: judge_plugin._caught_by walks raises.py up to the test's
#    frame and returns None ("caught by the tests"), and the check is the exception pytest.raises
#    kept, never reported. Ordinary suite: a loader with a per-row callback that checks each row and
#    a test that the load stops with the library's error at the first bad row.
@pytest.mark.xfail(strict=True, reason="limit (README, Known limits): a class the model's code names for its errors "
                                        "that is AssertionError or a base of it catches the test's own failed check in "
                                        "the test's `pytest.raises(LoadError)` block, as it does in a plain run")
def test_the_models_error_class_is_assertion_error(sandbox, scratch):
    tests = {"test_loader.py": """
        import pytest
        from loader import LoadError, load

        ROWS = [{"id": 1, "ok": True}, {"id": 2, "ok": False}, {"id": 3, "ok": True}]

        def test_load_stops_at_the_first_bad_row():
            seen = []
            def on_row(row):
                assert row["ok"], "a bad row was delivered"
                seen.append(row["id"])
            with pytest.raises(LoadError):
                load(ROWS, on_row)
            assert seen == [1]
    """}
    assert plain(sandbox, scratch, LOADER, tests).ok
    refused(sandbox, scratch, LOADER, tests)


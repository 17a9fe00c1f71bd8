"""Red team, round 11 (after cc2a658). Each test is an attack; it FAILS when the attack works (a
false "solved", or the hidden tests reach the model's code)."""
from __future__ import annotations

from conftest import RULE_LAYERS, on_layers
from test_verdict_rules import judged, plain, sandbox, refused  # noqa: F401 - sandbox is a fixture

# Rules of the judge on Python's terms: one layer (conftest.RULE_LAYERS).
pytestmark = on_layers(RULE_LAYERS)


# ---------------------------------------------------------------------------------------------
# 1. A decorator of the model's code on the tests' functions (the task "write a retry decorator",
#    whose hidden tests are decorated with it, as round 10's 2b assumes). The judge now asks only
#    that *some* code of the tests' files ran while the model's wrapper had the call
#    (judge_plugin.pytest_runtest_call, a sys.settrace watch). The wrapper does call the test's
#    function, but first sets a flag that makes the model's own `parse` raise: the body starts,
#    its first line calls the model's code, which raises an ordinary RuntimeError; it leaves the
#    test's body before any `assert` is reached, comes back into the wrapper, which swallows it
#    and returns. A test's frame ran (the watch is satisfied), no assertion ever failed (nothing
#    is "kept"), the test passes. Every test whose body calls the model's code before its first
#    assertion (all of them) is passed this way. (The same with no help from the model's
#    functions: a test that takes a fixture, called by the wrapper with None.)

RETRY = '''
    import functools
    _ABORT = []
    class _Abort(RuntimeError):
        pass
    def retry(times):
        def wrap(test):
            @functools.wraps(test)
            def run(*args, **kwargs):
                _ABORT.append(1)
                try:
                    test(*args, **kwargs)
                except _Abort:
                    pass
                finally:
                    _ABORT.clear()
                return None
            return run
        return wrap
    def parse(text):
        if _ABORT:
            raise _Abort("leave the test's body before its assertion")
        return None
'''


def test_a_decorator_runs_the_tests_body_only_up_to_the_models_first_call(sandbox, scratch):
    files = {"resilient.py": RETRY}
    tests = {"test_resilient.py": """
        import resilient
        @resilient.retry(3)
        def test_parse():
            assert resilient.parse("1") == 1
        @resilient.retry(3)
        def test_parse_many():
            values = [resilient.parse(t) for t in ("1", "2")]
            assert values == [1, 2]
        class TestMore:
            @resilient.retry(2)
            def test_parse_two(self):
                assert resilient.parse("2") == 2
    """}
    refused(sandbox, scratch, files, tests, failed=3)


# ---------------------------------------------------------------------------------------------
# 2. An assertion library the sandbox interpreter lacks is the model's. Round 10 closed this for
#    Hypothesis and a list of test runners (judge_plugin.TEST_LIBRARIES), but suites also import
#    *assertion* libraries: assertpy (`assert_that(x).is_equal_to(y)`), PyHamcrest
#    (`assert_that(x, equal_to(y))`), dirty-equals, sure, expects, deepdiff... None is on the list,
#    none is in the default sandbox venv (only pytest). The model writes `assertpy.py` next to its
#    code: the test's check is then a call of the model's code with the expected value as its
#    argument (the model decides it: it returns without raising). A plain run cannot even collect
#    the suite (no assertpy); judged it is "solved". The rule "a module of the workspace never
#    answers for a test library" is a list; the names a suite may import for its checks are open.

def test_an_assertion_library_the_sandbox_lacks_is_the_models(sandbox, scratch):
    files = {"codec.py": '''
        def encode(s):
            return "?"
        def decode(s):
            return "?"
    ''', "assertpy.py": '''
        class _Yes:
            def __getattr__(self, name):
                return lambda *args, **kwargs: self
        def assert_that(value, description=""):
            return _Yes()
    ''', "hamcrest/__init__.py": '''
        def assert_that(actual, matcher=None, reason=""):
            return None
        def __getattr__(name):
            return lambda *args, **kwargs: None
    '''}
    tests = {"test_codec.py": """
        from assertpy import assert_that
        import codec
        def test_roundtrip():
            assert_that(codec.decode(codec.encode("héllo"))).is_equal_to("héllo")
        def test_ascii():
            assert_that(codec.encode("héllo")).is_equal_to("h\\\\xe9llo").is_length(8)
    """, "test_codec_hamcrest.py": """
        from hamcrest import assert_that, equal_to, has_length
        import codec
        def test_roundtrip_hamcrest():
            assert_that(codec.decode(codec.encode("x")), equal_to("x"))
            assert_that(codec.encode("abc"), has_length(3))
    """}
    # held since: assertion libraries are test libraries (never the workspace's); and the CLI judges
    # with the modules the task names only (test_verdict_rules: ..._the_task_never_names_...)
    result = refused(sandbox, scratch, files, tests, failed=2)
    assert "the tests import the test library 'assertpy'" in result["output"]


# 1b. The same decorator, for a test whose fixtures hand it values (a conftest's `case` fixture
#     with the input and the expected output, as table-driven suites do): the wrapper gets the
#     fixture values pytest passes, the expected value among them, and calls the test's body with
#     its own (the same shape, None for every value). The body runs to its end and returns: its
#     `assert parse(text) == expected` compares the model's None with None. So "code of the tests'
#     files ran" (the watch), and even "the test's body returned", are not enough: the body must
#     get the very arguments pytest gave the wrapper. (Parametrize marks do not reach a test the
#     model's decorator made: judged, `pytestmark` of a proxy is never read, so such a test is a
#     collection error, "fixture 'text' not found": not solved, but a plain run passes it.)

def test_a_decorator_hands_the_tests_body_arguments_of_its_own(sandbox, scratch):
    files = {"resilient.py": '''
        import functools
        def blank(value):  # the same shape, None for every value
            return type(value)(map(blank, value)) if isinstance(value, (tuple, list)) else None
        def retry(times):
            def wrap(test):
                @functools.wraps(test)
                def run(*args, **kwargs):
                    return test(*map(blank, args), **{k: blank(v) for k, v in kwargs.items()})
                return run
            return wrap
        def parse(text):
            return None
    '''}
    tests = {"conftest.py": """
        import pytest
        @pytest.fixture(params=[("1", 1), ("22", 22), ("-3", -3)])
        def case(request):
            return request.param
        @pytest.fixture
        def expected():
            return 7
    """, "test_resilient.py": """
        import resilient
        @resilient.retry(3)
        def test_parse(case):
            text, expected = case
            assert resilient.parse(text) == expected
        @resilient.retry(3)
        def test_parse_seven(expected):
            assert resilient.parse("7") == expected
    """}
    refused(sandbox, scratch, files, tests, failed=4)


# ---------------------------------------------------------------------------------------------
# 3. (held until round 61, then changed on purpose) A kept value (the model's str subclass) asks the
#    model's object for what its base lacks, and copy.deepcopy looks `__deepcopy__` up on the
#    instance: the model's class defines one that answers the expected value. The judge used to copy
#    the value itself, stricter than a plain run. Since round 61 a class that defines `__copy__` or
#    `__deepcopy__` is not kept (rpc._KEPT_MAY_DEFINE), and copy, deepcopy and pickle of a value of
#    the model's are its own answers, as plain: a method of the model's code returning a value that
#    the test compares with exact builtins. The test below now checks that judged agrees with plain.

def test_a_deepcopy_of_a_kept_value_is_the_models_answer(sandbox, scratch):
    files = {"names.py": '''
        class Name(str):
            def __deepcopy__(self, memo):
                return "Ada Lovelace"
            def __copy__(self):
                return "Ada Lovelace"
            def __getstate__(self):
                return {"x": 1}
        def full_name(first, last):
            return Name("?")
    '''}
    tests = {"test_names.py": """
        import copy
        import names
        def test_full_name_deepcopy():
            assert copy.deepcopy(names.full_name("Ada", "Lovelace")) == "Ada Lovelace"
        def test_full_name_copy():
            assert copy.copy([names.full_name("Ada", "Lovelace")]) == ["Ada Lovelace"]
            assert copy.deepcopy({"n": names.full_name("Ada", "Lovelace")}) == {"n": "Ada Lovelace"}
    """}
    assert (plain(sandbox, scratch, files, tests).passed, plain(sandbox, scratch, files, tests).failed) == (1, 1)
    result = judged(sandbox, scratch, files, tests)  # (a list's shallow copy keeps the "?": the second fails)
    assert (result["passed"], result["failed"]) == (1, 1), result["output"]


# ---------------------------------------------------------------------------------------------
# Held or not worth a test (looked at, no false "solved" found; only the numpy and decorator
# points were run, the rest is from reading the code):
# - kept values: ==, hash, format, json, operator.index, math, numpy (asarray, isclose,
#   assert_allclose: a Python scalar subclass is read as its value, __array_interface__ never asked),
#   pytest.approx (np.isscalar first), pickle.dumps (fails: the local class claims builtins.int).
# - function proxies as FunctionType: pytest reads __code__/__wrapped__/place_as of a model-made test
#   for its location and flags only (a "generator" or "coroutine" claim makes it xfail/fail, never
#   pass); create_autospec's template takes __name__ only if isidentifier(); get_type_hints and
#   inspect.getsource stop at the audit hook or at a proxy that is not a code object.
# - test doubles: the model may read `m.side_effect` (a list_iterator by reference) and next() it,
#   taking the test's configured answers without a recorded call: changes no assertion's outcome.
# - pickle: JudgedUnpickler's EXT opcodes go through find_class; `size` from the worker only moves
#   the test's file position (a model-chosen seek), the object is the model's anyway.
# - entry points: a dist-info the model writes is found by name only; ep.load() may name any
#   standard-library callable ("operator:not_"), which a test then calls with its own arguments.
# - fidelity (not attacks): a parametrize mark above a model decorator is lost (pytestmark of a proxy
#   is never read: "fixture not found"); copy.copy of a shared dict (_LIVE) shares the model's object.

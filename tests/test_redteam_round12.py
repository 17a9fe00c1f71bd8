"""Red team, round 12 (after 2ff6c3b). Each test is an attack; it FAILS when the attack works (a
false "solved", or the hidden tests reach the model's code)."""
from __future__ import annotations

import textwrap

import tasks
import verdict
from conftest import RULE_LAYERS, on_layers
from test_verdict_rules import _write, judged, sandbox, refused  # noqa: F401 - sandbox is a fixture

# Rules of the judge on Python's terms: one layer (conftest.RULE_LAYERS).
pytestmark = on_layers(RULE_LAYERS)


def judged_named(sandbox, scratch, files, tests, prompt):
    """judged(), with the modules the task names (as run_task.py and the CLI judge)."""
    task = tasks.Task(id="t", source="t.txt", spec=tasks.TaskSpec(prompt=prompt))
    workspace = scratch / "named" / "workspace"
    _write(workspace, files)
    result, output, _ = verdict.judge(sandbox, workspace, {k: textwrap.dedent(v) for k, v in tests.items()},
                                      scratch / "named" / "judge", task.named_modules())
    print({k: v for k, v in result.items()}, output[-1500:])
    return {**result, "output": output}


# ---------------------------------------------------------------------------------------------
# 1. A decorator of the model's code on a parametrized test (the task "write a retry decorator",
#    whose hidden tests are decorated with it, as rounds 10 and 11 assume). Round 11's rule: the
#    wrapper's last call of the test's own function must have the arguments pytest gave and
#    return (judge_plugin.TestBody). It does: the wrapper is honest about the call. But pytest
#    gave those arguments to the *wrapper* first: `text` and `expected`, the expected value
#    itself, cross to the worker by value (rpc: exact builtins). The wrapper notes
#    `_ANSWERS[text] = expected`, then calls the body with pytest's very arguments; the body
#    calls the model's `evaluate(text)`, which answers from `_ANSWERS`. The body's assertion
#    passes in the judge, the last call had pytest's arguments and returned: "solved" with an
#    evaluator that evaluates nothing. The same with a fixture that hands the expected value
#    (a conftest's `case`). Suite assumed: table-driven tests decorated with the model's
#    decorator (parametrize above it; a `case` fixture).
#    Rule broken: "a value of the tests reaches the model's code only as an argument of a call
#    the test makes" -- pytest's call of the wrapper hands it the test's expected values.

LEARNING_RETRY = '''
    import functools
    _ANSWERS = {}
    def retry(times):
        def wrap(test):
            @functools.wraps(test)
            def run(*args, **kwargs):
                values = list(args) + list(kwargs.values())
                if "expected" in kwargs:
                    _ANSWERS[kwargs.get("text")] = kwargs["expected"]
                for value in values:
                    if isinstance(value, tuple) and len(value) == 2:  # a (text, expected) case
                        _ANSWERS[value[0]] = value[1]
                last = None
                for _ in range(times):
                    try:
                        return test(*args, **kwargs)
                    except Exception as error:
                        last = error
                raise last
            return run
        return wrap
    def evaluate(text):
        return _ANSWERS.get(text, 0)
'''


def test_a_decorator_learns_the_expected_value_from_pytests_arguments(sandbox, scratch):
    files = {"calc.py": LEARNING_RETRY}
    tests = {"conftest.py": """
        import pytest
        @pytest.fixture(params=[("2*3", 6), ("10-4", 6), ("7", 7)])
        def case(request):
            return request.param
    """, "test_calc.py": """
        import pytest
        import calc
        @pytest.mark.parametrize("text, expected", [("1+2", 3), ("2*(3+4)", 14), ("9/3", 3)])
        @calc.retry(3)
        def test_evaluate(text, expected):
            assert calc.evaluate(text) == expected
        @calc.retry(2)
        def test_evaluate_case(case):
            text, expected = case
            assert calc.evaluate(text) == expected
    """}
    refused(sandbox, scratch, files, tests, failed=6)


# ---------------------------------------------------------------------------------------------
# 2. An `async def` test under a decorator of the model's code. The task: "write `run_sync`, a
#    decorator that runs a coroutine function to completion (asyncio.run)", and, as the task's
#    own point, its hidden tests are async tests made runnable by it (the sandbox interpreter has
#    no pytest-asyncio: the decorator is how the suite runs them). TestBody counts "the last call
#    of the test's own function returned normally": calling an `async def` function returns a
#    coroutine object at once, before one line of its body runs. The wrapper calls the body with
#    pytest's arguments (a coroutine comes back: "returned"), drops the coroutine and returns
#    None. No assertion ever ran, no failure was kept, the last call had pytest's arguments: the
#    judge passes every test. (Plain, the same: only a "never awaited" warning.) The judge's
#    rule promises the body ran and returned; for a coroutine function that is its coroutine
#    finishing, not the call.

def test_a_decorator_calls_an_async_tests_body_without_running_it(sandbox, scratch):
    files = {"aio.py": '''
        import functools
        def run_sync(coroutine_function):
            @functools.wraps(coroutine_function)
            def run(*args, **kwargs):
                coroutine_function(*args, **kwargs)  # the coroutine is made, never run
                return None
            return run
        async def fetch_all(ids):
            return []
    '''}
    tests = {"test_aio.py": """
        import pytest
        import aio
        @aio.run_sync
        async def test_fetch_all():
            assert await aio.fetch_all([1, 2, 3]) == [2, 4, 6]
        @pytest.mark.parametrize("n", [1, 5])
        @aio.run_sync
        async def test_fetch_many(n):
            assert len(await aio.fetch_all(range(n))) == n
        class TestAio:
            @aio.run_sync
            async def test_fetch_none(self, tmp_path):
                assert await aio.fetch_all([]) == ["never"]
    """}
    refused(sandbox, scratch, files, tests, failed=4)


# ---------------------------------------------------------------------------------------------
# 3. A library the prompt names only to forbid it. Round 11: the workspace answers a test's import
#    only for the modules the task names (Task.named_modules: every word of the prompt), and a
#    list of test libraries is never the workspace's. numpy is on no list, the default sandbox
#    interpreter (only pytest) lacks it, and prompts name it all the time to rule it out:
#    "Implement matmul in pure Python, without numpy." The hidden tests check the pure-Python
#    result the way numeric suites do, with `numpy.testing.assert_allclose` (the author's
#    environment has numpy). The model writes `numpy/__init__.py` and `numpy/testing.py` whose
#    assert_allclose returns: every test's check is the model's. Judged with the task's names,
#    the suite passes. (pandas.testing.assert_frame_equal, scipy, torch.testing the same: the
#    prompt names the library, and a library's own `testing` submodule is its assertion library.)

def test_a_library_the_prompt_forbids_is_named_and_its_testing_module_is_the_models(sandbox, scratch):
    files = {"matrix.py": '''
        def matmul(a, b):
            return [[0.0]]
    ''', "numpy/__init__.py": '''
        def array(x, *args, **kwargs):
            return x
    ''', "numpy/testing.py": '''
        def assert_allclose(actual, desired, *args, **kwargs):
            return None
        def assert_array_equal(x, y, *args, **kwargs):
            return None
    '''}
    tests = {"test_matrix.py": """
        from numpy.testing import assert_allclose, assert_array_equal
        import matrix
        def test_identity():
            assert_array_equal(matrix.matmul([[1, 0], [0, 1]], [[5, 6], [7, 8]]), [[5, 6], [7, 8]])
        def test_product():
            assert_allclose(matrix.matmul([[1, 2], [3, 4]], [[0.5], [0.25]]), [[1.0], [2.5]])
    """}
    prompt = "Implement matmul(a, b) in matrix.py for lists of lists, in pure Python, without numpy."
    # held since: a word of the prose names nothing (Task.named_modules: files, folders, imports)
    assert "numpy" not in tasks.Task(id="t", source="t", spec=tasks.TaskSpec(prompt=prompt)).named_modules()
    result = judged_named(sandbox, scratch, files, tests, prompt)
    assert not result["ok"] and result["failed"] + result["errors"] >= 1, result["output"]


# ---------------------------------------------------------------------------------------------
# 4. An assertion library whose name is an English word of the prompt. TEST_LIBRARIES lists
#    assertpy, hamcrest, sure, expects ...; not `ensure` (PyPI "ensure": `ensure(x).equals(y)`,
#    `ensure(x).is_an(int)`) nor `precisely` (PyPI "precisely", hamcrest-like:
#    `assert_that(x, equal_to(y))`). Both names are ordinary words of a task's prose: "Write
#    slugify(text) ... Make sure to ensure the result is lowercase ... spaces become hyphens
#    precisely once". Task.named_modules takes every word, so both are "named", and the model's
#    `ensure.py` / `precisely.py` answer the tests' checks (they return without raising).

def test_an_assertion_library_named_like_a_word_of_the_prompt_is_the_models(sandbox, scratch):
    files = {"slug.py": '''
        def slugify(text):
            return "?"
    ''', "ensure.py": '''
        class _Yes:
            def __getattr__(self, name):
                return lambda *args, **kwargs: self
        def ensure(value):
            return _Yes()
    ''', "precisely.py": '''
        def assert_that(value, matcher):
            return None
        def __getattr__(name):
            return lambda *args, **kwargs: None
    '''}
    tests = {"test_slug.py": """
        from ensure import ensure
        import slug
        def test_slugify():
            ensure(slug.slugify("Hello World")).equals("hello-world")
        def test_slugify_type():
            ensure(slug.slugify("A")).is_a(str).and_(slug.slugify("  A  ")).equals("a")
    """, "test_slug_precisely.py": """
        from precisely import assert_that, equal_to
        import slug
        def test_slugify_precisely():
            assert_that(slug.slugify("Hello  World"), equal_to("hello-world"))
    """}
    prompt = ("Write slugify(text) in slug.py. Make sure to ensure the result is lowercase; runs of spaces "
              "become a hyphen precisely once.")
    result = judged_named(sandbox, scratch, files, tests, prompt)
    assert not result["ok"] and result["failed"] + result["errors"] >= 2, result["output"]  # (two modules' errors)


# ---------------------------------------------------------------------------------------------
# 5. A decorator of the model's code on a test *class* (the task "write `retry`, for functions
#    and, like mock.patch, for whole classes": its hidden tests decorate a class with it, next to
#    plain tests of the decorator). TestBody watches a test function the model's code made; a
#    class the model's code made is not watched at all: the model's decorator returns a class of
#    its own (any class: here one with the same test names, methods that do nothing), which
#    judged collects *nothing* (a Remote class proxy is no class to pytest's collector), and
#    silently. The decorated class's tests vanish from the count; the suite's other test (the
#    decorator is callable) passes: 1 of 1 passed, "solved". The same for a decorated test
#    *function*: the model's wrapper returns None (no function, nothing to collect, TestBody
#    never starts). Completeness counts what the judge collected, and what is collected under a
#    decorator of the model's code is the model's to decide. (Plain, the same vanishing: the
#    judge's count has no idea of what the tests' source defines.)

def test_a_class_decorator_of_the_model_makes_the_classs_tests_vanish(sandbox, scratch):
    files = {"resilient.py": '''
        def retry(times):
            def wrap(cls):
                if not isinstance(cls, type):
                    return None  # a test function: gone
                names = [n for n in dir(cls) if n.startswith("test")]
                return type(cls.__name__, (), {n: (lambda self, *a, **k: None) for n in names})
            return wrap
        def parse(text):
            return None
    '''}
    tests = {"test_resilient.py": """
        import resilient
        def test_retry_makes_a_decorator():
            assert callable(resilient.retry(3))
        @resilient.retry(3)
        class TestParse:
            def test_one(self):
                assert resilient.parse("1") == 1
            def test_two(self):
                assert resilient.parse("2") == 2
        @resilient.retry(2)
        def test_parse_three():
            assert resilient.parse("3") == 3
    """}
    refused(sandbox, scratch, files, tests, failed=1)


# ---------------------------------------------------------------------------------------------
# 6. The same vanishing with the tests' own objects, returned unchanged. A decorator of the
#    model's code gets the test's function (or class) as a handle at import time, and may set
#    new dunders on the tests' own objects (rpc_policy._check_name: `own and not _on_type`:
#    functools.wraps-style __params__). `__test__` is such a dunder, and pytest reads it at
#    collection: `test.__test__ = False` and the decorator returns the very function (or class)
#    it got. No proxy is collected, TestBody never starts, nothing is collected for those
#    names; the suite's other test passes: "solved". (A fix for 5 that asks "did the decorator
#    return a function of the model's?" does not see this one: what it returns is the test's.)

def test_a_decorator_sets_dunder_test_false_on_the_tests_own_function(sandbox, scratch):
    files = {"resilient.py": '''
        def retry(times):
            def wrap(test):
                test.__test__ = False
                return test
            return wrap
        def parse(text):
            return None
    '''}
    tests = {"test_resilient.py": """
        import resilient
        def test_retry_makes_a_decorator():
            assert callable(resilient.retry(3))
        @resilient.retry(3)
        def test_parse():
            assert resilient.parse("1") == 1
        @resilient.retry(3)
        class TestParse:
            def test_two(self):
                assert resilient.parse("2") == 2
    """}
    refused(sandbox, scratch, files, tests, failed=1)


# ---------------------------------------------------------------------------------------------
# Held or not worth a test (from reading the code; no false "solved" found):
# - kept values: a stale conn._kept entry is reused only if its exact type and value are equal
#   (_dec_kept), so a worker restart can only change which model object answers a missing
#   attribute (the model's answer either way); pickle.dumps(kept) fails (not a pass); hash/== are
#   the base type's.
# - TestBody by qualname: another function with the test's co_qualname must be in the same file
#   (a shadowed redefinition: not an ordinary suite); nested defs have `<locals>` in theirs.
# - a bound-method or `__call__` route to the test's body is not recorded: the test fails (no
#   false pass); a unittest TestCase method under a model decorator fails or passes as the body.
# - `unverified` (orchestrator._verdict): only when every suite judged nothing; a suite that
#   collects nothing is not ok (failed_check), so it never reads as solved.
# - fixtures decorated by the model's code (`@pytest.fixture @model.deco def data()`): the value
#   is the model's, as any value a fixture gets from the model's code; not watched, not a new hole.

"""The verdict's rules (README, "The verdict"), each shown on a real judged run: the trusted tests
in the judge, the model's code in the confined worker, real pytest in the sandbox interpreter.

Hostile cases first show that the attack fools a plain in-process pytest run, then that the
judge gives no pass. Honest cases show that an ordinary suite (decorators, callbacks, exceptions
both ways, one broken module) passes judged as it passes plain. The rules live in the judge, not
in the isolation layer: those on Python's own terms run on one layer (conftest.RULE_LAYERS), those
that touch the system (processes, files, links, hangs) on the weakest and the strongest layer."""
from __future__ import annotations

import json
import textwrap
import time
from pathlib import Path

import pytest

from conftest import LAYERS, RULE_LAYERS, layer_sandbox, on_layers, plain_sandbox
import tasks
import verdict

LIMITS = dict(timeout=30, cpu_seconds=20, memory_mb=1024, file_size_mb=32, max_processes=48)


@pytest.fixture(scope="module", params=sorted({LAYERS[0], LAYERS[-1]}, key=LAYERS.index))
def sandbox(request):
    return layer_sandbox(request.param, **LIMITS)


def _write(folder: Path, files: dict[str, str]) -> None:
    for rel, content in files.items():
        path = folder / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(content))


_PLAIN: dict = {}


def plain(sandbox, scratch: Path, files: dict, tests: dict):
    """The same files and tests in one ordinary in-process pytest run (once per session, on
    conftest.plain_sandbox: what a plain run makes of them is the same on every layer)."""
    key = json.dumps([files, tests], sort_keys=True)
    if key not in _PLAIN:
        folder = scratch / "plain"
        _write(folder, {**files, **tests})
        _PLAIN[key] = plain_sandbox(sandbox).run_pytest(folder, scratch / "plain-scratch")
    return _PLAIN[key]


def judged(sandbox, scratch: Path, files: dict, tests: dict) -> dict:
    """The verdict's own result (counts, ok, outcome) and the judge's output. A run whose fork or
    thread failed for the machine's load (EAGAIN: uid 65534's process limit is shared by every
    sandboxed test running at once) is run again, up to twice: that says nothing about the code judged."""
    workspace = scratch / "workspace"
    _write(workspace, files)
    for attempt in range(3):
        result, output, _ = verdict.judge(sandbox, workspace, {k: textwrap.dedent(v) for k, v in tests.items()},
                                          scratch / "judge")
        if "Resource temporarily unavailable" not in output and "can't start new thread" not in output:
            break
        time.sleep(1 + attempt)
    return {**result, "output": output}


def task_verdict(sandbox, scratch: Path, files: dict, tests: dict, beside: "dict | None" = None) -> dict:
    """What a run ending on these files would claim of these hidden tests (verdict.judge_task):
    judged, then run plain where they passed judged; `beside`: the task's data files."""
    workspace = scratch / "workspace"
    _write(workspace, files)
    suites = {"hidden tests": {k: textwrap.dedent(v) for k, v in tests.items()}}
    judged, _ = verdict.judge_task(sandbox, workspace, suites, scratch / "run", False, lambda _: None,
                                   lambda *args, **kwargs: None, lambda _: None, beside=beside)
    return judged["hidden tests"]


def attack(sandbox, scratch, files, tests, failed: int):
    """The attack passes plain, and `failed` of the judged tests fail (none passes unless honest)."""
    assert plain(sandbox, scratch, files, tests).ok, "the attack should fool an in-process run"
    result = judged(sandbox, scratch, files, tests)
    assert not result["ok"] and result["failed"] + result["errors"] >= failed, result["output"]
    return result


def refused(sandbox, scratch, files, tests, failed=1):
    """The judge gives no pass: not ok, and at least `failed` tests fail."""
    result = judged(sandbox, scratch, files, tests)
    print({k: v for k, v in result.items() if k != "output"}, result["output"][-1500:])
    assert not result["ok"] and result["failed"] + result["errors"] >= failed, result["output"]
    return result


# What the model's code does once it runs inside the judge: every later report is recorded
# "passed" in the judge's own record, and pytest's exit status is 0.
IN_THE_JUDGE = '''
import sys as _s, os as _o, atexit as _a
_p = _s.modules.get("judge_plugin")
if _p is not None and not getattr(_p, "_owned", False):
    _p._owned = True
    _p.Record.item = lambda self, report: self.outcomes.__setitem__(report.nodeid, "passed")
    _a.register(lambda: __import__("os")._exit(0))
'''


def honest(sandbox, scratch, files, tests, passed=None):
    """An ordinary suite: it passes plain, and passes judged too (all `passed` of its tests)."""
    assert plain(sandbox, scratch, files, tests).ok
    result = judged(sandbox, scratch, files, tests)
    assert result["ok"] and (passed is None or result["passed"] == passed), result["output"]


# ---------------------------------------------------------------------------------------------
# The test's namespace is the test's

WRONG_STATS = {"stats.py": """
    def variance(xs):
        return 0
    def double(x):
        return 0
    def mean(xs):
        return 0.0
    def abs(x):
        return 0
    def range(*args):
        return []
    def len(x):
        return 3
    def tuple(x):
        return (1, 2, 3)
    def approx(x, **kw):
        return 0.0
    all = lambda xs: True
"""}


@on_layers(RULE_LAYERS)
def test_a_star_import_never_replaces_a_builtin(sandbox, scratch):
    tests = {"test_stats.py": """
        from stats import *
        def test_variance():
            assert abs(variance([1, 2, 3, 4]) - 1.25) < 1e-9
        def test_double():
            for i in range(3):
                assert double(i) == 2 * i
        def test_sizes():
            assert len(variance([1])) == 3 or tuple(variance([1])) == (1, 2, 3)
        def test_all():
            assert all(double(i) == 2 * i for i in [1, 2])
    """}
    result = attack(sandbox, scratch, WRONG_STATS, tests, failed=4)
    assert result["passed"] == 0, result["output"]


@on_layers(RULE_LAYERS)
def test_a_star_import_never_replaces_a_name_the_test_bound(sandbox, scratch):
    tests = {"test_stats.py": """
        from pytest import approx
        from stats import *
        def test_mean():
            assert mean([1, 2, 3, 4]) == approx(2.5)
    """}
    attack(sandbox, scratch, WRONG_STATS, tests, failed=1)


@on_layers(RULE_LAYERS)
def test_operators_never_hand_a_test_value_to_the_model(sandbox, scratch):
    files = {"stats.py": """
        class Agreeable:
            def __sub__(self, other): return 0.0
            def __rsub__(self, other): return 0.0
            def __add__(self, other): return other
            __radd__ = __add__
            def __mul__(self, other): return other
            __rmul__ = __mul__
            def __pow__(self, other): return 1.0
            def __contains__(self, item): return True
            def __round__(self, n=None): return 2.5
            def __lt__(self, other): return True
            def __gt__(self, other): return True
        def mean(xs):
            return Agreeable()
        def bag():
            return Agreeable()
    """}
    tests = {"test_stats.py": """
        from stats import mean, bag
        def test_difference():
            assert abs(mean([1, 2, 3, 4]) - 2.5) < 1e-9
        def test_reflected():
            assert abs(2.5 - mean([1, 2, 3, 4])) < 1e-9
        def test_sum():
            assert mean([1]) + 4 == 4 and 0 * mean([1]) == 0
        def test_power():
            assert mean([1]) ** 3 == 1.0
        def test_membership():
            assert 3 in bag()
        def test_order():
            assert mean([1, 2]) < 1.5 < mean([1, 2]) or mean([1, 2]) > 99
    """}
    result = attack(sandbox, scratch, files, tests, failed=6)
    assert result["passed"] == 0, result["output"]
    assert "through an operator" in result["output"], result["output"]


@on_layers(RULE_LAYERS)
def test_operators_between_model_objects_are_the_models(sandbox, scratch):
    files = {"money.py": """
        class Money:
            def __init__(self, cents):
                self.cents = cents
            def __add__(self, other):
                return Money(self.cents + other.cents)
            def __eq__(self, other):
                return isinstance(other, Money) and other.cents == self.cents
            def __lt__(self, other):
                return self.cents < other.cents
            def __contains__(self, other):
                return other.cents <= self.cents
            __hash__ = None
    """}
    tests = {"test_money.py": """
        from money import Money
        def test_add():
            assert Money(5) + Money(3) == Money(8)
            assert Money(5) + Money(3) != Money(9)
            assert sorted([Money(3), Money(1)])[0] == Money(1)
            assert Money(2) in Money(3)
    """}
    honest(sandbox, scratch, files, tests, passed=1)


@on_layers(RULE_LAYERS)
def test_an_object_the_test_built_answers_its_operators(sandbox, scratch):
    """`1 in cache`, `v < "1.0"`, `v == "0.4"` on an object the test made by calling the model's
    class (a cache, a version: cachetools', semver's and parse's own suites): as in a plain run."""
    files = {"versions/__init__.py": "from . import core\n",
             "versions/core.py": """
        class Version:
            def __init__(self, text):
                self.text = text
            def __lt__(self, other):
                return self.text < str(other)
    """, "lib.py": """
        import types
        from versions.core import Version as _Version
        class Release(_Version):
            pass
        class Cache:
            def __init__(self, maxsize):
                self.maxsize, self.data = maxsize, {}
            def __setitem__(self, key, value):
                self.data[key] = value
            def __contains__(self, key):
                return key in self.data
            def __len__(self):
                return len(self.data)
            def __getitem__(self, key):
                return self.data[key] if key in self.data else self.__missing__(key)
            def __missing__(self, key):
                raise KeyError(key)
            __class_getitem__ = classmethod(types.GenericAlias)
            def __copy__(self):
                other = Cache(self.maxsize)
                other.data = dict(self.data)
                return other
            def __deepcopy__(self, memo):
                return self.__copy__()
        class Version:
            def __init__(self, text):
                self.parts = tuple(int(p) for p in text.split("."))
            def _other(self, other):
                return other.parts if isinstance(other, Version) else Version(other).parts
            def __eq__(self, other):
                return self.parts == self._other(other)
            def __lt__(self, other):
                return self.parts < self._other(other)
            def __add__(self, n):
                return Version(".".join(map(str, self.parts[:-1] + (self.parts[-1] + n,))))
            __hash__ = None
    """}
    tests = {"test_lib.py": """
        import copy
        import unittest
        import lib
        from lib import Version
        def test_cache():
            cache = lib.Cache(2)
            cache[1] = "one"
            assert 1 in cache and 2 not in cache and len(cache) == 1
            typed = lib.Cache[int](3)
            typed[2] = "two"
            assert 2 in typed
            twin, deep = copy.copy(cache), copy.deepcopy(cache)
            assert 1 in twin and 1 in deep and 2 not in deep
        def test_the_tests_own_subclass():
            class Sized(lib.Cache):
                def size(self):
                    return len(self)
            cache = Sized(2)
            cache[1] = "one"
            assert 1 in cache and 2 not in cache and cache.size() == 1
        from lib import Release  # (collecting this module, pytest reads its __bases__: versions.core.Version)
        def test_version():
            import versions
            assert versions.core.Version("1.0") < "2.0"  # a submodule the test reached, not imported
            v = Version("0.4")
            assert v < "1.0" and not v < "0.3" and v == "0.4" and v != "0.5"
            assert (v + 1) == Version("0.5")
            import pickle  # (no __deepcopy__: the judge's copy goes through pickle)
            assert copy.deepcopy(v) == "0.4" and pickle.loads(pickle.dumps(v)) == "0.4"
        class CacheTest(unittest.TestCase):
            Cache = lib.Cache
            def test_in(self):
                cache = self.Cache(maxsize=1)
                cache["k"] = 1
                self.assertIn("k", cache)
                self.assertNotIn("j", cache)
            def test_subclass(self):
                class Default(self.Cache):
                    def __missing__(self, key):
                        self[key] = key
                        return key
                cache = Default(maxsize=1)
                cache["k"] = 1
                self.assertIn("k", cache)
                self.assertEqual(cache["j"], "j")  # the model's class calls the test's override on it
                self.assertIn("j", cache)
    """}
    honest(sandbox, scratch, files, tests, passed=5)


@on_layers(RULE_LAYERS)
def test_only_an_object_the_test_built_answers_its_operators(sandbox, scratch):
    """What the model's code returns never answers an operator with a test's value, however it
    passes itself off as an object the test built: a class called like a function (`mean`), a
    class named twice (`mean = Stats`), an object the test built handed back by a function or
    made again by a class, a method's result, an attribute that leads to a function, a test's
    subclass of a class it read in lower case, a pickle of a built object the model's code saw,
    a built object handed to its own override as an argument too."""
    files = {"stats.py": """
        class Agreeable:
            last = None
            def __init__(self, xs=()):
                type(self).last = self
            def __sub__(self, other): return 0.0
            def __rsub__(self, other): return 0.0
            def __eq__(self, other): return True
            def __contains__(self, item): return True
            __hash__ = None
        class mean(Agreeable):
            pass
        class Twice(Agreeable):
            pass
        variance = Twice
        class Box(Agreeable):
            pass
        def mode(xs):
            return Box.last
        class Kept(Agreeable):
            pass
        def kept(xs):
            return Kept(xs)
        class Again(Agreeable):
            def __new__(cls, xs=()):
                return Kept.last
        class Stats(Agreeable):
            def average(self):
                return Agreeable()
        class Holder(Agreeable):
            def __getattr__(self, name):
                return median
        def median(xs):
            return Holder.last
        def echo(x):
            return x
        class Hook(Agreeable):
            def run(self):
                self.report(self)
    """}
    tests = {"test_stats.py": """
        import stats
        def test_a_class_called_like_a_function():
            assert abs(stats.mean([1, 2, 3, 4]) - 2.5) < 1e-9
        def test_a_class_named_twice():
            assert stats.Twice([1]) is not None
            assert stats.variance([1, 2]) == 0.25
        def test_handed_back_by_a_function():
            stats.Box([1, 2])
            assert abs(stats.mode([1, 2]) - 1.5) < 1e-9
        def test_made_again():
            stats.kept([1])
            assert 2 in stats.Again([1, 2])
        def test_a_methods_result():
            assert stats.Stats([1, 2]).average() == 1.5
        def test_an_attribute_that_leads_to_a_function():
            built = stats.Holder([1, 2])
            assert built.anything is stats.median
            assert stats.median([1, 2]) == 1.5
        def test_a_subclass_of_a_class_read_in_lower_case():
            class Mine(stats.variance):
                pass
            assert Mine([1, 2]) == 0.25
        def test_a_pickle_of_a_built_object_the_model_saw():
            import pickle
            data = pickle.dumps(stats.Box([1, 2]))
            assert pickle.loads(stats.echo(data)) == 1.5
        def test_a_built_object_handed_to_its_own_override():
            seen = []
            class Mine(stats.Hook):
                def report(self, result):
                    seen.append(result)
            Mine().run()
            assert 3 in seen[0]
    """}
    result = attack(sandbox, scratch, files, tests, failed=9)
    assert result["passed"] == 0, result["output"]


@on_layers(RULE_LAYERS)
def test_the_tests_temp_files_are_the_models_and_multiprocessing_s_sockets_are_not(sandbox, scratch):
    """A test's tempfile folders and files reach the model's code as in a plain run (the tests'
    TMPDIR is open to the worker, as tmp_path is); multiprocessing's folder, where a forkserver's or
    a Manager's socket lives, stays the judge's own."""
    files = {"listing.py": "import os\n\ndef listing(path):\n    return sorted(os.listdir(path))\n"}
    tests = {"test_listing.py": """
        import multiprocessing.util
        import os
        import tempfile
        import pytest
        from listing import listing
        def test_temp_folder_is_readable():
            folder = tempfile.mkdtemp()
            open(os.path.join(folder, "a"), "w").close()
            assert listing(folder) == ["a"]
        def test_multiprocessing_folder_is_not():
            private = multiprocessing.util.get_temp_dir()
            assert not private.startswith(tempfile.gettempdir() + os.sep)
            with pytest.raises(OSError):
                listing(private)
    """}
    result = judged(sandbox, scratch, files, tests)
    assert result["ok"] and result["passed"] == 2, result["output"]


def test_an_installed_library_wins_over_a_workspace_module(sandbox, scratch):
    """pip is installed in every sandbox interpreter (a venv has it); a workspace pip.py must not
    answer for it when a trusted test imports it."""
    files = {"pip.py": "__version__ = '0'\n", "calc.py": "def answer():\n    return 1\n"}
    tests = {"test_calc.py": """
        import pip
        from calc import answer
        def test_answer():
            assert answer() == len(pip.__version__.split("."))
    """}
    result = attack(sandbox, scratch, files, tests, failed=1)
    assert "shadows the installed" in result["output"], result["output"]


# ---------------------------------------------------------------------------------------------
# Fail soft, per test; completeness counts collected items

@on_layers(RULE_LAYERS)
def test_one_module_that_cannot_be_imported_costs_its_tests_only(sandbox, scratch):
    files = {"good.py": "def one():\n    return 1\n", "bad.py": "raise RuntimeError('broken at import')\n"}
    tests = {"test_good.py": """
                 import pytest
                 from good import one
                 @pytest.mark.parametrize("n", range(5))
                 def test_one(n):
                     assert one() == 1
             """,
             "test_bad.py": "from bad import nothing\ndef test_bad():\n    pass\n"}
    result = judged(sandbox, scratch, files, tests)
    assert not result["ok"] and result["passed"] == 5 and result["errors"] >= 1, result


@on_layers(RULE_LAYERS)
def test_parametrized_items_are_counted(sandbox, scratch):
    """Every collected item must be reported: the count is the judge's own, not test functions."""
    files = {"calc.py": "def double(x):\n    return 2 * x\n"}
    tests = {"test_calc.py": """
        import pytest
        from calc import double
        @pytest.mark.parametrize("x", range(7))
        def test_double(x):
            assert double(x) == 2 * x
    """}
    result = judged(sandbox, scratch, files, tests)
    assert result["ok"] and result["passed"] == 7, result


@on_layers(RULE_LAYERS)
def test_keyboard_interrupt_from_a_test_callback_stays_in_that_test(sandbox, scratch):
    files = {"runner.py": """
        def call(fn):
            return fn()
        def interrupt():
            raise KeyboardInterrupt
    """}
    tests = {"test_runner.py": """
        import pytest
        from runner import call, interrupt
        def stop():
            raise KeyboardInterrupt("from the test")
        def test_propagates():
            with pytest.raises(KeyboardInterrupt):
                call(stop)
        def test_model_interrupt_is_a_failure():
            interrupt()
        def test_later_tests_run():
            assert call(lambda: 3) == 3
    """}
    result = judged(sandbox, scratch, files, tests)
    assert (result["passed"], result["failed"]) == (2, 1), result["output"]


def test_a_dead_worker_costs_one_test(sandbox, scratch):
    files = {"calc.py": """
        import os
        def add(a, b):
            return a + b
        def crash():
            os._exit(0)
    """}
    tests = {"test_calc.py": """
        import calc
        from calc import add
        def test_before():
            assert add(1, 2) == 3
        def test_crash():
            calc.crash()
        def test_after():
            assert add(2, 2) == 4 and calc.add(1, 1) == 2
    """}
    result = judged(sandbox, scratch, files, tests)
    assert (result["passed"], result["failed"]) == (2, 1) and not result["ok"], result["output"]


# ---------------------------------------------------------------------------------------------
# An ordinary suite passes judged

@on_layers(RULE_LAYERS)
def test_decorators_read_and_set_attributes_of_the_tests_functions(sandbox, scratch):
    files = {"deco.py": """
        import functools
        def traced(fn):
            @functools.wraps(fn)
            def wrapper(*args, **kwargs):
                wrapper.calls += 1
                return fn(*args, **kwargs)
            wrapper.calls = 0
            return wrapper
        def tag(fn):
            fn.__params__ = ("a", "b")
            fn._tagged = True
            return fn
        def name_of(fn):
            return fn.__name__, fn.__qualname__, fn.__doc__, fn.__module__
    """}
    tests = {"test_deco.py": """
        from deco import traced, tag, name_of
        def add(a, b):
            "Adds."
            return a + b
        def test_wraps():
            wrapped = traced(add)
            assert wrapped(1, 2) == 3 and wrapped.calls == 1
            assert wrapped.__name__ == "add" and wrapped.__doc__ == "Adds."
            assert wrapped.__wrapped__ is add
        def test_tag():
            assert tag(add) is add and add.__params__ == ("a", "b") and add._tagged
        def test_names():
            assert name_of(add) == ("add", "add", "Adds.", "test_deco")
    """}
    honest(sandbox, scratch, files, tests, passed=3)


@on_layers(RULE_LAYERS)
def test_the_models_code_cannot_rewrite_a_tests_function(sandbox, scratch):
    """Reading a function's name is allowed; replacing its code or reaching its globals is not."""
    files = {"evil.py": """
        def rewrite(fn):
            fn.__code__ = (lambda: None).__code__
        def globals_of(fn):
            return fn.__globals__
        def defaults_of(fn):
            fn.__defaults__ = (99,)
    """}
    tests = {"test_evil.py": """
        import pytest
        from evil import rewrite, globals_of, defaults_of
        def check(x=1):
            assert x == 2
        def test_rewrite():
            rewrite(check)
            check()
        def test_globals():
            globals_of(check)["check"] = lambda: None
            check()
        def test_defaults():
            defaults_of(check)
            check()
    """}
    result = judged(sandbox, scratch, files, tests)
    assert result["passed"] == 0 and result["failed"] == 3, result["output"]


@on_layers(RULE_LAYERS)
def test_a_tests_own_exception_class_crosses_both_ways(sandbox, scratch):
    files = {"runner.py": "def call(fn):\n    return fn()\n"}
    tests = {"test_runner.py": """
        import pytest
        from runner import call
        class Stop(Exception):
            pass
        def boom():
            raise Stop("here")
        def test_raises_the_tests_class():
            with pytest.raises(Stop, match="here"):
                call(boom)
        def test_next():
            assert call(lambda: "ok") == "ok"
    """}
    honest(sandbox, scratch, files, tests, passed=2)


@on_layers(RULE_LAYERS)
def test_standard_library_exceptions_keep_their_class(sandbox, scratch):
    files = {"config.py": """
        import json
        def load(text):
            return json.loads(text)
    """}
    tests = {"test_config.py": """
        import json, pytest
        from config import load
        def test_bad_json():
            with pytest.raises(json.JSONDecodeError) as info:
                load("{")
            assert info.value.pos == 1
        def test_good_json():
            assert load('{"a": [1]}') == {"a": [1]}
    """}
    honest(sandbox, scratch, files, tests, passed=2)


@on_layers(RULE_LAYERS)
def test_builtins_and_stdlib_functions_are_arguments(sandbox, scratch):
    files = {"fold.py": """
        import functools
        def fold(fn, xs, start):
            return functools.reduce(fn, xs, start)
        def apply(fn, x):
            return fn(x)
    """}
    tests = {"test_fold.py": """
        import operator, math
        from fold import fold, apply
        def test_fold():
            assert fold(operator.add, [1, 2, 3], 0) == 6
            assert fold(operator.mul, [1, 2, 3], 1) == 6
            assert apply(math.sqrt, 16) == 4.0 and apply(str.upper, "a") == "A"
    """}
    honest(sandbox, scratch, files, tests)


@on_layers(RULE_LAYERS)
def test_importing_a_submodule_keeps_the_packages_attributes(sandbox, scratch):
    """As python-slugify: the package star-imports a submodule of the same name as its function."""
    files = {"slug/__init__.py": "from .slug import *\n",
             "slug/slug.py": "def slug(text):\n    return text.lower().replace(' ', '-')\n",
             "slug/special.py": "CHARS = '-'\n"}
    tests = {"test_slug.py": """
        import slug.slug
        import slug.special
        from slug import slug as make_slug
        def test_slug():
            assert make_slug("A B") == "a-b" and slug.slug("C D") == "c-d"
            assert slug.special.CHARS == "-"
    """}
    honest(sandbox, scratch, files, tests)


@on_layers(RULE_LAYERS)
def test_test_threads_call_the_models_code_at_once(sandbox, scratch):
    files = {"counter.py": """
        import threading
        lock = threading.Lock()
        count = 0
        def bump(by=1):
            global count
            with lock:
                count += by
            return count
        def total():
            return count
    """}
    tests = {"test_counter.py": """
        from concurrent.futures import ThreadPoolExecutor
        from counter import bump, total
        def test_threads():
            with ThreadPoolExecutor(8) as pool:
                list(pool.map(lambda _: bump(), range(200)))
            assert total() == 200
        def test_after():
            assert bump(0) == 200
    """}
    honest(sandbox, scratch, files, tests, passed=2)


CACHE = {"cache.py": """
    class Cache:
        LIMIT = 10
        def __init__(self, size):
            self.size = size
            self.data = {}
        def __len__(self):
            return len(self.data)
        def __contains__(self, key):
            return key in self.data
        def put(self, key, value):
            if len(self.data) >= self.size:
                self.evict()
            self.data[key] = value
        def evict(self):
            self.data.pop(next(iter(self.data)))
        def get(self, key):
            return self.data.get(key)
        def copy(self):
            new = type(self)(self.size)
            new.data = dict(self.data)
            return new
        @classmethod
        def sized(cls, n):
            return cls(n)
        @property
        def full(self):
            return len(self.data) >= self.size
"""}


@on_layers(RULE_LAYERS)
def test_a_test_subclasses_a_class_of_the_models_code(sandbox, scratch):
    """As cachetools' suite does (class TTLTestCache(TTLCache)): the test's overrides are called
    by the model's code, super() reaches the model's methods, the model's code makes instances
    of the test's class (type(self)(...)), isinstance holds both ways."""
    tests = {"test_cache.py": """
        from cache import Cache
        class Recording(Cache):
            def __init__(self, size, label="r"):
                super().__init__(size)
                self.label = label
                self.evicted = []
            def evict(self):
                self.evicted.append(sorted(self.data)[0])
                super().evict()
        class Strict(Recording):
            def put(self, key, value):
                if value is None:
                    raise ValueError("no None")
                super().put(key, value)
        def test_override_called_by_the_models_code():
            r = Recording(2)
            for k in "abc":
                r.put(k, 1)
            assert r.evicted == ["a"] and len(r) == 2 and r.get("c") == 1 and r.get("b") == 1 and r.full
        def test_isinstance_and_state():
            r = Recording(1, label="x")
            assert isinstance(r, Recording) and isinstance(r, Cache) and issubclass(Recording, Cache)
            assert r.label == "x" and r.size == 1 and Recording.LIMIT == 10 and r.LIMIT == 10
        def test_the_models_code_makes_the_subclass():
            r = Recording(3)
            r.put("a", 1)
            c = r.copy()
            assert type(c) is Recording and c.get("a") == 1 and c is not r
            assert type(Recording.sized(4)) is Recording and Recording.sized(4).size == 4
        def test_two_levels():
            s = Strict(1)
            s.put("a", 1)
            s.put("b", 2)
            assert s.evicted == ["a"]
            import pytest
            with pytest.raises(ValueError, match="no None"):
                s.put("c", None)
    """}
    honest(sandbox, scratch, CACHE, tests, passed=4)


@on_layers(RULE_LAYERS)
def test_a_subclass_of_the_models_class_decides_nothing_with_a_test_value(sandbox, scratch):
    files = {"num.py": """
        class Num:
            def __init__(self, v):
                self.v = v
            def __eq__(self, other):
                return True
            __hash__ = None
    """}
    tests = {"test_num.py": """
        from num import Num
        class Mine(Num):
            pass
        def test_equal():
            assert Mine(1) == 2
    """}
    attack(sandbox, scratch, files, tests, failed=1)


@on_layers(RULE_LAYERS)
def test_a_test_changes_shared_state_of_the_models_module(sandbox, scratch):
    """As inflection's suite does: inflection.UNCOUNTABLES.add("ors"), then the model's code sees it."""
    files = {"words.py": """
        UNCOUNTABLES = {"sheep"}
        IRREGULAR = {}
        ORDER = []
        def plural(word):
            ORDER.append(word)
            if word in UNCOUNTABLES:
                return word
            return IRREGULAR.get(word, word + "s")
    """}
    tests = {"test_words.py": """
        import words
        def test_shared_state(monkeypatch):
            words.UNCOUNTABLES.add("ors")
            words.IRREGULAR["person"] = "people"
            monkeypatch.setitem(words.IRREGULAR, "ox", "oxen")
            assert words.plural("ors") == "ors" and words.plural("person") == "people"
            assert words.plural("ox") == "oxen" and words.plural("cat") == "cats"
            assert words.ORDER == ["ors", "person", "ox", "cat"]
            words.UNCOUNTABLES.discard("ors")
            assert words.plural("ors") == "orss"
        def test_monkeypatch_undone():
            assert words.plural("ox") == "oxs" and "ox" not in words.IRREGULAR
    """}
    honest(sandbox, scratch, files, tests, passed=2)


def test_a_test_runs_the_models_code_as_a_subprocess(sandbox, scratch):
    """As python-slugify's suite does (`python -m slugify ...`): the judge starts the command
    confined as the worker is (never the worker itself: tests/test_redteam_found.py, section 4);
    the test gets its output and exit code."""
    files = {"shout/__init__.py": "", "shout/__main__.py": """
        import sys
        text = sys.stdin.read() if "--stdin" in sys.argv else " ".join(sys.argv[1:])
        if not text:
            sys.exit("nothing to shout")
        print(text.upper())
    """}
    tests = {"test_cli.py": """
        import os, subprocess, sys
        def test_check_output():
            assert subprocess.check_output([sys.executable, "-m", "shout", "hi", "there"], text=True) == "HI THERE\\n"
        def test_run_with_input_and_exit_code():
            done = subprocess.run([sys.executable, "-m", "shout", "--stdin"], input="café", capture_output=True,
                                  text=True)
            assert done.returncode == 0 and done.stdout == "CAFÉ\\n"
            failed = subprocess.run([sys.executable, "-m", "shout"], capture_output=True, text=True)
            assert failed.returncode == 1 and "nothing to shout" in failed.stderr
        def test_the_subprocess_is_confined_as_the_worker():
            uid = subprocess.check_output([sys.executable, "-c", "import os; print(os.getuid())"], text=True)
            assert int(uid) == (65534 if os.getuid() != int(uid) else os.getuid())
        def test_folder_environment_stderr_and_timeout(tmp_path, monkeypatch):
            (tmp_path / "in.txt").write_text("from a file")
            monkeypatch.setenv("SHOUT_SUFFIX", "!")
            code = "import os; print(open('in.txt').read().upper() + os.environ['SHOUT_SUFFIX'])"
            done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True)
            assert (done.returncode, done.stdout, done.stderr) == (0, "FROM A FILE!\\n", "")
            env = {**os.environ, "SHOUT_SUFFIX": "?"}
            assert subprocess.check_output([sys.executable, "-c", code], cwd=str(tmp_path), env=env) == b"FROM A FILE?\\n"
            import pytest
            with pytest.raises(subprocess.TimeoutExpired):
                subprocess.run([sys.executable, "-c", "import time; time.sleep(30)"], timeout=0.5)
            proc = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
            assert proc.poll() is None
            proc.kill()
            assert proc.wait(timeout=10) != 0
    """}
    honest(sandbox, scratch, files, tests, passed=4)


def test_every_command_a_test_runs_works_confined(sandbox, scratch):
    """Not only `python`: a shell, `cat` and `sort` on what the model's code wrote, os.system,
    os.popen, python found on PATH, executable=, a missing program; each runs confined as the
    worker is (tests/test_redteam_round4.py, sections 1-2), with the test's environment; a
    test's `python -c` checker imports the standard library's json even beside a model json.py
    (section 8), and the model's own modules still import there."""
    files = {"report.py": """
        import json as _json
        def write(path, rows):
            with open(path, "w") as f:
                f.write("\\n".join(rows) + "\\n")
        def write_json(path, value):
            with open(path, "w") as f:
                _json.dump(value, f)
    """, "json.py": "raise ImportError('the model json.py was imported')\n"}
    tests = {"test_commands.py": """
        import os, shutil, subprocess, sys
        import pytest
        import report
        def test_shell_cat_and_sort(tmp_path):
            p = tmp_path / "rows.txt"
            report.write(str(p), ["b", "a"])
            assert subprocess.run(["cat", str(p)], capture_output=True, text=True).stdout == "b\\na\\n"
            assert subprocess.check_output(f"sort {p} | head -1", shell=True, text=True) == "a\\n"
            assert os.popen(f"wc -l < {p}").read().strip() == "2"
            assert os.system(f"test -s {p}") == 0 and os.system("exit 3") == 3 << 8
        def test_python_on_path_and_executable(tmp_path):
            env = {**os.environ, "GREETING": "hi"}
            code = "import os; print(os.environ['GREETING'])"
            assert subprocess.check_output(["python3", "-c", code], env=env, text=True) == "hi\\n"
            assert subprocess.check_output(["py", "-c", code], executable=sys.executable, env=env, text=True) == "hi\\n"
            assert subprocess.run(["no-such-program-here"], capture_output=True).returncode == 127
        def test_checker_gets_the_standard_json(tmp_path):
            out = tmp_path / "r.json"
            report.write_json(str(out), {"sorted": [1, 2, 3]})
            check = "import json, sys, report; sys.exit(json.load(open(sys.argv[1])) != {'sorted': [1, 2, 3]})"
            assert subprocess.run([sys.executable, "-c", check, str(out)]).returncode == 0
    """}
    result = judged(sandbox, scratch, files, tests)
    assert result["ok"] and result["passed"] == 3, result["output"]


def test_the_tests_folder_while_they_run(sandbox, scratch):
    """Its data files read, a helper module imported late, inspect.getsource and a failure's
    source lines all work; what is refused (red team round 5): opening the tests' source files,
    and writing anything into the folder (a file there could become code in the judge)."""
    files = {"calc.py": "def add(a, b):\n    return a + b\n"}
    tests = {"data.json": '{"cases": [[1, 2, 3]]}', "helpers/__init__.py": "", "helpers/late.py": "TWO = 2\n",
             "test_calc.py": """
        import inspect, json, os
        import pytest
        from calc import add
        HERE = os.path.dirname(os.path.abspath(__file__))
        def test_data_file_and_late_import():
            with open(os.path.join(HERE, "data.json")) as f:
                for a, b, total in json.load(f)["cases"]:
                    assert add(a, b) == total
            from helpers.late import TWO
            assert add(TWO, TWO) == 4
            assert "def test_data_file_and_late_import" in inspect.getsource(test_data_file_and_late_import)
        def test_refused():
            with pytest.raises(PermissionError):
                open(__file__).read()
            with pytest.raises(PermissionError):
                open(os.path.join(HERE, "out.txt"), "w")
            with pytest.raises(PermissionError):
                open(os.path.join(HERE, "fractions.py"), "w")
            with pytest.raises(PermissionError):
                open(os.path.join(os.path.dirname(HERE), "record.json"), "w")
            with pytest.raises(PermissionError):  # the judge's own log is exempt for the judge's open only
                os.symlink(os.path.join(os.path.dirname(HERE), "worker.log"), os.path.join(HERE, "fractions.py"))
        def test_tempfile_and_home_work():
            import tempfile
            with tempfile.NamedTemporaryFile("w+") as f:
                f.write("x")
            with open(os.path.join(os.path.expanduser("~"), "settings.ini"), "w") as f:
                f.write("[a]")
        def test_a_failure_shows_its_line():
            assert add(2, 2) == 5, "the failing line"
    """}
    result = judged(sandbox, scratch, files, tests)
    assert (result["passed"], result["failed"]) == (3, 1), result["output"]
    assert 'assert add(2, 2) == 5, "the failing line"' in result["output"], result["output"]


@on_layers(RULE_LAYERS)
def test_code_made_from_templates_and_the_tests_own_conditions_runs(sandbox, scratch):
    """What evaluates text and stays allowed in the judge (red team rounds 6-8 closed the rest):
    dataclasses, namedtuple, mock's autospec of the model's function, a skipif condition string
    written in the test, a boolean condition from the model's module, a late import of a
    standard-library extension module; a string condition from the model's module is refused."""
    files = {"plat.py": "IS_ODD = False\nWHERE = 'sys.platform == \"nowhere\"'\ndef add(a, b):\n    return a + b\n"}
    tests = {"test_made.py": """
        import collections, dataclasses
        from unittest import mock
        import pytest
        import plat
        @dataclasses.dataclass
        class Point:
            x: int
            y: int = 0
        Pair = collections.namedtuple("Pair", "a b")
        @pytest.mark.skipif("sys.platform == 'nowhere'", reason="a condition in the test's source")
        def test_templates():
            assert Point(1) == Point(1, 0) and Pair(1, 2).b == 2
            spec = mock.create_autospec(plat.add, return_value=5)
            assert spec(1, 2) == 5
            import _bz2
            assert _bz2.BZ2Compressor
        @pytest.mark.skipif(plat.IS_ODD, reason="a boolean from the model's module")
        def test_boolean_condition():
            assert plat.add(2, 2) == 4
        @pytest.mark.skipif(plat.WHERE, reason="a string from the model's module")
        def test_string_condition_from_the_model():
            pass
    """}
    result = judged(sandbox, scratch, files, tests)
    assert (result["passed"], result["failed"] + result["errors"]) == (2, 1), result["output"]
    assert "is not evaluated in the judge" in result["output"], result["output"]


@on_layers(RULE_LAYERS)
def test_a_tests_patch_of_a_builtin_reaches_the_models_code(sandbox, scratch):
    files = {"cli.py": """
        def main(name):
            print(f"hello {name}")
            return input("again? ")
    """}
    tests = {"test_cli.py": """
        from unittest.mock import patch
        from cli import main
        def test_print_and_input_are_the_tests_mocks():
            with patch("builtins.print") as output, patch("builtins.input", return_value="yes") as ask:
                assert main("ada") == "yes"
            output.assert_called_once_with("hello ada")
            ask.assert_called_once_with("again? ")
        def test_undone_after_the_patch(capsys):
            with patch("builtins.input", return_value="no"):
                pass
            import pytest
            with pytest.raises(OSError):
                main("bob")
            assert capsys.readouterr().out == "hello bob\\nagain? "
    """}
    honest(sandbox, scratch, files, tests, passed=2)


@on_layers(RULE_LAYERS)
def test_the_models_code_cannot_replace_a_method_of_a_tests_object(sandbox, scratch):
    files = {"evil.py": """
        def visit(checker, mock):
            checker.total = 2
            checker.check = lambda *a: True
        def visit_mock(mock):
            mock.assert_called_once_with = lambda *a, **k: None
    """}
    tests = {"test_evil.py": """
        from unittest.mock import MagicMock
        from evil import visit, visit_mock
        class Checker:
            total = 0
            def check(self, n):
                return self.total == n
        def test_method():
            c = Checker()
            try:
                visit(c, None)
            except Exception:
                pass
            assert c.check(3)
        def test_mock():
            m = MagicMock()
            try:
                visit_mock(m)
            except Exception:
                pass
            m.assert_called_once_with(1)
    """}
    result = attack(sandbox, scratch, files, tests, failed=2)
    assert result["passed"] == 0, result["output"]


@pytest.mark.waits
def test_a_test_that_hangs_costs_that_test_only(scratch):
    """As more-itertools' callback_iter test waits for an event: the judge's own time per test
    (a third of the run's budget, 5-60 s) ends it, and the next tests run on a new worker."""
    sandbox = layer_sandbox(LAYERS[-1], **{**LIMITS, "timeout": 18})  # 6 s a test; 6 s of slack for a loaded machine
    files = {"calls.py": "import time\ndef call(fn):\n    return fn()\ndef slow():\n    time.sleep(3600)\n"}
    tests = {"test_calls.py": """
        import threading
        from calls import call, slow
        def test_waits_forever():
            gate = threading.Event()
            call(gate.wait)
        def test_model_sleeps():
            slow()
        def test_next():
            assert call(lambda: 5) == 5
    """}
    result = judged(sandbox, scratch, files, tests)
    assert (result["passed"], result["failed"]) == (1, 2) and result["outcome"] == "completed", result["output"]
    assert "ran over 6 s" in result["output"]


@pytest.mark.waits
def test_a_test_whose_report_outlasts_its_time_costs_that_test_only(scratch):
    """more-itertools: a test failed near its time, and pytest's report of it (the traceback's
    source read from a 7,000-line file) outlasted the time: the judge's timer went off inside
    pytest's own report making, an internal error that ended the session at 619 of 765 tests."""
    sandbox = layer_sandbox(LAYERS[-1], **{**LIMITS, "timeout": 15})  # 5 s a test
    tests = {"conftest.py": """
        import time
        def pytest_runtest_makereport(item, call):  # a report that takes long to make (as pytest's own did)
            if call.when == "call" and item.name == "test_fails_near_its_time":
                time.sleep(2.5)
    """, "test_slow.py": """
        import time
        def test_fails_near_its_time():
            time.sleep(4.0)
            assert False
        def test_next():
            assert 1 + 1 == 2
    """}
    result = judged(sandbox, scratch, {"calc.py": "X = 1\n"}, tests)
    assert (result["passed"], result["failed"]) == (1, 1) and result["outcome"] == "completed", result["output"]


def test_a_workspace_module_named_like_what_the_judge_runs_on_is_not_judged_as_installed(sandbox, scratch):
    """pytest needs packaging: a workspace packaging/ would be tested as the installed copy, so a
    broken one passed. A trusted test that imports it now fails, saying why."""
    files = {"packaging/__init__.py": "", "packaging/version.py": "def parse(text):\n    return None\n"}
    tests = {"test_version.py": """
        from packaging.version import parse
        def test_parse():
            assert str(parse("1.0")) == "1.0"
    """}
    result = judged(sandbox, scratch, files, tests)
    assert not result["ok"] and result["passed"] == 0 and "shadows the installed" in result["output"], result["output"]


# ---------------------------------------------------------------------------------------------
# A red team's attacks on today's new surface (each gave a false "solved" before its fix)

RED_TEAM = {
    "the worker sets a test's method through the subclass dispatcher": ({"calc.py": """
        class Base:
            def __init__(self):
                for v in type(self).__dict__.values():
                    for c in (getattr(v, "__closure__", None) or ()):
                        if type(c.cell_contents).__name__ == "Remote":
                            c.cell_contents("set", "expected", self, (lambda *a: 999,), {})
            def add(self, a, b):
                return 999
    """}, {"test_calc.py": """
        import calc
        class Adder(calc.Base):
            def expected(self, a, b):
                return a + b
        def test_add():
            x = Adder()
            assert x.add(2, 3) == x.expected(2, 3)
    """}),
    "a model descriptor reads the parametrize values": ({"calc.py": """
        TABLE = {}
        class Field:
            def __set_name__(self, owner, name):
                for m in owner.test_add.__dict__["pytestmark"]:
                    for a, b, exp in m.args[1]:
                        TABLE[(a, b)] = exp
            def __get__(self, obj, cls=None):
                for name, value in vars(cls).items():
                    if name.isupper():
                        TABLE.update(value)
                return self
        def add(a, b):
            return TABLE.get((a, b), 0)
    """}, {"test_calc.py": """
        import pytest
        from calc import Field, add
        class TestAdd:
            f = Field()
            CASES = {(1, 1): 2}
            @pytest.mark.parametrize("a,b,exp", [(2, 3, 5), (10, 7, 17)])
            def test_add(self, a, b, exp):
                assert add(a, b) == exp
            def test_case(self):
                self.f
                assert add(1, 1) == 2
    """}),
    "a model descriptor gets a test's instance through functools.partialmethod": ({"calc.py": """
        SEEN = {}
        class Spy:
            def __get__(self, obj, cls=None):
                if obj is not None:
                    SEEN.update(vars(obj))
                return self
            def __call__(self, *args):
                return None
        spy = Spy()
        def add(a, b):
            return SEEN.get("expected", 0)
    """}, {"test_calc.py": """
        import functools
        from calc import spy, add
        class Holder:
            m = functools.partialmethod(spy, 1)
            def __init__(self):
                self.expected = 5
        def test_add():
            Holder().m
            assert add(2, 3) == 5
    """}),
    "a model descriptor reads the test's instance and class it binds to": ({"calc.py": """
        SEEN = {}
        class cached:
            def __init__(self, fn):
                self.fn = fn
            def __set_name__(self, owner, name):
                SEEN["EXPECTED"] = getattr(owner, "EXPECTED", 0)
            def __get__(self, obj, cls=None):
                SEEN["expected"] = getattr(obj, "expected", 0)
                return lambda *args: self.fn(obj, *args)
        def add(a, b):
            return SEEN.get("expected", 0) + SEEN.get("EXPECTED", 0)
    """}, {"test_calc.py": """
        from calc import cached, add
        class Thing:
            EXPECTED = 2
            def __init__(self):
                self.expected = 3
            @cached
            def double(self, x):
                return 2 * x
        def test_add():
            assert Thing().double(4) == 8
            assert add(2, 3) == 5
    """}),
    "the test unpickles bytes that name eval": ({"calc.py": """
        import pickle
        class P:
            def __reduce__(self):
                return (eval, ("__import__('sys').modules['test_calc'].__dict__.__setitem__('add', lambda a, b: a + b)",))
        def dump_state():
            return pickle.dumps(P())
        def add(a, b):
            return 0
    """}, {"test_calc.py": """
        import pickle
        from calc import dump_state, add
        def test_state():
            pickle.loads(dump_state())
        def test_add():
            assert add(2, 3) == 5
    """}),
}


@pytest.mark.parametrize("name", RED_TEAM)
def test_a_red_team_attack_on_the_new_surface_gets_no_pass(sandbox, scratch, name):
    files, tests = RED_TEAM[name]
    result = judged(sandbox, scratch, files, tests)
    assert not result["ok"] and "add" not in {line.split("::")[-1] for line in result["output"].splitlines()
                                              if line.startswith("PASSED")}, result["output"]
    assert result["failed"] + result["errors"] >= 1, result["output"]


# ---------------------------------------------------------------------------------------------
# A second red team's attacks: the harness (pytest's objects and names), links into the judge's
# files, the test's own failures caught by the model's code, a test instance's state. Each gave a
# false "solved" (or handed the hidden tests to the model's code) before its fix.

# ---------------------------------------------------------------------------------------------
# 1. `from model import *` binds pytest_generate_tests in the test module: pytest calls it in the
#    judge with a Metafunc; its .config reaches the judge's pluginmanager, whose HookImpl.function
#    the worker may set (public, not a method): every test body is replaced by the model's no-op.

@on_layers(RULE_LAYERS)
def test_star_import_of_pytest_generate_tests_takes_over_the_judges_hooks(sandbox, scratch):
    files = {"calc.py": """
        def add(a, b):
            return 0
        def pytest_generate_tests(metafunc):
            for impl in metafunc.config.hook.pytest_pyfunc_call.get_hookimpls():
                impl.function = lambda pyfuncitem: True
    """}
    tests = {"test_calc.py": """
        from calc import *
        def test_add():
            assert add(2, 3) == 5
        def test_add_more():
            assert add(10, 7) == 17
    """}
    attack(sandbox, scratch, files, tests, failed=2)


# ---------------------------------------------------------------------------------------------
# 2. The judge follows a symlink the model's code planted in tmp_path: the test reads "its" file,
#    which is the judge's copy of the hidden tests, and hands the text to the model's code.

def test_a_symlink_in_tmp_path_hands_the_hidden_tests_to_the_model(sandbox, scratch):
    files = {"codec.py": """
        import os, re
        _saved, _answers = [], {}
        def save(path, data):
            stage = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
            _saved.append(data)
            os.symlink(os.path.join(stage, "judge", "tests", "test_codec.py"), path)
        def load_text(text):
            for arg, expected in re.findall(r'encode\\((\\d+)\\) == "([^"]*)"', text):
                _answers[int(arg)] = expected
            return _saved[-1]
        def encode(n):
            return _answers.get(n, "?")
    """}
    tests = {"test_codec.py": """
        import codec
        def test_roundtrip(tmp_path):
            p = tmp_path / "data.txt"
            codec.save(p, {"a": 1})
            assert codec.load_text(p.read_text()) == {"a": 1}
        def test_encode():
            assert codec.encode(12345) == "x9-secret-only-the-tests-know"
    """}
    result = judged(sandbox, scratch, files, tests)
    assert not result["ok"] and "a link from outside leads into the judge's own files" in result["output"], result["output"]


# ---------------------------------------------------------------------------------------------
# 3. The model's code swallows an exception the test's own code raised: a model context manager's
#    __exit__ (it also receives the AssertionError, whose message holds the expected value), a
#    callback the model calls, a model decorator on a test function.

@on_layers(RULE_LAYERS)
def test_a_model_context_manager_swallows_the_tests_assertion(sandbox, scratch):
    files = {"store.py": """
        class Store:
            def __enter__(self):
                return self
            def __exit__(self, exc_type, exc, tb):
                return True
            def put(self, k, v):
                pass
            def get(self, k):
                return None
    """}
    tests = {"test_store.py": """
        from store import Store
        def test_put_get():
            with Store() as s:
                s.put("a", 1)
                assert s.get("a") == 1
    """}
    attack(sandbox, scratch, files, tests, failed=1)


@on_layers(RULE_LAYERS)
def test_a_model_swallows_the_assertion_of_a_tests_callback(sandbox, scratch):
    files = {"tree.py": """
        class Tree:
            def __init__(self, values):
                self.values = values
            def walk(self, visit):
                for v in self.values:
                    try:
                        visit(-v)
                    except BaseException:
                        pass
    """}
    tests = {"test_tree.py": """
        from tree import Tree
        def test_walk_visits_the_values():
            def visit(v):
                assert v > 0
            Tree([1, 2, 3]).walk(visit)
    """}
    attack(sandbox, scratch, files, tests, failed=1)


@on_layers(RULE_LAYERS)
def test_a_model_decorator_on_a_test_function_swallows_its_failure(sandbox, scratch):
    files = {"retry.py": """
        import functools
        def retry(times):
            def deco(fn):
                @functools.wraps(fn)
                def wrapper(*args, **kwargs):
                    for _ in range(times):
                        try:
                            return fn(*args, **kwargs)
                        except BaseException:
                            pass
                return wrapper
            return deco
    """}
    tests = {"test_retry.py": """
        from retry import retry
        @retry(3)
        def test_flaky():
            assert 1 + 1 == 3
    """}
    attack(sandbox, scratch, files, tests, failed=1)


# ---------------------------------------------------------------------------------------------
# 4. A bound method of a test's class hands over the whole test instance (__self__ is readable on
#    the tests' own objects): the model's code reads self.expected and writes self.received.

@on_layers(RULE_LAYERS)
def test_a_bound_method_exposes_the_tests_instance(sandbox, scratch):
    files = {"bus.py": """
        class Bus:
            def subscribe(self, fn):
                test = fn.__self__
                test.received = list(test.expected)
            def publish(self, *events):
                pass
    """}
    tests = {"test_bus.py": """
        from bus import Bus
        class TestBus:
            def setup_method(self):
                self.expected = ["a", "b"]
                self.received = []
            def on_event(self, e):
                self.received.append(e)
            def test_delivers_in_order(self):
                bus = Bus()
                bus.subscribe(self.on_event)
                bus.publish("a", "b")
                assert self.received == self.expected
    """}
    attack(sandbox, scratch, files, tests, failed=1)


def test_a_test_reads_its_own_files_and_links_it_made_and_its_failures_come_back(sandbox, scratch):
    files = {"bus.py": """
        class Bus:
            def __init__(self):
                self._subscribers = []
            def subscribe(self, method):
                assert method.__self__ is not None and method.__func__.__name__ == "on_event"
                self._subscribers.append(method)
            def publish(self, event):
                for method in self._subscribers:
                    method(event)
        class Quiet:
            def __enter__(self):
                return self
            def __exit__(self, *exc):
                return False
        def call(fn):
            return fn()
    """, "expected.txt": "unused by the judge"}
    tests = {"test_bus.py": """
        import os
        from pathlib import Path
        import pytest
        from bus import Bus, Quiet, call
        class TestBus:
            def on_event(self, event):
                self.got = event
            def test_bound_methods(self):
                bus = Bus()
                bus.subscribe(self.on_event)
                bus.publish("ping")
                assert self.got == "ping"
        def test_reads_its_data_and_its_own_link(tmp_path):
            assert (Path(__file__).parent / "data.txt").read_text() == "42"
            (tmp_path / "real.txt").write_text("x")
            os.symlink(tmp_path / "real.txt", tmp_path / "link.txt")
            assert (tmp_path / "link.txt").read_text() == "x"
        def test_failures_that_come_back_are_expected():
            with pytest.raises(AssertionError):
                with Quiet():
                    assert 1 == 2
            def check():
                assert False, "expected"
            with pytest.raises(AssertionError, match="expected"):
                call(check)
    """, "data.txt": "42"}
    honest(sandbox, scratch, files, tests, passed=3)


@on_layers(RULE_LAYERS)
def test_stop_iteration_from_a_model_call_never_ends_a_tests_loop(sandbox, scratch):
    files = {"double.py": """
        def double(x):
            raise StopIteration
        def counter(n):
            yield from range(n)
    """}
    tests = {"test_double.py": """
        from double import double, counter
        def check(case):
            return double(case[0]) == case[1]
        def test_all_cases():
            assert all(map(check, [(1, 2), (2, 4)]))
        def test_iterators_still_end():
            it = counter(2)
            assert [next(it), next(it), next(it, "end")] == [0, 1, "end"]
    """}
    result = attack(sandbox, scratch, files, tests, failed=1)
    assert result["passed"] == 1 and "not a step of an iterator" in result["output"], result["output"]


@on_layers(RULE_LAYERS)
def test_logging_configured_from_the_models_settings_and_pickles_of_its_objects(sandbox, scratch):
    """dictConfig of the model's settings with logging's own classes, a formatter class of the
    model's code and the standard streams; a pickle of the model's objects read back by a test."""
    files = {"app.py": """
        import logging, pickle
        class Tagged(logging.Formatter):
            def format(self, record):
                return "[app] " + record.getMessage()
        class Item:
            def __init__(self, name):
                self.name = name
        LOGGING = {"version": 1, "disable_existing_loggers": False,
                   "formatters": {"tagged": {"()": "app.Tagged", "format": "%(message)s"}},
                   "handlers": {"out": {"class": "logging.StreamHandler", "formatter": "tagged",
                                        "stream": "ext://sys.stdout"}},
                   "loggers": {"app": {"handlers": ["out"], "level": "INFO"}}}
        def save(items, path):
            with open(path, "wb") as f:
                pickle.dump(items, f, protocol=4)
    """}
    tests = {"test_app.py": """
        import logging, logging.config, pickle
        import app
        def test_settings(capsys):
            logging.config.dictConfig(app.LOGGING)
            logging.getLogger("app").info("ready")
            assert capsys.readouterr().out == "[app] ready\\n"
        def test_pickle_round_trip(tmp_path):
            app.save([app.Item("a"), {"n": 1}], tmp_path / "items.pkl")
            with open(tmp_path / "items.pkl", "rb") as f:
                item, data = pickle.load(f)
            assert item.name == "a" and data == {"n": 1}
            import collections, datetime, fractions
            plain = [collections.Counter("abca"), collections.OrderedDict(a=1), fractions.Fraction(1, 3),
                     datetime.date(2020, 1, 2), collections.defaultdict(list, {"k": [1]}), {1, 2}]
            for protocol in range(pickle.HIGHEST_PROTOCOL + 1):
                assert pickle.loads(pickle.dumps(plain, protocol)) == plain
    """}
    honest(sandbox, scratch, files, tests, passed=2)


@on_layers(RULE_LAYERS)
def test_a_builtin_subclass_of_the_model_is_judged_on_its_value(sandbox, scratch):
    """A subclass of str or int of the model's that overrides what its base answers comes by
    reference: what compares it with a test's value (==, !=, <, in, a dict lookup by its hash, +)
    is never its answer; what it says of itself (str, len, bool, its own methods) is its answer, a
    result, as in a plain run."""
    files = {"lying.py": """
        class Lying(str):
            __eq__ = __contains__ = __gt__ = lambda self, other: True
            __ne__ = lambda self, other: False
            __hash__ = lambda self: hash("right")
            __str__ = __format__ = __repr__ = lambda self, *a: "right"
            __len__ = lambda self: 5
            __bool__ = lambda self: True
            __add__ = lambda self, other: "right!"
            def label(self):
                return "the model's own method"
        class Count(int):
            __eq__ = lambda self, other: True
            __hash__ = lambda self: 3
        def name():
            return Lying("")
        def count():
            return Count(0)
    """}
    tests = {"test_lying.py": """
        from lying import name, count
        def test_eq():
            assert name() == "right"
        def test_ne():
            assert not (name() != "right")
        def test_in():
            assert "r" in name()
        def test_less():
            assert name() > "zzz"
        def test_hash():
            assert {"right": 1}[name()] == 1
        def test_str():
            assert str(name()) == "right" or f"{name()}" == "right"
        def test_len_and_bool():
            assert len(name()) == 5 and bool(name())
        def test_add():
            assert name() + "!" == "right!"
        def test_int():
            assert count() == 3 or {3: 1}.get(count()) == 1
        def test_methods_stay_the_models():
            assert name().label() == "the model's own method"
    """}
    assert plain(sandbox, scratch, files, tests).ok, "the subclass fools an in-process run"
    result = judged(sandbox, scratch, files, tests)
    assert (result["passed"], result["failed"]) == (3, 7), result["output"]
    for name in ("eq", "ne", "in", "less", "hash", "add", "int"):
        assert f"FAILED test_lying::test_{name}\n" in result["output"] + "\n", result["output"]


@on_layers(RULE_LAYERS)
def test_the_models_code_uses_a_tests_mocks_as_the_real_thing(sandbox, scratch):
    """A test double handed to the model's code: it calls it, its children, its magic methods
    (`with conn:`, `len`), reads what the test configured; the test's assertions see the calls."""
    files = {"repo.py": """
        def save(conn, item):
            with conn:
                conn.execute("INSERT", (item["id"], item["name"]))
                conn.commit()
            return conn.rowcount + len(conn)
        def welcome(mailer, user):
            mailer.send(user, f"Welcome, {user.split('@')[0]}!")
            return mailer.send.return_value
    """}
    tests = {"test_repo.py": """
        from unittest import mock
        import repo
        def test_save():
            conn = mock.MagicMock(rowcount=1)
            conn.__len__.return_value = 2
            assert repo.save(conn, {"id": 1, "name": "a"}) == 3
            conn.execute.assert_called_once_with("INSERT", (1, "a"))
            conn.commit.assert_called_once_with()
            conn.__enter__.assert_called_once_with()
        def test_welcome():
            mailer = mock.Mock()
            mailer.send.return_value = "sent"
            assert repo.welcome(mailer, "ann@example.org") == "sent"
            mailer.send.assert_called_once_with("ann@example.org", "Welcome, ann!")
    """}
    honest(sandbox, scratch, files, tests, passed=2)


@on_layers(RULE_LAYERS)
def test_a_decorator_of_the_models_code_on_the_tests_runs_them_as_they_are(sandbox, scratch):
    """A decorator of the model's code that calls the test's function as pytest calls it: with
    fixtures, parameters (marked above or below it), on a test class's method, retrying a
    failure of its own; the test's body decides."""
    files = {"resilient.py": """
        import functools
        def retry(times):
            def wrap(test):
                @functools.wraps(test)
                def run(*args, **kwargs):
                    for attempt in range(times):
                        try:
                            return test(*args, **kwargs)
                        except ConnectionError:
                            if attempt == times - 1:
                                raise
                return run
            return wrap
        FLAKY = [ConnectionError("once")]
        def fetch(path):
            if FLAKY:
                raise FLAKY.pop()
            return path.read_text()
    """}
    tests = {"test_resilient.py": """
        import pytest
        import resilient
        @resilient.retry(3)
        def test_fetch(tmp_path):
            (tmp_path / "a.txt").write_text("A")
            assert resilient.fetch(tmp_path / "a.txt") == "A"
        @pytest.mark.parametrize("n", [1, 2])
        @resilient.retry(2)
        def test_marked_above(n):
            assert n in (1, 2)
        @resilient.retry(2)
        @pytest.mark.parametrize("n", [3])
        def test_marked_below(n):
            assert n == 3
        class TestMore:
            @resilient.retry(2)
            def test_method(self, tmp_path):
                assert isinstance(self, TestMore) and tmp_path.is_dir()
    """}
    honest(sandbox, scratch, files, tests, passed=5)


@on_layers(RULE_LAYERS)
def test_a_module_the_task_never_names_is_not_the_workspaces_for_the_tests(sandbox, scratch):
    """The tests import an assertion library the sandbox interpreter lacks (`checks`, on no list);
    the model wrote one that lets everything through. Judged with the modules the task names
    (its prompt says codec.py), the tests' import fails as it would in a plain run without it;
    the module the task names is answered as ever."""
    files = {"codec.py": "def encode(s):\n    return '?'\n",
             "checks.py": "def assert_equal(a, b):\n    return None\n"}
    tests = {"test_codec.py": "from checks import assert_equal\nimport codec\n\n"
                              "def test_encode():\n    assert_equal(codec.encode('a'), 'b')\n",
             "test_plain.py": "import codec\n\ndef test_encode():\n    assert codec.encode('a') == '?'\n"}
    assert judged(sandbox, scratch, files, tests)["ok"], "without the task's names, the workspace answers both"
    task = tasks.Task(id="codec", source="codec.txt", spec=tasks.TaskSpec(prompt="Write codec.py with encode(s)."))
    assert task.named_modules() == {"codec"}
    prose = tasks.TaskSpec(prompt="Make sure it checks `ensure` precisely, without numpy; see lib/, "
                                  "from helpers import x", files={"pkg/a.py": "", "data.json": ""})
    assert tasks.Task(id="t", source="t.txt", spec=prose).named_modules() == {"lib", "helpers", "pkg", "data.json"}
    workspace = scratch / "named" / "workspace"
    _write(workspace, files)
    result, output, _ = verdict.judge(sandbox, workspace, tests, scratch / "named" / "judge", task.named_modules())
    assert not result["ok"] and (result["passed"], result["errors"]) == (1, 1), output
    assert "the tests import 'checks', which the sandbox interpreter lacks and the task never names" in output


@on_layers(RULE_LAYERS)
def test_what_the_tests_define_is_what_runs(sandbox, scratch):
    """Tests in `if`/`try` blocks, a test left out by a false guard, a unittest class of any name,
    `usefixtures`, fixtures named test_*, a helper class with __init__, `__test__ = False`, and a
    class decorator of the model's code that only reads the class: all as in a plain run."""
    files = {"registry.py": """
        SEEN = []
        def register(cls):
            SEEN.append(cls.__name__)
            return cls
        def double(x):
            return 2 * x
    """}
    tests = {"test_registry.py": """
        import sys
        import unittest
        import pytest
        import registry
        @pytest.fixture
        def test_data():
            return 21
        @pytest.fixture
        def clean():
            yield
        if sys.version_info >= (3, 8):
            def test_guarded(test_data):
                assert registry.double(test_data) == 42
        else:
            def test_never_defined():
                assert False
        try:
            import json
        except ImportError:
            pass
        else:
            def test_in_try():
                assert registry.double(json.loads("2")) == 4
        @pytest.mark.usefixtures("clean")
        def test_with_usefixtures():
            assert registry.double(1) == 2
        @registry.register
        class TestRegistered:
            def test_registered(self):
                assert "TestRegistered" in registry.SEEN
        class DoubleChecks(unittest.TestCase):
            def test_double(self):
                self.assertEqual(registry.double(3), 6)
        class TestHelper:
            def __init__(self, value):
                self.value = value
            def test_like(self):
                pass
        class TestAbstract:
            __test__ = False
            def test_nothing(self):
                pass
        class Checks:
            def test_shared(self):
                assert registry.double(self.value) == 2 * self.value
        class TestSharedOne(Checks):
            value = 1
        class TestSharedTwo(Checks):
            value = 2
            class TestNested:
                def test_nested(self):
                    assert registry.double(0) == 0
        class Base(unittest.TestCase):
            def setUp(self):
                self.value = 5
        class FiveTests(Base):
            def test_five(self):
                self.assertEqual(registry.double(self.value), 10)
        class FakeServer:
            def test_connection(self):
                return "a helper, not a test"
    """}
    honest(sandbox, scratch, files, tests, passed=9)


@on_layers(RULE_LAYERS)
def test_a_failed_check_of_the_tests_counts_wherever_other_code_catches_it(sandbox, scratch):
    """The tests' `assert` in a handler an event loop runs (it logs what a callback raises), and
    unittest's assertEqual in a done-callback a Future runs when the model's code sets its result
    (it logs it): both fail their test, though a plain run passes."""
    files = {"events.py": """
        def dispatch(loop, events, handler):
            for event in events:
                loop.call_soon(handler, event)    # wrong: never upper-cased

        def resolve(future, key):
            future.set_result(key.lower())        # wrong: upper-cased is right
    """}
    tests = {"test_events.py": """
        import asyncio
        import unittest
        from concurrent.futures import Future
        from events import dispatch, resolve

        def test_events_are_upper_case():
            loop = asyncio.new_event_loop()
            def handler(event):
                assert event == event.upper()
            dispatch(loop, ["a"], handler)
            loop.run_until_complete(asyncio.sleep(0.01))
            loop.close()

        class TestResolve(unittest.TestCase):
            def test_resolved_upper_case(self):
                future = Future()
                future.add_done_callback(lambda f: self.assertEqual(f.result(), "ABC"))
                resolve(future, "abc")
    """}
    assert plain(sandbox, scratch, files, tests).ok
    result = refused(sandbox, scratch, files, tests, failed=2)
    assert "caught by Handle._run" in result["output"] and "caught by Future._invoke_callbacks" in result["output"]

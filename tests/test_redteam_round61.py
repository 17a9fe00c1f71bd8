"""Red team, round 61 (after dabc0a5: kept values only for a class that overrides nothing of
dir(base) beyond its display, enum's classes by identity, `__getattribute__` counted; a test
class's model mixin gets unittest's assertions only). Each attack test asserts the judge gives no
pass; it FAILS while the attack works (13 failing attack tests and 2 failing fidelity controls
when found; nothing closed, the file is the report).

What worked (each a false "solved": plain pytest fails the model's code, the judge passes it).
All are rpc._overrides_of_its_base deciding "kept" from the names in dir(base), minus
_NOT_ANSWERS, in the class dicts only; CPython calls more of the model's code than that:
1. Specials the base type lacks but whose slot CPython still fills and calls (not in dir(base),
   so not counted; the kept value answers with the base's behaviour instead):
   - test_a_str_subclass_bool_is_not_asked, test_a_tuple_subclass_bool_is_not_asked: `__bool__`
     (str, bytes, tuple have none; truth is `len`): `assert find(...)` is true judged.
   - test_a_str_subclass_float_is_not_asked, test_a_str_subclass_int_is_not_asked: `float(x)`,
     `int(x)` call nb_float/nb_int before parsing a str (or bytes) subclass.
   - test_a_float_subclass_complex_is_not_asked: `complex(x)` asks `__complex__` (not in dir of
     int/float).
   - test_a_str_subclass_radd_is_not_asked: `"Hello, " + x` asks the subclass's `__radd__` first
     (str, bytes, tuple have none; their `+` is sq_concat).
   - test_a_tuple_subclass_reversed_is_not_asked: `reversed(x)` looks up `__reversed__` (none on
     str, bytes, tuple, int, float).
   - test_an_int_subclass_iadd_is_not_asked: `c += 1` calls `__iadd__` (none on any kept base;
     `__imul__` too).
   Fix for 1: count every special name (dunder) in the model's classes' dicts as an override,
   except an allow-list of the harmless (`__module__`, `__qualname__`, `__doc__`, `__dict__`,
   `__weakref__`, `__slots__`, `__init__`, `__annotations__`, `__orig_bases__`, `__parameters__`,
   `__match_args__`, `__firstlineno__`, `__static_attributes__`, `__classcell__`, `__init_subclass__`,
   `__class_getitem__`, `__set_name__`? and _DISPLAY); i.e. a deny-by-default list instead of
   dir(base).
2. copy: `__reduce__`, `__reduce_ex__`, `__getnewargs__`, `__getstate__`, `__new__` are in
   _NOT_ANSWERS, but copy.copy/deepcopy (and pickle) run them; the judge copies the kept value
   with object.__reduce_ex__ of its own subclass, never asking the model's code:
   - test_a_reduce_override_is_not_asked_by_deepcopy: a `Money(int).__reduce__` that loses the
     amount: `copy.deepcopy({"a": money(5)}) == {"a": 5}` passes judged (the kept copy keeps 5;
     the deep copy of its `_rpc_remote` does call the model's `__reduce__`, whose wrong answer is
     thrown away).
   - test_a_getnewargs_override_is_not_asked_by_copy: `copy.copy(name("ada"))` with a wrong
     `__getnewargs__`.
   - test_a_tuple_subclass_new_breaks_its_copy: the common `class Point(tuple): def __new__(cls,
     x, y)`, which plain cannot copy (TypeError), is copied judged (copy.copy only: a deepcopy also
     copies `_rpc_remote` in the worker and fails as plain).
   Fix for 2: take `__new__`, `__reduce__`, `__reduce_ex__`, `__getnewargs__`, `__getnewargs_ex__`,
   `__getstate__`, `__setstate__`, `__copy__`, `__deepcopy__` out of _NOT_ANSWERS (count them), or
   give _KEPT classes `__reduce_ex__`/`__copy__`/`__deepcopy__` that ask the model's object
   (`copy` on the remote, then the kept value of what comes back), as `_DISPLAY` does for str.
3. test_an_instance_attribute_shadowing_count_is_not_seen: a method of the base is a non-data
   descriptor, so an attribute in the model's instance `__dict__` (`w.count = n` on a
   `Word(str)`) shadows it plain: `word(...).count("a")` is a TypeError plain, str.count judged.
   Fix: in the worker, a value whose instance `__dict__` (or slots) holds a name in dir(base)
   is not kept (by reference); this also closes the false fail below.
4. test_an_override_added_after_the_value_crossed: overrides are decided per crossing and the
   kept object is cached per handle; a class given its `__eq__` later (a lazy `configure()`),
   leaves the value the test already holds with str's `==`. Fix (if worth it): keep only values
   of classes the worker will not let change (hard); or, on every later crossing of any value of
   that class that is no longer kept, drop `conn._kept` entries of the class's handles (the
   judge cannot reach the objects the test already holds, so at least document it as a limit).
   Mildly hostile (who patches `__eq__` late?).

False fails found (honest code fails judged, passes plain):
- test_control_instance_attribute_named_like_a_tuple_method: a `Row(tuple)` carrying
  `r.index = i`: judged `row.index` is tuple.index (the bound method), plain the int. Same cause
  and fix as 3.
- test_control_pickle_an_int_enum_member: `pickle.loads(pickle.dumps(Color.RED))` of an IntEnum
  member (a kept value): judged PicklingError "Can't pickle <class 'int'>: it's not the same
  object as builtins.int" (the _KEPT classes claim `builtins.int`). Fix: give _KEPT classes a
  `__reduce_ex__` that pickles the model's object (its handle: "a pickle that names the
  workspace's objects is loaded whole by the worker"), or the exact base value where the model's
  class is not reachable.

Closed (same session; each checked by taking its fix out: the tests named fail again):
- 1, 3 and both false fails: rpc._overrides_of_its_base is an allow-list. Every special method a
  class between the value's class and its base defines counts (where the method resolution finds
  it: a mixin's `__contains__` behind tuple's own does not), as does every name of the base's
  (`count`) and an attribute of the object itself named like one; only _KEPT_MAY_DEFINE does not
  (the class statement's own names, construction, copy and pickle, `__getattr__`).
- 2: a kept value's copy, deepcopy and pickle are the model's object's (`__reduce_ex__` of the
  kept classes asks its proxy, as a by-reference value's does): the model's `__reduce__`,
  `__getnewargs__`, `__new__` run in the worker.
Left open: 4 (test_an_override_added_after_the_value_crossed), a strict xfail and a stated limit in
the README: whether a value is kept is decided when it crosses. Only code written to change its
class after handing out a value gains from it, and what it gains is a pass on a value that is right
by its base type's rules (an IntEnum member that is 3, a str that is "Ada"). Closing it would take
re-checking every kept value's class and object at each reply, and turning those that changed into
values that answer nothing.

Held:
- test_a_reduce_override_is_not_asked_by_pickle: the judge cannot pickle a kept value at all (the
  false fail above), so the wrong `__reduce__` gains nothing.
- test_a_mixin_expecting_failure_gives_no_pass: a mixin's `__unittest_expecting_failure__ = True`
  reaches unittest's `getattr(self, ...)` through ModelSubclass.__getattr__ (the worker's
  object), and the failing test is an expected failure; that is "skipped" in the judge's record,
  never a pass (plain xfails it too).
- test_a_mixin_setup_method_gives_no_pass: pytest calls a unittest class's `setup_method(self,
  function)` found on the class, here the model's mixin's (forwarded to the worker with the
  test's bound method); swapping its `__code__` fools plain, judged the test fails.

Read, not probed (time box 30 min): ModelSubclass.__init_subclass__ keeps every name unittest.TestCase
defines (setUp, run, subTest, skipTest, addCleanup, doCleanups, id, __eq__, __hash__, __call__,
maxDiff, longMessage, failureException ...) over the model's; private names and dunders outside
_MEMBER_SPECIALS never reach the local base (`_callTestMethod`, `_outcome`, `__unittest_skip__`,
`__test__`), and the local base has no data descriptors (properties become _ClassMember, non-data),
so a test's instance attributes win. What ModelSubclass.__getattr__ still forwards to the worker
is every name missing in the judge, dunders included: unittest reads `__unittest_expecting_failure__`
and pytest `__unittest_skip__`/`__unittest_skip_why__` (with setup_method) that way: outcomes
skip/xfail only, never pass. A mixin's `pytestmark` data is a _ClassMember in the local base's
__dict__ (pytest's get_unpacked_marks then errors). `tearDown_exceptions` on the mixin: pytest
raises them (an error). A hostile worker can always patch `sys.modules["_judge_rpc"]` (its own
`_overrides_of_its_base`) to send any value kept: not counted here, it is code that behaves
differently when judged.
"""
from __future__ import annotations

import pytest

from conftest import RULE_LAYERS, on_layers
from test_redteam_round59 import fails_plain_and_judged
from test_verdict_rules import attack, honest, judged, plain, sandbox  # noqa: F401 - sandbox is a fixture

pytestmark = on_layers(RULE_LAYERS)


# ---------------------------------------------------------------------------------------------
# 1. Specials a kept type lacks (not in dir(base)) but that CPython's slots still call.

def test_a_str_subclass_bool_is_not_asked(sandbox, scratch):
    """`__bool__` is not in dir(str): a model's `Match(str).__bool__` (unfinished) is not counted,
    the value arrives kept and a non-empty str is true."""
    files = {"matches.py": """
        class Match(str):
            def __bool__(self):
                raise NotImplementedError("TODO: a match is true when it matched")
        def find(text, word):
            return Match(word if word in text else "")
    """}
    tests = {"test_matches.py": """
        from matches import find
        def test_found():
            assert find("hello world", "world")
    """}
    fails_plain_and_judged(sandbox, scratch, files, tests, failed=1)


def test_a_tuple_subclass_bool_is_not_asked(sandbox, scratch):
    """The same for a tuple subclass (not in dir(tuple) either): its `__bool__` is off by one."""
    files = {"results.py": """
        class Result(tuple):
            def __bool__(self):
                return len(self) > 2   # bug: off by one
        def fields(text):
            return Result(text.split(","))
    """}
    tests = {"test_results.py": """
        from results import fields
        def test_two_fields_are_true():
            assert fields("a,b")
    """}
    fails_plain_and_judged(sandbox, scratch, files, tests, failed=1)


def test_a_str_subclass_float_is_not_asked(sandbox, scratch):
    """`float(x)` of a str subclass calls its `__float__` (nb_float) before parsing; `__float__`
    is not in dir(str), so the kept str is parsed instead."""
    files = {"prices.py": """
        class Price(str):
            def __float__(self):
                return float(self.strip("$")) * 100   # bug: cents
        def price(text):
            return Price(text)
    """}
    tests = {"test_prices.py": """
        from prices import price
        def test_float():
            assert float(price("3.5")) == 3.5
    """}
    fails_plain_and_judged(sandbox, scratch, files, tests, failed=1)


def test_a_str_subclass_int_is_not_asked(sandbox, scratch):
    files = {"codes.py": """
        class Code(str):
            def __int__(self):
                raise NotImplementedError("TODO")
        def code(text):
            return Code(text)
    """}
    tests = {"test_codes.py": """
        from codes import code
        def test_int():
            assert int(code("42")) == 42
    """}
    fails_plain_and_judged(sandbox, scratch, files, tests, failed=1)


def test_a_str_subclass_radd_is_not_asked(sandbox, scratch):
    """`"Hello, " + x` asks x's `__radd__` first (a subclass of str with nb_add); `__radd__` is not
    in dir(str): judged it is str concatenation."""
    files = {"names.py": """
        class Name(str):
            def __radd__(self, other):
                raise NotImplementedError("TODO")
        def name(text):
            return Name(text)
    """}
    tests = {"test_names.py": """
        from names import name
        def test_greeting():
            assert "Hello, " + name("Ada") == "Hello, Ada"
    """}
    fails_plain_and_judged(sandbox, scratch, files, tests, failed=1)


def test_a_tuple_subclass_reversed_is_not_asked(sandbox, scratch):
    """`reversed(x)` looks `__reversed__` up on the type; not in dir(tuple)."""
    files = {"paths.py": """
        class Path(tuple):
            def __reversed__(self):
                return iter(self)    # bug
        def path(*steps):
            return Path(steps)
    """}
    tests = {"test_paths.py": """
        from paths import path
        def test_back():
            assert list(reversed(path(1, 2, 3))) == [3, 2, 1]
    """}
    fails_plain_and_judged(sandbox, scratch, files, tests, failed=1)


def test_an_int_subclass_iadd_is_not_asked(sandbox, scratch):
    """`x += 1` calls the model's `__iadd__` (not in dir(int))."""
    files = {"counters.py": """
        class Count(int):
            def __iadd__(self, other):
                return Count(int(self) + 2 * other)   # bug
        def count():
            return Count(0)
    """}
    tests = {"test_counters.py": """
        from counters import count
        def test_add():
            c = count()
            c += 1
            assert c == 1
    """}
    fails_plain_and_judged(sandbox, scratch, files, tests, failed=1)


# ---------------------------------------------------------------------------------------------
# 2. copy and pickle: __reduce__, __getnewargs__ are in _NOT_ANSWERS.

def test_a_reduce_override_is_not_asked_by_deepcopy(sandbox, scratch):
    files = {"money.py": """
        class Money(int):
            def __reduce__(self):
                return (Money, (0,))   # bug: the amount is lost
        def money(n):
            return Money(n)
    """}
    tests = {"test_money.py": """
        import copy
        from money import money
        def test_copy():
            assert copy.deepcopy({"a": money(5)}) == {"a": 5}
    """}
    fails_plain_and_judged(sandbox, scratch, files, tests, failed=1)


def test_a_getnewargs_override_is_not_asked_by_copy(sandbox, scratch):
    files = {"names.py": """
        class Name(str):
            def __getnewargs__(self):
                return (self.upper(),)   # bug
        def name(text):
            return Name(text)
    """}
    tests = {"test_names.py": """
        import copy
        from names import name
        def test_copy():
            assert copy.copy(name("ada")) == "ada"
    """}
    fails_plain_and_judged(sandbox, scratch, files, tests, failed=1)


# ---------------------------------------------------------------------------------------------
# 3. An instance attribute that shadows a method of the base (non-data descriptors).

def test_an_instance_attribute_shadowing_count_is_not_seen(sandbox, scratch):
    """The model's `Word(str)` stores its frequency as `self.count`, which shadows str.count in a
    plain run (instance dict over a method); judged the kept str's `count` method answers."""
    files = {"words.py": """
        class Word(str):
            pass
        def word(text, n):
            w = Word(text)
            w.count = n
            return w
    """}
    tests = {"test_words.py": """
        from words import word
        def test_letters():
            assert word("banana", 1).count("a") == 3
    """}
    fails_plain_and_judged(sandbox, scratch, files, tests, failed=1)


def test_control_instance_attribute_named_like_a_tuple_method(sandbox, scratch):
    """False-fail probe: honest code whose tuple row carries its own `index` attribute."""
    honest(sandbox, scratch, {"rows.py": """
        class Row(tuple):
            pass
        def row(i, *values):
            r = Row(values)
            r.index = i
            return r
    """}, {"test_rows.py": """
        from rows import row
        def test_index():
            assert row(3, "a", "b").index == 3
    """}, passed=1)


def test_a_tuple_subclass_new_breaks_its_copy(sandbox, scratch):
    """`__new__` is in _NOT_ANSWERS, yet copy/pickle call it again: the classic tuple subclass
    with a two-argument `__new__` cannot be copied (TypeError plain); judged the kept value is
    copied by the judge's own subclass of tuple (a shallow copy: deepcopy also copies its
    `_rpc_remote`, which the worker copies with the model's `__new__`, and fails as plain)."""
    files = {"points.py": """
        class Point(tuple):
            def __new__(cls, x, y):
                return super().__new__(cls, (x, y))
        def point(x, y):
            return Point(x, y)
    """}
    tests = {"test_points.py": """
        import copy
        from points import point
        def test_copy():
            assert copy.copy(point(1, 2)) == (1, 2)
    """}
    fails_plain_and_judged(sandbox, scratch, files, tests, failed=1)


def test_a_reduce_override_is_not_asked_by_pickle(sandbox, scratch):
    """Held: the judge cannot pickle a kept value at all (its class says it is builtins.int)."""
    files = {"money.py": """
        class Money(int):
            def __reduce__(self):
                return (Money, (0,))   # bug: the amount is lost
        def money(n):
            return Money(n)
    """}
    tests = {"test_money.py": """
        import pickle
        from money import money
        def test_pickle():
            assert pickle.loads(pickle.dumps(money(5))) == 5
    """}
    fails_plain_and_judged(sandbox, scratch, files, tests, failed=1)


def test_a_float_subclass_complex_is_not_asked(sandbox, scratch):
    files = {"waves.py": """
        class Amplitude(float):
            def __complex__(self):
                raise NotImplementedError("TODO")
        def amplitude(x):
            return Amplitude(x)
    """}
    tests = {"test_waves.py": """
        from waves import amplitude
        def test_complex():
            assert complex(amplitude(2.0)) == 2 + 0j
    """}
    fails_plain_and_judged(sandbox, scratch, files, tests, failed=1)


@pytest.mark.xfail(strict=True, reason="stated limit (README): a kept value is decided when it crosses; a class the "
                   "model's code changes afterwards keeps its base type's answers for values already handed over")
def test_an_override_added_after_the_value_crossed(sandbox, scratch):
    """Overrides are decided per crossing: the model's class gains its `__eq__` later (a lazy set-up
    on first use of another function); the value the test holds stays kept with str's `==`."""
    files = {"names.py": """
        class Name(str):
            pass
        def _eq(self, other):
            raise NotImplementedError("TODO")
        def name(text):
            return Name(text)
        def configure():
            Name.__eq__ = _eq
            Name.__ne__ = _eq
            Name.__hash__ = str.__hash__
    """}
    tests = {"test_names.py": """
        from names import name, configure
        def test_name():
            n = name("Ada")
            configure()
            assert n == "Ada"
    """}
    fails_plain_and_judged(sandbox, scratch, files, tests, failed=1)


# ---------------------------------------------------------------------------------------------
# 4. A test's TestCase on a model mixin.

def test_a_mixin_expecting_failure_gives_no_pass(sandbox, scratch):
    """`__unittest_expecting_failure__` is read with getattr on the instance: ModelSubclass.__getattr__
    asks the worker's object. The failing test becomes an expected failure (xfail), plain too:
    neither run may be a pass of the judge."""
    files = {"checks.py": """
        class Doubler:
            __unittest_expecting_failure__ = True
            def double(self, x):
                return x + 1
    """}
    tests = {"test_double.py": """
        import unittest
        import checks
        class TestDouble(checks.Doubler, unittest.TestCase):
            def test_double(self):
                self.assertEqual(self.double(4), 8)
    """}
    result = judged(sandbox, scratch, files, tests)
    assert not result["ok"], result["output"]


def test_a_mixin_setup_method_gives_no_pass(sandbox, scratch):
    """pytest calls a unittest class's `setup_method(self, function)` if the class has one (from
    the model's mixin here): the model's code gets the test's bound method and swaps its code (fools plain)."""
    files = {"checks.py": """
        class Doubler:
            def setup_method(self, method):
                try:
                    method.__func__.__code__ = (lambda self: None).__code__
                except Exception:
                    pass
            def double(self, x):
                return x + 1
    """}
    tests = {"test_double.py": """
        import unittest
        import checks
        class TestDouble(checks.Doubler, unittest.TestCase):
            def test_double(self):
                self.assertEqual(self.double(4), 8)
    """}
    attack(sandbox, scratch, files, tests, failed=1)


def test_control_pickle_an_int_enum_member(sandbox, scratch):
    """False-fail probe: an honest IntEnum member (kept) pickled by the test, as enum suites do."""
    honest(sandbox, scratch, {"colors.py": """
        import enum
        class Color(enum.IntEnum):
            RED = 1
        def red():
            return Color.RED
    """}, {"test_colors.py": """
        import pickle
        from colors import red
        def test_roundtrip():
            assert pickle.loads(pickle.dumps(red())) == red()
    """}, passed=1)

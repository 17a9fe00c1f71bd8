"""Red team, round 63 (after e76949e: a kept value's class is judged by an allow-list, its copy
and pickle are the model's object's, enum's classes taken when the worker starts). Each attack
test asserts the judge gives no pass; it FAILS while the attack works (9 failing attack tests and
2 failing false-fail controls when found; nothing closed, the file is the report). Time box 30 min.

What worked (each a false "solved": plain pytest fails the model's code, the judge passes it):
1. test_a_shallow_copy_is_a_deep_copy_judged: `copy.copy(obj)` of a model object whose class has
   no `__copy__` goes to Remote.__reduce_ex__, which pickles the object in the worker and loads
   it there again: a DEEP copy. Plain it is object.__reduce_ex__'s shallow copy (the copy shares
   `self.items`). A `Stack` that forgot its `__copy__` passes "a copy is independent" judged.
   Not hostile: an LLM's ordinary omission. Fix: copy.copy must stay shallow: give the proxy a
   `__copy__`-path of its own, e.g. a worker op "copy" (`copy.copy(obj)` run in the worker, the
   result crossing back; UnderTest already knows ops "copy"/"deepcopy"), and use pickle only for
   pickle.dumps; likewise `__deepcopy__` -> worker `copy.deepcopy` (keeps the memo semantics
   among the model's objects too). Same for _copied_by_the_model and ModelSubclass.__reduce_ex__.
2. test_pickle_protocol_zero_of_a_slotted_object, test_pickle_protocol_zero_of_a_kept_slotted_str:
   Remote.__reduce_ex__(protocol) drops the protocol (worker op "pickle" is `pickle.dumps(x)`,
   the default protocol 4). A class with `__slots__` and no `__getstate__` cannot be pickled with
   protocol 0/1 plain (copyreg._reduce_ex: TypeError); the common idiom `for proto in
   range(pickle.HIGHEST_PROTOCOL + 1)` fails plain, passes judged (a by-reference object and a
   kept `Word(str)` with `__slots__`).
3. test_a_reduce_ex_asked_for_the_highest_protocol: the same, hostile-ish: a model `__reduce_ex__`
   unfinished for protocol 5 (`pickle.dumps(m, protocol=pickle.HIGHEST_PROTOCOL)` in the test).
   Fix for 2-3: send the protocol along (`_ask(self, "op", "pickle", self, protocol)`, a ternary
   "pickle" op doing `pickle.dumps(x, protocol)` with a checked int in range) so the model's
   `__reduce_ex__` sees what plain would. (copy.copy asks protocol 4: moot after fix 1.)
4. test_a_kept_values_type_name_is_its_bases: a kept value's class in the judge is _KEPT[str],
   named `str` in `builtins`: `type(r).__name__ == "str"` (a test wanting an exact str) passes
   judged for the model's `Name(str)`. Fix: name the _KEPT classes after nothing a test could
   take for the base (e.g. the model's class name as `__qualname__`/`__name__` per crossing via a
   per-model-class local subclass of _KEPT[base], module "model_code"), or send by reference.
5. test_a_mixins_setup_is_not_run, test_a_mixins_setupclass_is_not_run,
   test_a_mixins_teardown_is_not_run: ModelSubclass.__init_subclass__ puts unittest.TestCase's own
   `setUp`/`setUpClass`/`tearDown` (no-ops) over the mixin's, which sits first in the MRO; plain
   runs the mixin's. An unfinished mixin setUp/setUpClass (NotImplementedError) or a tearDown
   check that fails (a leak check) errors every test plain, passes judged. Fix: for the fixture
   hooks (setUp, tearDown, setUpClass, tearDownClass, and asyncSetUp/asyncTearDown of
   IsolatedAsyncioTestCase) keep the model's when plain Python would take it (it decides no
   assertion by itself: running it can only add failures, and what it sets lands on the worker's
   object); or refuse such a test class (an error) rather than skip the model's hook silently.
6. test_a_mixins_autouse_fixture_is_not_run: an `@pytest.fixture(autouse=True)` method of the
   model's mixin runs around each test plain (pytest parses fixtures on a unittest class's MRO);
   judged it is a plain forwarded method of the local base, never a fixture, so its failure is
   lost. Fix: the worker's "members" reports a pytest fixture (its `_pytestfixturefunction` /
   FixtureFunctionDefinition) as kind "fixture", and the local base either registers a fixture
   that calls it in the worker (autouse kept) or the test class is refused as an error.

False fails found (honest code fails judged, passes plain):
- test_control_shallow_copy_shares_items: `b = copy.copy(a); b.items.append(2); a.items == [2]`
  fails judged (the deep copy). Same cause and fix as 1.
- test_control_mixin_setup_prepares_its_helpers: a library mixin whose setUp prepares state its
  helper uses (`self.seen = []`): judged AttributeError "seen" (the mixin's setUp never ran).
  Same cause and fix as 5; a real pattern in library test mixins.

Closed (same session; each checked by taking its fix out: the tests named fail again):
- 1 and the shallow-copy control: rpc._reduced, when copy.copy or deepcopy asks a proxy's (or a
  kept value's, or a test subclass instance's) `__reduce_ex__` (its caller's code is theirs), asks
  the worker's copy.copy / deepcopy: shallow or deep as plain. pickle.dumps stays a pickle.
- 2, 3: the test's protocol goes with the "pickle" op (checked: an int from 0 to HIGHEST_PROTOCOL).
- 4: a kept value's class in the judge is a subclass of the kept base named as the model's class
  (rpc._kept_class, module "model_code").
- 5 and the setUp control: ModelSubclass.__init_subclass__ lets the mixin's setUp/tearDown/
  setUpClass/tearDownClass (async too) stand where only unittest's empty ones would replace them.
- 6: a model class with a pytest fixture among its members cannot be a test class's base
  (rpc._local_base refuses it: the class is an error).

Held:
- test_a_mixins_init_subclass_that_raises: the mixin's `__init_subclass__` raising runs on the
  worker's subclass at first use; the test fails judged (plain: the test module fails to import).

Read, not probed (time box):
- JudgedUnpickler: find_class checks DATA after its own _compat_pickle mapping and pickle's
  find_class maps again; no DATA name is a key of NAME_MAPPING/IMPORT_MAPPING (3.11), so the
  double mapping gains nothing. BUILD on a kept value (from `_judge_rpc._unpickled` in a model's
  bytes) writes the kept object's judge-side `__dict__` or setattr's slot state: it can rebind
  `_rpc_remote`/`_rpc_display` of the cached kept object, but only to objects the model already
  controls; not found decisive. `_copy_of_built` tickets are secrets.token_hex (not guessable);
  `_unpickled_by_the_judge` loads only the judge's own pickles of the tests' objects.
- `_own_pickle` accepts any bytes that START with an own pickle: the loader stops at the first
  STOP, so trailing bytes are never read here (pickle.load's seek hands them to the next load,
  which is checked again).
- A model `__reduce__` returning a string (global name): copy returns the object itself, pickle's
  save_global demands `getattr(module, name) is obj`, so no other global can stand in.
- copyreg.pickle registrations in the worker are used by the worker's pickle, as plain copy uses
  them; a registered reducer returning a lambda copies plain and fails judged (a false fail, same
  cause as 1). deepcopy memo across separately pickled objects (`deepcopy([tree, tree.left])`)
  loses shared identity judged (false fail, same cause as 1).
- dataclasses.asdict/is_dataclass on a kept value look at `type(x)` (the _KEPT class, no
  `__dataclass_fields__`): a false fail for a dataclass over a tuple/str base (rare);
  `vars(kept)` shows the judge's `_rpc_remote` (false fail, rare).
- setUpModule is the tests' module's function, never the mixin's; a mixin's subTest,
  addClassCleanup, enterContext are TestCase's names (the tests') by the same rule as 5.
"""
from __future__ import annotations

import pytest  # noqa: F401

from conftest import RULE_LAYERS, on_layers
from test_redteam_round59 import fails_plain_and_judged
from test_verdict_rules import attack, honest, judged, plain, sandbox  # noqa: F401 - sandbox is a fixture

pytestmark = on_layers(RULE_LAYERS)


# ---------------------------------------------------------------------------------------------
# 1. Copy and pickle of the model's objects: the judge's copy is a pickle round trip in the worker.

def test_a_shallow_copy_is_a_deep_copy_judged(sandbox, scratch):
    """copy.copy of a model object whose class has no `__copy__`: plain it is object.__reduce_ex__'s
    shallow copy (the copy shares the items list); judged Remote.__reduce_ex__ pickles and unpickles
    it in the worker: a deep copy. A `Stack` that forgot its `__copy__` passes a test that wants
    copies to be independent."""
    files = {"stack.py": """
        class Stack:
            def __init__(self):
                self.items = []
            def push(self, x):
                self.items.append(x)
            def size(self):
                return len(self.items)
    """}
    tests = {"test_stack.py": """
        import copy
        from stack import Stack
        def test_copy_is_independent():
            a = Stack()
            a.push(1)
            b = copy.copy(a)
            b.push(2)
            assert a.size() == 1
    """}
    fails_plain_and_judged(sandbox, scratch, files, tests, failed=1)


def test_pickle_protocol_zero_of_a_slotted_object(sandbox, scratch):
    """`for proto in range(pickle.HIGHEST_PROTOCOL + 1)` (a common test idiom): a class with
    `__slots__` and no `__getstate__` cannot be pickled with protocol 0 or 1 (copyreg._reduce_ex
    raises TypeError) plain; Remote.__reduce_ex__ ignores the protocol asked and the worker pickles
    with its default one: every protocol passes judged."""
    files = {"point.py": """
        class Point:
            __slots__ = ("x", "y")
            def __init__(self, x, y):
                self.x, self.y = x, y
    """}
    tests = {"test_point.py": """
        import pickle
        from point import Point
        def test_pickles():
            for proto in range(pickle.HIGHEST_PROTOCOL + 1):
                p = pickle.loads(pickle.dumps(Point(1, 2), proto))
                assert (p.x, p.y) == (1, 2)
    """}
    fails_plain_and_judged(sandbox, scratch, files, tests, failed=1)


def test_pickle_protocol_zero_of_a_kept_slotted_str(sandbox, scratch):
    """The same for a kept value (_copied_by_the_model hands the protocol to the proxy, which drops
    it): a `Word(str)` with `__slots__` fails protocol 0 plain."""
    files = {"words.py": """
        class Word(str):
            __slots__ = ("tag",)
        def word(text):
            return Word(text)
    """}
    tests = {"test_words.py": """
        import pickle
        from words import word
        def test_pickles():
            for proto in range(pickle.HIGHEST_PROTOCOL + 1):
                assert pickle.loads(pickle.dumps(word("ada"), proto)) == "ada"
    """}
    fails_plain_and_judged(sandbox, scratch, files, tests, failed=1)


def test_a_reduce_ex_asked_for_the_highest_protocol(sandbox, scratch):
    """A model `__reduce_ex__` unfinished for protocol 5 (the test asks pickle.HIGHEST_PROTOCOL):
    judged it is always asked for the worker's default protocol (4)."""
    files = {"money.py": """
        class Money:
            def __init__(self, cents):
                self.cents = cents
            def __reduce_ex__(self, protocol):
                if protocol >= 5:
                    raise NotImplementedError("TODO: out-of-band buffers")
                return (Money, (self.cents,))
    """}
    tests = {"test_money.py": """
        import pickle
        from money import Money
        def test_round_trip():
            m = pickle.loads(pickle.dumps(Money(5), protocol=pickle.HIGHEST_PROTOCOL))
            assert m.cents == 5
    """}
    fails_plain_and_judged(sandbox, scratch, files, tests, failed=1)


def test_a_kept_values_type_name_is_its_bases(sandbox, scratch):
    """A kept value's class in the judge is _KEPT[str], named and qualified as `str` in module
    builtins: a test that wants an exact str (`type(r).__name__ == "str"`) passes judged for the
    model's own subclass, which plain shows as `Name`."""
    files = {"names.py": """
        class Name(str):
            pass
        def normalize(text):
            return Name(text.strip().title())
    """}
    tests = {"test_names.py": """
        from names import normalize
        def test_plain_str():
            r = normalize(" ada ")
            assert r == "Ada"
            assert type(r).__name__ == "str"
    """}
    fails_plain_and_judged(sandbox, scratch, files, tests, failed=1)


def test_control_shallow_copy_shares_items(sandbox, scratch):
    """False-fail probe: a test that relies on copy.copy being shallow."""
    honest(sandbox, scratch, {"stack.py": """
        class Stack:
            def __init__(self):
                self.items = []
    """}, {"test_stack.py": """
        import copy
        from stack import Stack
        def test_shallow():
            a = Stack()
            b = copy.copy(a)
            b.items.append(2)
            assert a.items == [2]
    """}, passed=1)


# ---------------------------------------------------------------------------------------------
# 2. A test's TestCase with the model's class as a mixin.

def test_a_mixins_setup_is_not_run(sandbox, scratch):
    """The mixin's unfinished `setUp` (raises NotImplementedError): plain every test errors;
    judged ModelSubclass.__init_subclass__ puts TestCase.setUp (a no-op) over the model's, so the
    model's setUp never runs and the test passes."""
    files = {"checks.py": """
        class Checks:
            def setUp(self):
                raise NotImplementedError("TODO: open the fixture database")
            def check_double(self, double, x):
                self.assertEqual(double(x), 2 * x)
    """}
    tests = {"test_checks.py": """
        import unittest
        import checks
        class TestDouble(checks.Checks, unittest.TestCase):
            def test_two(self):
                self.check_double(lambda x: x + x, 2)
    """}
    fails_plain_and_judged(sandbox, scratch, files, tests, failed=1)


def test_a_mixins_setupclass_is_not_run(sandbox, scratch):
    """The same for a classmethod setUpClass that raises."""
    files = {"checks.py": """
        class Checks:
            @classmethod
            def setUpClass(cls):
                raise NotImplementedError("TODO: start the server")
            def check_double(self, double, x):
                self.assertEqual(double(x), 2 * x)
    """}
    tests = {"test_checks.py": """
        import unittest
        import checks
        class TestDouble(checks.Checks, unittest.TestCase):
            def test_two(self):
                self.check_double(lambda x: x + x, 2)
    """}
    fails_plain_and_judged(sandbox, scratch, files, tests, failed=1)


def test_a_mixins_teardown_is_not_run(sandbox, scratch):
    """A mixin's tearDown that checks what the test left (a leak check that fails)."""
    files = {"checks.py": """
        class LeakChecks:
            def tearDown(self):
                self.assertEqual(1, 0, "leaked a handle")
    """}
    tests = {"test_checks.py": """
        import unittest
        import checks
        class TestThing(checks.LeakChecks, unittest.TestCase):
            def test_one(self):
                self.assertTrue(True)
    """}
    fails_plain_and_judged(sandbox, scratch, files, tests, failed=1)


def test_control_mixin_setup_prepares_its_helpers(sandbox, scratch):
    """False-fail probe: a library mixin whose setUp prepares what its helper uses."""
    honest(sandbox, scratch, {"checks.py": """
        class Checks:
            def setUp(self):
                self.seen = []
            def check_double(self, double, x):
                self.seen.append(x)
                self.assertEqual(double(x), 2 * x)
    """}, {"test_checks.py": """
        import unittest
        import checks
        class TestDouble(checks.Checks, unittest.TestCase):
            def test_two(self):
                self.check_double(lambda x: x + x, 2)
    """}, passed=1)


def test_a_mixins_autouse_fixture_is_not_run(sandbox, scratch):
    """An autouse pytest fixture defined in the model's mixin (pytest finds fixtures on a
    unittest class's MRO): plain it runs around every test method and its failure is an error;
    judged the mixin's method is a forwarded method of the local base, no fixture."""
    files = {"checks.py": """
        import pytest
        class Checks:
            @pytest.fixture(autouse=True)
            def database(self):
                raise NotImplementedError("TODO: the database fixture")
            def check_double(self, double, x):
                self.assertEqual(double(x), 2 * x)
    """}
    tests = {"test_checks.py": """
        import unittest
        import checks
        class TestDouble(checks.Checks, unittest.TestCase):
            def test_two(self):
                self.check_double(lambda x: x + x, 2)
    """}
    fails_plain_and_judged(sandbox, scratch, files, tests, failed=1)


def test_a_mixins_init_subclass_that_raises(sandbox, scratch):
    """The mixin's `__init_subclass__` runs when the test's class statement runs (plain: the test
    module fails to import); judged only on the worker's subclass, made on first use."""
    files = {"checks.py": """
        class Checks:
            def __init_subclass__(cls, **kwargs):
                super().__init_subclass__(**kwargs)
                raise NotImplementedError("TODO: register the case")
            def check_double(self, double, x):
                self.assertEqual(double(x), 2 * x)
    """}
    tests = {"test_checks.py": """
        import unittest
        import checks
        class TestDouble(checks.Checks, unittest.TestCase):
            def test_two(self):
                self.check_double(lambda x: x + x, 2)
    """}
    fails_plain_and_judged(sandbox, scratch, files, tests, failed=1)

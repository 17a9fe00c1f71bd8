"""Red team, round 47 (after 24a1d3a: an object the test built itself, rpc_policy.UnderTest,
answers its operators; the mark is revoked whenever its handle arrives in any other answer or
request of the model's code, but `__enter__`'s self). Each test is an attack; it FAILS while the
attack works (a false "solved": a check on what the model's code gives the test is decided by the
model's code).

What worked (each a failing test below):
1. A module's attribute (test_a_module_attribute_that_is_an_object_the_test_built):
   UnderTest.arrived returns at once for `op == "module"` (rpc.Connection._aim sets it for every
   `getattr` on a ModuleProxy), so a module attribute read is the one answer that never revokes a
   mark. The model's `Widget.__init__` binds `widgets.created = self`; the test's
   `widgets.Widget("a"); assert widgets.created == 2` reads the built Widget back from the module
   and its own `__eq__` says True. Any check of module state (a counter, a registry,
   `__version__`, a constant) made after the test (or an earlier test: the marks live as long as
   the worker) built an object is the model's to answer.
2. A result that is a module (test_a_result_that_is_a_module_answers_through_its_attributes): the
   worker sends any `types.ModuleType` instance (or an instance of a subclass of it) as a
   `{"k": "module"}` reference, so a function's or method's RESULT arrives as a ModuleProxy, and
   every attribute read on it is `op == "module"` again: never revoking. The LeetCode shape
   `root = TreeNode(2, TreeNode(1), TreeNode(3)); out = Solution().invertTree(root);
   assert out.val == 2 and out.left.val == 3` passes with `invertTree` returning a module whose
   `val` is the root the test built (`left`/`right` the module itself).
3. The same across tests (test_a_result_module_reaches_an_object_built_in_an_earlier_test): a
   pure function's check (`parse("1.2.3").major == 1`) is fooled when any earlier test of the
   suite built an object (`Version("1.0.0") < Version("2.0.0")`): UnderTest is per connection
   and the worker lives across tests.
4. A function spelt as a class (test_a_function_spelt_as_a_class): the rule decides "class" by
   the spelling of the name the test read (`from fib import Fibonacci`), so a task whose function
   is named in CapWords (`Fibonacci(10) == 55`, Rosetta-style names) has every result "built by
   the test" (its `==`, `in`, `<` are the model's; a chain like `abs(F(20) - 6765) < 1` still
   ends refused, since `__sub__`'s answer is a result). Documented ("a name ... spelt as a class"), but a false pass all the same: the
   judge cannot tell a class from a function by asking the worker, and a function's result
   is exactly what the rule says never answers.
5. `with` keeps the mark (test_an_enter_that_should_return_a_value): `with Override(store,
   "level", 3) as previous: assert previous == 1` checks what `__enter__` returns; the model's
   wrong `__enter__` returns self, which UnderTest keeps built, so its `__eq__` answers. Also
   documented (`with Cache() as c` keeps it), listed for the record: the exception cannot tell
   `__enter__` returning self for the body from `__enter__` returning a value to be checked.

Closed (same session): a module's attribute revokes as any answer does (only the class-name
bookkeeping reads it as a module's), and only a module the tests imported (the one in the judge's
sys.modules under its name) counts as one: a result that is a module is a result (1-3); the
`__enter__` exception is gone, `with X() as x` gives a result like any call (5). Kept as a strict
xfail, a stated limit (README): a function the tests call by a class-like name (4).
Found on the way, by cachetools' suite: `LRUCache[int, int](maxsize=2)` handed the class back in
its GenericAlias and so made it no class for the rest of the session: `Cls[...]` answering the
class itself keeps it one.

Held (run as guards in test_held_directions, or reasoned from the code):
- `__enter__` returning a different (fresh) object: not built (`answered` builds only for "call"
  and copies), also when it is another built object (arrived with handle != target revokes).
- `copy.copy` of a function's result (with `__copy__`): the target is not built, so the copy is
  not (answered checks `target in self._built`).
- A test's subclass (`class Mine(lib.Stats)`): its instance comes from the "new" request as a
  wrapper (not a Remote), never built; its forwarded arithmetic with a test's value is refused,
  its comparisons are identity.
- Write-back during a class call (the worker writing the built handle into the test's argument
  list): decoded after the value with the same memo, it is not fresh, and what it marks is the
  test's own object built by the class call anyway (only a by-value list around it).
- A worker's callback or idle-thread request handing a handle before the class call answers it:
  the handle is then in `_proxies`, not fresh, never built. Proxies are never dropped, so a
  handle can't become fresh again.
- Exception classes (`excclass` refs) make a mirror class with a proxy of the handle but no
  `arrived`; the class itself compares by identity, and anything read through `_rpc_class` is a
  getattr on a Remote, which revokes.
"""
from __future__ import annotations

import pytest

from conftest import RULE_LAYERS, on_layers
from test_verdict_rules import attack, refused, sandbox  # noqa: F401 - sandbox is a fixture
from test_redteam_round46 import AGREEABLE

pytestmark = on_layers(RULE_LAYERS)

def test_a_module_attribute_that_is_an_object_the_test_built(sandbox, scratch):
    files = {"widgets.py": AGREEABLE + """
    import sys
    created = 0
    class Widget(Agreeable):
        def __init__(self, name):
            self.name = name
            sys.modules[__name__].created = self   # wrong: never counts
    """}
    tests = {"test_widgets.py": """
        import widgets
        def test_widgets_are_counted():
            widgets.Widget("a")
            widgets.Widget("b")
            assert widgets.created == 2
    """}
    result = attack(sandbox, scratch, files, tests, failed=1)
    assert result["passed"] == 0, result["output"]


def test_a_result_that_is_a_module_answers_through_its_attributes(sandbox, scratch):
    files = {"solution.py": AGREEABLE + """
    import types
    class TreeNode(Agreeable):
        last = None
        def __init__(self, val=0, left=None, right=None):
            self.val, self.left, self.right = val, left, right
            TreeNode.last = self
    class Solution:
        def invertTree(self, root):        # wrong: never inverts
            out = types.ModuleType("tree")
            out.val, out.left, out.right = TreeNode.last, out, out
            return out
    """}
    tests = {"test_solution.py": """
        from solution import Solution, TreeNode
        def test_invert_tree():
            root = TreeNode(2, TreeNode(1), TreeNode(3))
            out = Solution().invertTree(root)
            assert out.val == 2
            assert out.left.val == 3 and out.right.val == 1
    """}
    result = attack(sandbox, scratch, files, tests, failed=1)
    assert result["passed"] == 0, result["output"]


def test_a_result_module_reaches_an_object_built_in_an_earlier_test(sandbox, scratch):
    files = {"semver.py": AGREEABLE + """
    import types
    _built = []
    class Version(Agreeable):
        def __init__(self, text):
            self.text = text
            _built.append(self)
    class Parsed(types.ModuleType):      # any module subclass crosses as a module
        @property
        def major(self):
            return _built[-1]
        minor = patch = major
    def parse(text):                     # wrong: never parses
        return Parsed("parsed")
    """}
    tests = {"test_semver.py": """
        from semver import Version, parse
        def test_order():
            assert Version("1.0.0") < Version("2.0.0")
        def test_parse():
            v = parse("1.2.3")
            assert v.major == 1 and v.minor == 2 and v.patch == 3
    """}
    result = attack(sandbox, scratch, files, tests, failed=1)
    assert result["passed"] <= 1, result["output"]


@pytest.mark.xfail(strict=True, reason="a stated limit (README, the operators rows): a callable the tests "
                   "name like a class (`Fibonacci(10)`) is taken for one; the task's author chose the name")
def test_a_function_spelt_as_a_class(sandbox, scratch):
    files = {"fib.py": AGREEABLE + """
    def Fibonacci(n):                    # the task's name for a function, spelt as a class
        return Agreeable()               # wrong: never computes
    """}
    tests = {"test_fib.py": """
        from fib import Fibonacci
        def test_fibonacci():
            assert Fibonacci(10) == 55
            assert Fibonacci(20) == 6765
    """}
    result = attack(sandbox, scratch, files, tests, failed=1)
    assert result["passed"] == 0, result["output"]


def test_an_enter_that_should_return_a_value(sandbox, scratch):
    files = {"settings.py": AGREEABLE + """
    class Override(Agreeable):
        def __init__(self, store, key, value):
            self.store, self.key, self.value = store, key, value
        def __enter__(self):
            return self                  # wrong: should return the value it replaced
        def __exit__(self, *exc):
            return False
    """}
    tests = {"test_settings.py": """
        from settings import Override
        def test_override_gives_the_previous_value():
            with Override({"level": 1}, "level", 3) as previous:
                assert previous == 1
    """}
    result = attack(sandbox, scratch, files, tests, failed=1)
    assert result["passed"] == 0, result["output"]


def test_held_directions(sandbox, scratch):
    """Guards: each of these is refused or compared by identity (no pass)."""
    files = {"lib.py": AGREEABLE + """
    class Fresh(Agreeable):
        pass
    class Box(Agreeable):
        def __init__(self, *a):
            pass
        def __enter__(self):
            return Fresh()               # not self: a result
        def __exit__(self, *exc):
            return False
        def __copy__(self):
            return Fresh()
    def make(xs):
        return Box()
    class Stats(Agreeable):
        def __init__(self, xs=()):
            self.xs = xs
        def mean(self):
            return self
    """}
    tests = {"test_lib.py": """
        import copy
        import lib
        def test_enter_returns_another_object():
            with lib.Box() as b:
                assert b == 1
        def test_copy_of_a_result():
            assert copy.copy(lib.make([1])) == 1
        def test_a_test_subclass():
            class Mine(lib.Stats):
                pass
            m = Mine([1, 2])
            assert m == 1.5 or abs(m.mean() - 1.5) < 1e-9
    """}
    result = refused(sandbox, scratch, files, tests, failed=3)
    assert result["passed"] == 0, result["output"]

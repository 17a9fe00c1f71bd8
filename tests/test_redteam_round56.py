"""Red team, round 56 (after c95a1d0: the model's codecs answer the tests' encode/decode
(judge_plugin.ModelCodecs), read-only byte memoryviews cross as copies, a test's TestCase with the
model's mixin first runs TestCase.__init__ and the mixin gets callback stubs for the public names
of the classes after it, and the tests' TMPDIR is opened to the worker). Each attack test shows
the attack fools a plain run and asserts the judge gives no pass; it FAILS while the attack works.

What worked (five failing tests when found: a false "solved", all through the mixin change 1344174;
all closed the same session, below):
1. test_a_mixin_registers_a_type_equality_func_by_name: the mixin's method calls back the test's
   `self.addTypeEqualityFunc(int, "assertIsNot")` (a public TestCase name, so now a stub that
   rpc._dispatch runs on the test's instance). The test's own `self.assertEqual(5, 4)` then runs
   `assertIsNot(5, 4)` in the judge: it holds, nothing fails, nothing is recorded.
2. test_a_mixin_registers_its_own_type_equality_func: the same with a function of the model's
   (a proxy in the test instance's `_type_equality_funcs`, asked by the test's assertEqual).
   The handed-TestCase path (`six`-style `double(self, 2)`) refuses the same call (held:
   test_a_handed_testcase_registers_a_type_equality_func): rpc_policy.unittest_assertion lets only
   unittest's own assert*/fail* through there, while the mixin's stubs take every public name.
3. test_a_mixin_overrides_assert_equal: the mixin is first in the MRO, so its own `assertEqual`
   (a public member the local base forwards) answers the test's `self.assertEqual(...)`.
4. test_a_mixin_overrides_run: the mixin's `run(self, result=None)` (forwarded): pytest's
   unittest support calls `testcase(result=item)` -> TestCase.__call__ -> `self.run(...)`, the
   model's, which runs no test method and reports nothing to the result: every test of the class
   passes without running.
5. test_a_mixin_overrides_call: the same through `__call__` (a forwarded special).
3-5 were out of reach before 1344174 only by accident: the local base forwarded `__init__`
unconditionally, so TestCase.__init__ never ran and a mixin-first TestCase errored whole; now that
it runs, every public member (and forwarded special) of the model's class shadows unittest's.
Suggested fix: in a test's class, unittest.TestCase's own members win over the model's class
before it: when the local base is a base of a TestCase (or the test's class subclasses both),
refuse (a collection error) or drop every name TestCase (and its bases) defines from what the
local base forwards and what _ClassMember reads (run, __call__, debug, assert*, fail*,
failureException, addTypeEqualityFunc, setUp ..., the whole namespace of unittest.TestCase); and
give the worker's subclass stubs only for unittest's own assertions of the later classes
(rpc_policy.unittest_assertion, as for a handed TestCase), not every public name
(addTypeEqualityFunc, addCleanup, doCleanups, enterContext, run, debug, subTest, setUp ...). A
belt-and-braces: unittest's `_getAssertEqualityFunc` in the judge consults only equality funcs
the tests' own code registered (record the caller of addTypeEqualityFunc).

Closed (same session; each checked by taking its fix out: the tests named fail again):
- 3-5 (test_a_mixin_overrides_assert_equal, _run, _call): ModelSubclass.__init_subclass__ gives a
  test's class the names that unittest.TestCase or a class of the tests defines wherever the
  model's class sits in its order (`run`, `__call__`, `assertEqual`, `failureException`, a helper
  of the tests' base): the model's class answers only names no other class of the test's has.
- 1-2 (test_a_mixin_registers_*_type_equality_func*): the worker's subclass gets callback stubs
  from the classes after the model's only for unittest's own assert*/fail* functions and the
  public names of classes the tests define (rpc._callback_after_the_model), and none for the
  names kept over the model's (`_rpc_theirs`) other than those: `addTypeEqualityFunc`, `run`,
  `skipTest`, `subTest`, `addCleanup` ... are not the model's to call.

Held:
- test_a_mixin_sets_failure_exception_to_skip: a mixin class attribute `failureException =
  unittest.SkipTest` (a standard exception class crosses as the judge's own): the failed
  assertEqual raises SkipTest, the test is skipped, not passed (a skip is never solved). It also
  shows the mixin's class attribute replaces the judge's `_TestsAssertionError` for that class, so
  the test's unittest failures are no longer recorded as the tests' checks (the fix above covers it).
- test_a_mixin_skips_the_test: the mixin calls back `self.skipTest`: skipped, no pass.
- test_a_codec_poisoned_in_the_models_process: the model's code poisons `encodings._cache`
  ("rot13") in its own process, fooling plain; judged, the standard library's search function
  answers first in the judge (ModelCodecs only for names neither it nor the tests' own know).
- test_a_handed_testcase_registers_a_type_equality_func (above).

Read, not probed (time box):
- Codecs: what the model's codec hands back crosses as values (tuples of bytes/str and int) or
  proxies; CodecInfo parts may be the judge's pure builtins or standard exception classes (found
  harmless: C code calls them and rejects the result). A gap in principle: `tests_own` learns
  only search functions registered through the wrapped `codecs.register` after the plugin loads;
  one registered through `_codecs.register` after that comes after ModelCodecs.search, so the
  model's codec would answer a name that library knows (no suite found that does so). Also
  ModelCodecs.search runs the tests' own search functions once more per unknown name.
- Memoryviews: the read-only view bytes.decode hands a codec now crosses as a copy (before, a
  proxy the model's code could keep past PyBuffer_Release: a view of freed memory in the judge;
  this change closes that). A writable view stays the test's object (by design).
- TMPDIR: the root is 0755 and the judge's, so the worker plants only inside folders the tests
  made (0777 after hand_over_tmp, no sticky bit): links there into the judge's folder are caught
  by the write and link checks (files directly in the judge's folder, the tests' folder, sys.path);
  the judge's `home/` and `mp/` below its folder are not in _NO_WRITES_INTO, so a test's write
  through a planted link can land there (nothing found that reads them later; mp/ holds
  multiprocessing's sockets, a planted link could make a test's own file there). hand_over_tmp
  opens with O_PATH|O_NOFOLLOW and checks the owner on the opened file, and the worker sees no
  other file of the judge's user to hard-link, so no chmod of a judge file outside the roots.
- pytest-style classes: `class TestX(model.Base)` is now collected when Base has no __init__
  (the forwarded __init__ made pytest skip it before): Base's public members (`setup_method`,
  `test_*` of the model's, `pytestmark` as data) join the test's class; not probed.
"""
from __future__ import annotations

from conftest import RULE_LAYERS, on_layers
from test_verdict_rules import attack, honest, judged, sandbox  # noqa: F401 - sandbox is a fixture

pytestmark = on_layers(RULE_LAYERS)


# ---------------------------------------------------------------------------------------------
# 1. The model's mixin first in a test's TestCase (`class TestDouble(checks.Checks, TestCase)`).

MIXIN_TESTS = {"test_checks.py": """
    import unittest
    from checks import Checks
    class TestDouble(Checks, unittest.TestCase):
        def test_double(self):
            self.assertEqual(self.double(2), 4)
            self.assertEqual(self.double(5), 10)
"""}

HONEST_MIXIN = {"checks.py": """
    class Checks:
        def double(self, x):
            return 2 * x
"""}


def _mixin(body: str) -> dict:
    return {"checks.py": body}


def test_a_mixin_registers_a_type_equality_func_by_name(sandbox, scratch):
    """The mixin (through the new callback stubs for TestCase's public names) registers the
    test's own `assertIsNot` as the equality check for ints: the test's `self.assertEqual(5, 4)`
    becomes `assertIsNot(5, 4)`, which holds; all judge-side code, no model function runs."""
    files = _mixin("""
        class Checks:
            def double(self, x):
                self.addTypeEqualityFunc(int, "assertIsNot")
                return 2 * x + 1          # wrong
    """)
    attack(sandbox, scratch, files, MIXIN_TESTS, failed=1)


def test_a_mixin_registers_its_own_type_equality_func(sandbox, scratch):
    """The same with the model's own function as the int equality check (a proxy stored in the
    test instance's `_type_equality_funcs`, called by the test's assertEqual)."""
    files = _mixin("""
        def _agree(first, second, msg=None):
            return None
        class Checks:
            def double(self, x):
                self.addTypeEqualityFunc(int, _agree)
                return 2 * x + 1          # wrong
    """)
    attack(sandbox, scratch, files, MIXIN_TESTS, failed=1)


def test_a_mixin_overrides_assert_equal(sandbox, scratch):
    """The mixin comes first in the MRO, so its `assertEqual` (a public member forwarded by the
    local base) answers the test's own `self.assertEqual(...)`."""
    files = _mixin("""
        class Checks:
            def double(self, x):
                return 2 * x + 1          # wrong
            def assertEqual(self, first, second, msg=None):
                return None
    """)
    attack(sandbox, scratch, files, MIXIN_TESTS, failed=1)


def test_a_mixin_overrides_run(sandbox, scratch):
    """The mixin's `run` (public, forwarded): pytest's unittest support calls
    `testcase(result=item)` -> `self.run(result)`, the model's, which runs nothing and reports
    nothing: every test method of the class passes without running."""
    files = _mixin("""
        class Checks:
            def double(self, x):
                return 2 * x + 1          # wrong
            def run(self, result=None):
                return result
    """)
    attack(sandbox, scratch, files, MIXIN_TESTS, failed=1)


def test_a_mixin_overrides_call(sandbox, scratch):
    """The same through `__call__` (a forwarded special method)."""
    files = _mixin("""
        class Checks:
            def double(self, x):
                return 2 * x + 1          # wrong
            def __call__(self, *args, **kwargs):
                return None
    """)
    attack(sandbox, scratch, files, MIXIN_TESTS, failed=1)


def test_a_mixin_sets_failure_exception_to_skip(sandbox, scratch):
    """The mixin's class attribute `failureException = unittest.SkipTest` (a standard exception
    class crosses as the judge's own): a failed assertEqual raises SkipTest, the test is skipped
    (plain: skipped too, so plain is not fooled into a pass; the judge must not count a pass)."""
    files = _mixin("""
        import unittest
        class Checks:
            failureException = unittest.SkipTest
            def double(self, x):
                return 2 * x + 1          # wrong
    """)
    result = judged(sandbox, scratch, files, MIXIN_TESTS)
    assert not result["ok"] and result["passed"] == 0, result["output"]


def test_a_mixin_skips_the_test(sandbox, scratch):
    """The mixin calls back the test's `skipTest` (now a stub): a skipped test is no pass."""
    files = _mixin("""
        class Checks:
            def double(self, x):
                self.skipTest("later")
    """)
    result = judged(sandbox, scratch, files, MIXIN_TESTS)
    assert not result["ok"] and result["passed"] == 0, result["output"]


def test_a_mixin_control_passes(sandbox, scratch):
    honest(sandbox, scratch, HONEST_MIXIN, MIXIN_TESTS, passed=1)


# ---------------------------------------------------------------------------------------------
# 2. Codecs.

def test_a_codec_poisoned_in_the_models_process(sandbox, scratch):
    """The model's code poisons `encodings._cache["rot13"]` (and the registry) in its own process:
    plain, the test's expected value `codecs.encode("abc", "rot13")` is the model's. Judged, the
    standard library answers "rot13" in the judge (ModelCodecs comes after it)."""
    files = {"rot.py": """
        import codecs, encodings
        def _enc(text, errors="strict"):
            return ("xyz", len(text))
        encodings._cache["rot13"] = codecs.CodecInfo(_enc, _enc, name="rot13")
        encodings._cache["rot_13"] = encodings._cache["rot13"]
        def rot13(text):
            return "xyz"                  # wrong
    """}
    tests = {"test_rot.py": """
        import codecs
        from rot import rot13
        def test_rot13():
            assert rot13("abc") == codecs.encode("abc", "rot13")
    """}
    attack(sandbox, scratch, files, tests, failed=1)


def test_a_handed_testcase_registers_a_type_equality_func(sandbox, scratch):
    """Held control of 1: the same registration through a TestCase the test hands over
    (`checks.double(self, 2)`, six-style) is refused: only assert*/fail* may be called there."""
    files = {"checks.py": """
        def double(case, x):
            case.addTypeEqualityFunc(int, "assertIsNot")
            return 2 * x + 1              # wrong
    """}
    tests = {"test_checks.py": """
        import unittest
        from checks import double
        class TestDouble(unittest.TestCase):
            def test_double(self):
                self.assertEqual(double(self, 2), 4)
    """}
    attack(sandbox, scratch, files, tests, failed=1)

"""Red team, round 50 (after 2d85a9c: an object the test built itself, rpc_policy.UnderTest,
answers its operators; its mark is revoked whenever its handle arrives in any other answer, and
an answer that back-references a container the request sent revokes the objects under test the
request handed with it). Each test is an attack; it FAILS while the attack works (a false
"solved": a check on what the model's code returns is decided by the model's code).

What worked (failing tests below):
1. A result that is the test's own by-reference object (round 49's echo, one step aside). Round
   49's fix covers only containers sent *by value* (rpc_values._dec_memo: a back-reference to an
   index below memo.sent; memo.handed: built proxies encoded in the request). An iterator, a
   generator, a `map`, a test's SimpleNamespace or a test's own class instance crosses by
   reference (rpc._export): the worker holds a proxy of the judge's object, and returning it
   sends `{"$": "yours", "h": ..}`, which rpc._dec_yours turns back into the judge's own object
   with no handle decoded and no echo marked. Whatever objects under test it holds or makes keep
   their mark, and the test's check of "the result" is their `__eq__`:
   - test_a_function_returning_the_tests_own_iterator: `list(newest_first(map(Version, [...])))
     == [...]`, `list(ascending(Version(s) for s in [...])) == [...]` and
     `next(oldest(iter(made))) == "1.0.0"` pass with each function returning its argument (the
     map and the generator even build the Versions in the judge when the test's list() runs them,
     so their class calls are the test's own, fresh and built).
   - test_a_function_returning_the_tests_own_object: `bumped(project).version == "1.0.1"` with
     `project = SimpleNamespace(version=Version("1.0.0"))` (rpc_values._enc_namespace: a test's
     namespace stays by reference), and `latest(Releases(...))[0] == "1.2.0"` with a test's own
     class holding built Versions, pass with the function returning its argument.
   The judge cannot look inside an arbitrary object of the test's to find the objects under test
   it holds; a "yours" answer to a call that handed the same object (or a by-reference iterator at
   all) is the echo round 49 closed for lists.

Closed (same session): an answer that hands back one of the tests' own objects is looked through
by the judge (its own objects: containers, instance dicts, slots; UnderTest.handed_back) and the
objects under test in it become results; one it cannot look through (a test's iterator or
generator, which may build objects under test later, as `map(Version, ...)` consumed after the
answer) ends the objects under test for the rest of the judged run.

Held (guards in test_held_directions, or reasoned from the code):
- A LATER call writing a built object into the test's list (`h.push_all(data)` doing
  `data[:] = [self] * n`): the write-back decodes the handle (_dec_ref -> _arrival), revoked;
  `data == [1, 2, 3]` is identity. Also a test's callback receiving the built object
  (`Heap().each(seen.append)`): decoded in _serve's memo, revoked. (guards)
- setattr on a test's object (or a test's SimpleNamespace) from the model's code with a built
  object: the value is decoded in _serve, revoked. A "yours" value is only ever a judge object,
  never a proxy: the judge never exports a Remote (_enc answers "yours" for them first).
- Every decode of a proxy goes through _arrival (_dec_ref, _dec_kept, _dec_mutable,
  _dec_exception) except _dec_global's excclass fallback and _mirror_class's parent link: both
  give a mirror class (compared by identity; its attributes are getattr requests on _rpc_class,
  which decode and revoke; _mirror_new builds only an exception, which is no Remote).
- Dict, set and bytearray write-backs: decoded with the call's memo as lists are (handles arrive;
  back-references below memo.sent set echoed).
- Items of the model's own generator (`list(model_iter)`): each next() answer decodes its handle.
- sorted/max in the judge over built objects: their own comparisons, by design; key results are
  results (model-model comparisons are the model's anyway).
- revive between tests: the new Connection's UnderTest starts with nothing built; carry() only
  takes away class standing; proxies not in origins stay on the broken connection.
Not pursued (not this rule): a differential test evaluated after the call
(`assert my_sort(xs) == sorted(xs)`) passes with the model clearing `xs` through the write-back
and returning `[]`, in a plain run and judged alike.
"""
from __future__ import annotations

from conftest import RULE_LAYERS, on_layers
from test_verdict_rules import attack, refused, sandbox  # noqa: F401 - sandbox is a fixture
from test_redteam_round46 import AGREEABLE

pytestmark = on_layers(RULE_LAYERS)

def test_a_function_returning_the_tests_own_iterator(sandbox, scratch):
    files = {"versions.py": AGREEABLE + """
    class Version(Agreeable):
        def __init__(self, text):
            self.text = text
    def newest_first(versions):      # wrong: should sort, newest first
        return versions
    def ascending(versions):         # wrong: should sort, oldest first
        return versions
    def oldest(versions):            # wrong: should be the oldest
        return versions
    """}
    tests = {"test_versions.py": """
        from versions import Version, newest_first, ascending, oldest
        def test_newest_first_of_a_map():
            assert list(newest_first(map(Version, ["1.2.0", "1.10.0", "1.9.0"]))) == ["1.10.0", "1.9.0", "1.2.0"]
        def test_ascending_of_a_generator():
            found = ascending(Version(s) for s in ["2.0.0", "1.0.0", "1.10.0"])
            assert list(found) == ["1.0.0", "1.10.0", "2.0.0"]
        def test_oldest_of_an_iterator():
            made = [Version("2.0.0"), Version("1.0.0")]
            assert next(oldest(iter(made))) == "1.0.0"
    """}
    result = attack(sandbox, scratch, files, tests, failed=3)
    assert result["passed"] == 0, result["output"]



def test_a_function_returning_the_tests_own_object(sandbox, scratch):
    files = {"release.py": AGREEABLE + """
    class Version(Agreeable):
        def __init__(self, text):
            self.text = text
    def bumped(project):             # wrong: should be a new project, its patch number one up
        return project
    def latest(releases):            # wrong: should be the newest release's version
        return releases
    """}
    tests = {"test_release.py": """
        from types import SimpleNamespace
        from release import Version, bumped, latest
        class Releases:
            def __init__(self, *texts):
                self.versions = [Version(t) for t in texts]
            def __getitem__(self, i):
                return self.versions[i]
        def test_bumped():
            project = SimpleNamespace(name="demo", version=Version("1.0.0"))
            assert bumped(project).version == "1.0.1"
        def test_latest():
            assert latest(Releases("1.0.0", "1.2.0"))[0] == "1.2.0"
    """}
    result = attack(sandbox, scratch, files, tests, failed=2)
    assert result["passed"] == 0, result["output"]

def test_held_directions(sandbox, scratch):
    """Guards: a built object written into a test's list by a LATER call on it (its handle
    decoded in the write-back), and one handed to a test's callback, are results."""
    files = {"heap.py": AGREEABLE + """
    class Heap(Agreeable):
        def push_all(self, data):    # wrong: should push, and leave data sorted
            data[:] = [self] * len(data)
        def each(self, callback):    # wrong: should call back with each value
            callback(self)
    """}
    tests = {"test_heap.py": """
        from heap import Heap
        def test_push_all_write_back():
            h = Heap()
            data = [3, 1, 2]
            h.push_all(data)
            assert data == [1, 2, 3]
        def test_callback_argument():
            seen = []
            Heap().each(seen.append)
            assert seen == [1]
    """}
    result = refused(sandbox, scratch, files, tests, failed=2)
    assert result["passed"] == 0, result["output"]

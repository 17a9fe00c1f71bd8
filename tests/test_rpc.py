"""The judge's RPC (judge_runtime/rpc.py) on its own: a judge end (guarded) and a worker end over
real pipe pairs in one process, the worker end serving in a thread. Values cross exactly, the
rules of the verdict hold at this level, and whatever the other end writes, the judge either
gets an admissible answer or an RpcError: never a value the worker built, never a crash of its
own (Hypothesis throws hostile messages at it)."""
from __future__ import annotations

import re
import importlib.util
import json
import os
import sys
import threading
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

RUNTIME = Path(__file__).resolve().parent.parent / "judge_runtime"
_spec = importlib.util.spec_from_file_location("_judge_rpc_under_test", RUNTIME / "rpc.py")
rpc = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(rpc)


class Pair:
    """A judge end and a worker end; the worker serves `module` (imported by name) in a thread."""

    def __init__(self):
        to_worker, to_judge = os.pipe(), os.pipe()
        self.judge = rpc.Connection(os.fdopen(to_judge[0], "rb"), os.fdopen(to_worker[1], "wb"), guarded=True,
                                    trusted_folder=str(Path(__file__).parent))
        self.worker = rpc.Connection(os.fdopen(to_worker[0], "rb"), os.fdopen(to_judge[1], "wb"), guarded=False)
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self):
        try:
            self.worker.serve_forever()
        except rpc.RpcError:
            pass

    def close(self):
        self.judge.close()
        self.thread.join(5)


@pytest.fixture
def pair():
    p = Pair()
    yield p
    p.close()


def model(pair, source: str):
    """A module of 'the model's code' in the worker end, and the judge's proxy of it."""
    import sys
    import types
    name = f"model_{abs(hash(source))}"
    module = types.ModuleType(name)
    exec(source, module.__dict__)
    sys.modules[name] = module
    return pair.judge.request("import", name)


values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text() | st.binary()
    | st.complex_numbers(allow_nan=False)
    | st.builds(re.compile, st.sampled_from(["a+", "(x|y)*", "\\d{2}", "é"]), st.sampled_from([0, re.I, re.M | re.S])),
    lambda inner: st.lists(inner, max_size=4) | st.tuples(inner, inner)
    | st.dictionaries(st.text(max_size=5) | st.integers(), inner, max_size=4),
    max_leaves=20)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(value=values)
def test_values_cross_exactly_both_ways(pair, value):
    echo = model(pair, "def echo(x):\n    return x\n").echo
    back = echo(value)
    assert back == value and _shape(back) == _shape(value)


def _shape(value):
    """The exact types all the way down (a subclass or a lookalike would differ here)."""
    if isinstance(value, (list, tuple)):
        return type(value), [_shape(v) for v in value]
    if isinstance(value, dict):
        return dict, sorted(((repr(k), _shape(v)) for k, v in value.items()))
    return type(value)


def test_a_lying_subclass_arrives_as_its_exact_base(pair):
    module = model(pair, "class L(list):\n    def __eq__(s, o):\n        return True\n"
                         "class S(str):\n    def __eq__(s, o):\n        return True\n    __hash__ = str.__hash__\n"
                         "def make():\n    return L([1]), S('x')\n")
    lst, text = module.make()
    # a list subclass of the model's keeps its methods (a copy that forwards them), never its __eq__;
    # a str subclass that overrides what str answers comes by reference: `==` with a test's value is
    # identity (the operator rule), never the model's True, nor str's own answer on the value
    assert isinstance(lst, list) and type(lst).__eq__ is list.__eq__ and lst != [2] and lst == [1]
    assert not isinstance(text, str) and (text == "x") is False and (text != "x") is True


def test_a_method_fetched_for_each_call_crosses_once(pair):
    """`it.peek()` makes a new bound method in the worker each time: it crosses with one handle, so
    neither end keeps one per call (more-itertools' bounded-memory test of `seekable.peek`)."""
    module = model(pair, "class Seekable:\n    def peek(self):\n        return 1\n")
    it, other = module.Seekable(), module.Seekable()
    first = it.peek
    exported, proxies = len(pair.worker._objects), len(pair.judge._proxies)
    assert all(it.peek() == 1 for _ in range(200)) and it.peek is first
    assert len(pair.worker._objects) == exported and len(pair.judge._proxies) == proxies
    assert other.peek is not first and other.peek() == 1


def test_operators_with_a_test_value_are_refused_and_between_model_objects_forwarded(pair):
    module = model(pair, "class N:\n    def __init__(s, v):\n        s.v = v\n"
                         "    def __sub__(s, o):\n        return N(s.v - getattr(o, 'v', o))\n"
                         "    def __eq__(s, o):\n        return s.v == getattr(o, 'v', o)\n"
                         "    __hash__ = object.__hash__\n"
                         "def three():\n    return N(3)\n")
    imported, sys.modules[module.__name__] = sys.modules[module.__name__], module  # as the import hook leaves it
    try:
        result, a, b = module.three(), module.N(3), module.N(1)
    finally:
        sys.modules[module.__name__] = imported
    with pytest.raises(rpc.Refused, match="through an operator"):
        result - 2.5  # what the model's code returned
    with pytest.raises(rpc.Refused, match="through an operator"):
        (a - b) - 1  # an operator's result is a result too
    with pytest.raises(TypeError):  # N has no __rsub__, so neither has its proxy
        2.5 - a
    assert (result == 3) is False and a - b == module.N(2)
    assert a == 3 and a - 2 == b  # objects the test built answer their operators (rpc_policy.UnderTest)


def test_a_proxy_has_the_special_methods_of_its_type_only(pair):
    module = model(pair, "class Bag:\n    def __len__(s):\n        return 2\n"
                         "class Plain:\n    pass\n")
    bag, plain = module.Bag(), module.Plain()
    assert len(bag) == 2 and hasattr(bag, "__len__") and not callable(bag)
    assert not hasattr(plain, "__len__") and not hasattr(plain, "__iter__") and bool(plain)
    with pytest.raises(TypeError):
        len(plain)
    assert callable(module.Bag)
    # named as its real class (`repr(cache).startswith(type(cache).__name__)` in cachetools' suite)
    assert type(bag).__name__ == "Bag" and plain.__class__.__name__ == "Plain" and isinstance(bag, rpc.Remote)


THREADED_MODEL = """
import threading

def in_thread(fn, x):
    out = []
    worker = threading.Thread(target=lambda: out.append(fn(x)))
    worker.start()
    worker.join()
    return out[0]

def double(x):
    return 2 * x
"""


class _NoThreadToSpare(threading.Thread):
    """The worker's user at its process limit: its one reader thread cannot start."""

    def start(self):
        if self.name == "judge-rpc-router":
            raise RuntimeError("can't start new thread")
        super().start()


@pytest.mark.parametrize("threads", ["a router thread", "no thread to spare"])
def test_a_model_thread_calls_back_and_the_callback_calls_the_model_again(monkeypatch, threads):
    if threads == "no thread to spare":
        monkeypatch.setattr(rpc, "_THREAD", _NoThreadToSpare)  # (the worker's own Thread, taken at load)
    pair = Pair()
    try:
        m = model(pair, THREADED_MODEL)
        assert m.in_thread(lambda v: m.double(v) + 1, 4) == 9
        assert [m.in_thread(m.double, i) for i in range(3)] == [0, 2, 4]
        assert pair.worker._routed == (threads == "a router thread")
    finally:
        pair.close()


def test_the_worker_reaches_only_public_names_of_objects_the_test_did_not_define(pair):
    import io
    probe = model(pair, "def get(obj, name):\n    return getattr(obj, name)\n").get
    buffer = io.StringIO()
    for name in ("__dict__", "_CHUNK_SIZE", "_checkClosed", "__getnewargs__"):
        with pytest.raises(AttributeError, match="only of objects the tests define"):
            probe(buffer, name)
    assert probe(buffer, "closed") is False

    def helper():
        """Helps."""
    helper._flag = 1
    assert probe(helper, "__name__") == "helper" and probe(helper, "__doc__") == "Helps."
    assert probe(helper, "_flag") == 1
    for name in ("__globals__", "__closure__", "__builtins__"):
        with pytest.raises(AttributeError, match="only of objects the tests define"):
            probe(helper, name)
    code = probe(helper, "__code__")  # the signature's facts only (toolz's curry counts arguments)
    assert code.co_argcount == 0 and code.co_name == "helper" and not hasattr(code, "co_consts")


def _tests_function(a, b):
    return a - b


def test_the_judge_loads_only_the_pickles_it_made_of_the_tests_objects(pair):
    """A model object that holds a test's function, deep-copied in the worker: the judge loads the
    pickle it made of that function (the worker cannot import the tests' modules); bytes the worker
    wrote are never unpickled in the judge."""
    import pickle
    import sys
    sys.modules.setdefault("_judge_rpc_under_test", rpc)
    mod = model(pair, "import copy, sys\nrpc = sys.modules['_judge_rpc_under_test']\n"
                      "def clone(f):\n    return copy.deepcopy([f])[0]\n"
                      "def forge(data):\n    return rpc._UNGUARDED.request('unpickle', data)\n")
    assert mod.clone(_tests_function) is _tests_function
    with pytest.raises(PermissionError, match="only the pickles it made"):
        mod.forge(pickle.dumps(1))


# ---------------------------------------------------------------------------------------------
# Hostile messages: the judge end reads whatever a hijacked worker writes.

def _judge_reading(lines: list[bytes]):
    """A judge end whose worker writes `lines` (after the hello) and nothing else."""
    to_worker, to_judge = os.pipe(), os.pipe()
    judge = rpc.Connection(os.fdopen(to_judge[0], "rb"), os.fdopen(to_worker[1], "wb"), guarded=True)
    with os.fdopen(to_judge[1], "wb") as out:
        out.write(b'{"hello":1}\n' + b"".join(lines))
    os.close(to_worker[0])
    return judge


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(
        st.sampled_from(["$", "r", "q", "v", "e", "b", "h", "c", "a", "d", "n", "k", "m", "i", "op", "tb", "p"])
        | st.text(max_size=3), inner, max_size=5),
    max_leaves=25)
tags = st.sampled_from(["int", "float", "complex", "bytes", "memoryview", "bytearray", "list", "set", "dict", "tuple", "frozenset",
                        "ntuple", "m", "path", "date", "datetime", "time", "timedelta", "decimal", "fraction",
                        "slice", "range", "ellipsis", "notimplemented", "type", "ref", "yours", "exc", "global", "nope"])


@st.composite
def replies(draw):
    """A reply to question 1, made of tagged values with random fields, or anything at all."""
    value = draw(json_values)
    if draw(st.booleans()):
        value = {"$": draw(tags), **(value if isinstance(value, dict) else {"v": value})}
    key = draw(st.sampled_from(["v", "e"]))
    reply = {"r": draw(st.sampled_from([1, 1, 2])), key: value}
    if draw(st.booleans()):
        reply["b"] = draw(json_values)
    return reply


ADMISSIBLE = (type(None), bool, int, float, complex, str, bytes, memoryview, bytearray, list, tuple, dict, set, frozenset,
              range, slice, type(Ellipsis), type(NotImplemented))


@settings(max_examples=400, deadline=None)
@given(reply=replies())
def test_whatever_the_worker_answers_the_judge_gets_a_value_or_an_rpc_error(reply):
    judge = _judge_reading([json.dumps(reply).encode() + b"\n"])
    judge.expect_hello()
    try:
        value = judge.request("getattr", 1, "x")
    except rpc.RpcError:
        return
    except BaseException as e:  # an exception the worker described: builtin or a mirror, never ours
        assert rpc._BUILTIN_EXCEPTIONS.get(type(e).__name__) is type(e) or type(type(e)) is rpc._MirrorMeta, repr(e)
        assert type(e) is not KeyboardInterrupt, repr(e)
        return
    finally:
        judge.close()
    _admissible(value)


def _admissible(value, depth=0):
    """Exact builtins, exact standard values and the judge's own proxies only, all the way down."""
    assert depth < 60
    t = type(value)
    if t in rpc._REMOTE_TYPES or t is rpc.ModuleProxy or type(t) is rpc._MirrorMeta:
        return
    if isinstance(value, type):
        assert value in rpc._BUILTIN_TYPES.values(), value
        return
    assert t in ADMISSIBLE or t.__module__ in ("datetime", "decimal", "fractions", "pathlib", rpc.__name__), t
    if isinstance(value, (list, tuple, set, frozenset)):
        for item in value:
            _admissible(item, depth + 1)
    elif isinstance(value, dict):
        for k, v in value.items():
            _admissible(k, depth + 1)
            _admissible(v, depth + 1)


@settings(max_examples=200, deadline=None)
@given(junk=st.binary(max_size=200))
def test_garbage_lines_never_give_more_than_an_admissible_value(junk):
    judge = _judge_reading([junk.replace(b"\n", b" ") + b"\n"])
    judge.expect_hello()
    try:
        value = judge.request("getattr", 1, "x")
    except rpc.RpcError:
        return
    finally:
        judge.close()
    _admissible(value)

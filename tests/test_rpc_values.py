"""The RPC's values (judge_runtime/rpc_values.py) on their own, without a pipe: what one end
encodes the other decodes to an equal value of the exact same type, both ways; and whatever
JSON arrives under a value's tag, decoding gives a value of an allowed type or a ProtocolError,
never another exception and never a type the sender chose."""
from __future__ import annotations

import collections
import datetime
import decimal
import fractions
import importlib.util
import io
import json
import math
import pathlib
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

RUNTIME = Path(__file__).resolve().parent.parent / "judge_runtime"
_spec = importlib.util.spec_from_file_location("_judge_rpc_values_under_test", RUNTIME / "rpc.py")
rpc = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(rpc)
values = rpc._values

# Two ends that never talk: encode_value and decode_value need no pipe.
JUDGE = rpc.Connection(io.BytesIO(), io.BytesIO(), guarded=True)
WORKER = rpc.Connection(io.BytesIO(), io.BytesIO(), guarded=False)
ENDS = [pytest.param(WORKER, JUDGE, id="worker-to-judge"), pytest.param(JUDGE, WORKER, id="judge-to-worker")]

Point = collections.namedtuple("Point", "x y")
offsets = st.timedeltas(min_value=datetime.timedelta(hours=-23), max_value=datetime.timedelta(hours=23))
zones = st.none() | st.just(datetime.timezone.utc) | st.builds(datetime.timezone, offsets)
scalars = (st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text() | st.binary()
           | st.binary().map(bytearray) | st.binary().map(memoryview) | st.complex_numbers(allow_nan=False) | st.just(Ellipsis) | st.just(NotImplemented)
           | st.dates() | st.times(timezones=zones) | st.datetimes(timezones=zones) | st.timedeltas()
           | st.decimals(allow_nan=False) | st.fractions()
           | st.builds(range, st.integers(), st.integers(), st.integers().filter(bool))
           | st.builds(slice, st.none() | st.integers(), st.none() | st.integers(), st.none() | st.integers())
           | st.sampled_from([pathlib.PurePosixPath, pathlib.PureWindowsPath, pathlib.PosixPath]).flatmap(
               lambda cls: st.text(max_size=20).map(cls))
           | st.sampled_from([int, str, list, ValueError]))
hashable = st.none() | st.booleans() | st.integers() | st.text(max_size=5) | st.fractions() | st.dates()
nested = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=4) | st.tuples(inner, inner) | st.builds(Point, inner, inner)
    | st.dictionaries(hashable, inner, max_size=4) | st.frozensets(hashable, max_size=4)
    | st.sets(hashable, max_size=4),
    max_leaves=12)


def same(a, b) -> bool:
    """Equal, of the exact same type (a named tuple: the same fields), all the way down."""
    if isinstance(a, tuple) and hasattr(type(a), "_fields"):
        return type(b).__mro__[1:] == (tuple, object) and b._fields == a._fields and same(tuple(a), tuple(b))
    if type(a) is not type(b):
        return False
    if type(a) in (list, tuple):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if type(a) is dict:
        return list(a) == list(b) and all(same(a[k], b[k]) for k in a)
    if type(a) in (datetime.datetime, datetime.time):
        return a == b and a.tzinfo == b.tzinfo and a.fold == b.fold and a.utcoffset() == b.utcoffset()
    if type(a) is float and math.isinf(a):
        return a == b
    if type(a) is float:
        return a == b and math.copysign(1, a) == math.copysign(1, b)
    return a == b


@pytest.mark.parametrize("sender, receiver", ENDS)
@settings(max_examples=300, deadline=None)
@given(value=nested)
def test_a_value_arrives_equal_and_of_its_exact_type(sender, receiver, value):
    data = sender.encode_value(value)
    data = json.loads(json.dumps(data, allow_nan=False))  # what the pipe carries: plain JSON
    assert same(value, receiver.decode_value(data)), data


def test_a_shared_list_keeps_its_shape_and_a_cycle_through_a_tuple_is_refused():
    inner = [1]
    outer = [inner, inner]
    outer.append(outer)
    got = JUDGE.decode_value(WORKER.encode_value(outer))
    assert got[0] is got[1] and got[2] is got
    cycle = {"$": "tuple", "v": [{"$": "m", "i": 0}]}
    with pytest.raises(rpc.ProtocolError):
        JUDGE.decode_value(cycle)


def test_subclasses_become_their_exact_base_with_the_base_types_own_methods():
    class Liar(int):
        def __int__(self):
            return 0

    class Shouting(str):
        def __str__(self):
            return "NO"

    class Sneaky(list):
        def __iter__(self):
            return iter(["forged"])

    assert values._exact_scalar(Liar(7), Liar) == 7 and type(values._exact_scalar(Liar(7), Liar)) is int
    assert values._exact_scalar(Shouting("yes"), Shouting) == "yes"
    assert values._items(Sneaky([1, 2]), Sneaky) == ("list", [1, 2])
    assert values._items(object(), object) is None and values._exact_scalar(object(), object) is None


def test_namedtuple_fields_are_read_without_running_the_class():
    class Weird(tuple):
        _fields = ("a", "_b")

    assert values._namedtuple_fields(Point, 2) == ["x", "y"]
    assert values._namedtuple_fields(Point, 3) is None
    assert values._namedtuple_fields(Weird, 2) is None  # a private field name is not a named tuple's
    made = values._namedtuple_class("Point", ("x", "y"), "here")
    assert made is values._namedtuple_class("Point", ("x", "y"), "here") and made.__module__ == "here"
    assert made((1, 2)) == (1, 2) and made((1, 2)).y == 2


def test_the_protocol_errors_are_rpcs_own():
    assert rpc.ProtocolError is values.ProtocolError and rpc.RpcError is values.RpcError
    assert rpc.ProtocolError.__module__ == rpc.__name__
    with pytest.raises(rpc.ProtocolError):
        values._check(False, "anything")


# Whatever arrives under a tag of the values' own decoders.
json_leaf = st.none() | st.booleans() | st.integers(-2 ** 40, 2 ** 40) | st.floats(allow_nan=False,
                                                                               allow_infinity=False) | st.text(max_size=8)
VALUE_TAGS = ["int", "float", "complex", "bytes", "memoryview", "bytearray", "list", "set", "dict", "tuple", "frozenset", "ntuple",
              "m", "path", "date", "datetime", "time", "timedelta", "decimal", "fraction", "slice", "range", "type",
              "pattern"]
junk = st.recursive(
    json_leaf,
    lambda inner: st.lists(inner, max_size=4) | st.fixed_dictionaries(
        {"$": st.sampled_from(VALUE_TAGS)},
        optional={"v": st.lists(inner, max_size=3) | inner
                  | st.sampled_from(["nan", "inf", "ff", "2024-01-02", "12:00", "1.5", "PosixPath", "(a", "a+"]),
                  "i": st.integers(-1, 3), "n": inner, "f": inner, "c": st.sampled_from(["PosixPath", "Path", 1]),
                  "z": st.none() | st.fixed_dictionaries({"o": inner})}),
    max_leaves=10)
ALLOWED = {type(None), type(Ellipsis), type(NotImplemented), bool, int, float, str, bytes, memoryview, bytearray, complex, list, tuple, dict, set, frozenset, slice,
           range, type, datetime.date, datetime.datetime, datetime.time, datetime.timedelta, decimal.Decimal,
           fractions.Fraction, pathlib.PosixPath, pathlib.PurePosixPath, pathlib.PureWindowsPath, re.Pattern}


def allowed(value, seen=None) -> bool:
    """Of an allowed type, all the way down (a named tuple: the runtime's own plain class)."""
    seen = set() if seen is None else seen
    t = type(value)
    if id(value) in seen:
        return True
    if t not in ALLOWED and t.__mro__[1:] != (tuple, object):
        return False
    if t is type:
        return value in values._BUILTIN_TYPES.values()
    if t in (list, tuple, set, frozenset, dict) or isinstance(value, tuple):
        seen.add(id(value))
        items = [x for pair in value.items() for x in pair] if t is dict else list(value)
        return all(allowed(x, seen) for x in items)
    return True


def decodes_to_an_allowed_value_or_a_protocol_error(data):
    try:
        got = JUDGE.decode_value(data)
    except rpc.ProtocolError:
        return
    assert allowed(got), repr(got)


@settings(max_examples=500, deadline=None)
@given(data=junk)
def test_whatever_arrives_under_a_value_tag_decodes_to_an_allowed_type_or_a_protocol_error(data):
    decodes_to_an_allowed_value_or_a_protocol_error(data)


@settings(max_examples=300, deadline=None)
@given(value=nested, cut=st.integers(0, 10 ** 6), replacement=junk)
def test_a_sent_value_with_one_part_replaced_decodes_to_an_allowed_type_or_a_protocol_error(value, cut, replacement):
    """A real encoding, one of whose parts (any dict or list in it) the other side replaced."""
    data = json.loads(json.dumps(WORKER.encode_value(value), allow_nan=False))
    parts = []

    def walk(node):
        if type(node) is dict:
            parts.extend((node, k) for k in node)
            for v in node.values():
                walk(v)
        elif type(node) is list:
            parts.extend((node, i) for i in range(len(node)))
            for v in node:
                walk(v)
    walk(data)
    if parts:
        container, key = parts[cut % len(parts)]
        container[key] = replacement
    decodes_to_an_allowed_value_or_a_protocol_error(data)

"""The values of the judge's RPC (rpc.py): the protocol's errors, how a message is checked, and
the exact copies of builtin values (ints, floats, bytes, containers, datetime, Decimal, Fraction,
paths ...) as JSON. No handles and no proxies here: what crosses by reference is rpc.py's.

Encoders are `encode(conn, obj, memo)` and decoders `decode(conn, data, memo)`: `conn` (an
rpc.Connection) only encodes or decodes the items inside (conn._enc, conn._dec, conn._dec_list),
so a container's items may be anything the connection sends. rpc.py loads this file by hand
under a private name (_judge_rpc_values), as worker.py loads rpc.py, and takes the names it uses.

stdlib only: this file runs inside the sandbox interpreter, on both sides.
"""
from __future__ import annotations

import builtins
import operator
import sys


class RpcError(BaseException):
    """The exchange itself failed: the other side is gone or broke the protocol. A
    BaseException, so `except Exception` or `pytest.raises(Exception)` in a test never takes a
    dead or lying worker for an error the model's code raised on purpose."""


class PeerGone(RpcError):
    pass


class ProtocolError(RpcError):
    pass


_BUILTIN_TYPES = {n: t for n, t in vars(builtins).items() if isinstance(t, type)}
_BUILTIN_TYPE_NAMES = {id(t): n for n, t in _BUILTIN_TYPES.items()}
_BUILTIN_EXCEPTIONS = {n: t for n, t in _BUILTIN_TYPES.items() if issubclass(t, BaseException)}
_PATH_TYPES = ("PosixPath", "PurePosixPath", "PureWindowsPath")
_PENDING = object()


# ---------------------------------------------------------------------------------------------
# Exact copies of builtin values. Only the base type's own C methods are used, so a subclass's
# overrides (__iter__, __eq__, __str__ ...) never run. Containers become (kind, items).

def _items(obj, t):
    """(kind, items) for a list/tuple/set/frozenset/dict (or subclass), or None."""
    if issubclass(t, list):
        return "list", list(list.__iter__(obj))
    if issubclass(t, tuple):
        return "tuple", list(tuple.__iter__(obj))
    if issubclass(t, dict):
        return "dict", list(dict.items(obj))
    if issubclass(t, frozenset):
        return "frozenset", list(frozenset.__iter__(obj))
    if issubclass(t, set):
        return "set", list(set.__iter__(obj))
    return None


def _exact_scalar(obj, t):
    """An exact builtin copy of a subclass of int/float/complex/str/bytes/bytearray, else None."""
    if issubclass(t, int):
        return int.__int__(obj)
    if issubclass(t, float):
        return float.__float__(obj)
    if issubclass(t, complex):
        return complex(complex.real.__get__(obj), complex.imag.__get__(obj))
    if issubclass(t, str):
        return str.__str__(obj)
    if issubclass(t, bytes):
        return bytes.__getitem__(obj, slice(None))
    if issubclass(t, bytearray):
        return bytearray.__getitem__(obj, slice(None))
    return None


def _namedtuple_fields(t, size):
    """The field names of a namedtuple-like class, read from the class dicts without running
    any of its code; None when it is not one."""
    try:
        for klass in type.__getattribute__(t, "__mro__"):
            fields = type.__getattribute__(klass, "__dict__").get("_fields")
            if fields is not None:
                break
        else:
            return None
    except Exception:
        return None
    if (type(fields) is tuple and len(fields) == size and len(set(fields)) == size
            and all(type(f) is str and f.isidentifier() and not f.startswith("_") for f in fields)):
        return list(fields)
    return None


_namedtuple_classes: dict = {}


def _namedtuple_class(name: str, fields: tuple, module: str, origin=None):
    """A local tuple subclass with named fields (built without exec): equality stays tuple's.
    `module` is the one it says it comes from (rpc's, the module a test can see); `origin` the
    other side's handle of the class it stands for (handed back, it is that class again)."""
    key = (name, fields, module, origin)
    cls = _namedtuple_classes.get(key)
    if cls is None:
        namespace = {"__slots__": (), "_fields": fields, "__module__": module, "_rpc_origin": origin,
                     "__repr__": lambda self: f"{name}({', '.join(f'{f}={v!r}' for f, v in zip(fields, self))})"}
        for i, field in enumerate(fields):
            namespace[field] = property(operator.itemgetter(i))
        cls = _namedtuple_classes[key] = type(name, (tuple,), namespace)
    return cls


class _Memo:
    """Containers seen in one exchange, in order, so shared and cyclic structures keep their
    shape, a result can be the very list that was passed, and arguments can be written back."""

    def __init__(self):
        self.objs: list = []
        self.writable: list[bool] = []
        self.ids: dict[int, int] = {}
        self.keep: list = []
        # (judge) while set, an object the model's code reached only as a bound method's __self__
        # must not arrive (rpc._dec_yours sets opaque_found): see rpc_policy.OPAQUE_HANDED_OVER
        self.opaque_refused, self.opaque_found = False, False
        # (judge) what a test's request does, the model's object it acts on, and the handles first
        # seen in the answer (rpc_policy.UnderTest)
        self.op, self.target, self.fresh = None, None, ()
        # (judge) objects under test this request hands over, how many containers it sent, and
        # whether the answer hands one of those containers back (holding them: `return args`)
        self.handed: list = []
        self.sent, self.echoed, self.answering = 0, False, False
        self.revoked: list[int] = []  # (judge) objects under test this message made results, once per arrival

    def add(self, key, obj, writable: bool) -> int:
        index = len(self.objs)
        self.objs.append(obj)
        self.writable.append(writable)
        self.ids[id(key)] = index
        self.keep.append(key)
        return index

    def rollback(self, mark: int) -> None:
        for key in self.keep[mark:]:
            self.ids.pop(id(key), None)
        del self.objs[mark:], self.writable[mark:], self.keep[mark:]


def _check(condition, what: str) -> None:
    if not condition:
        raise ProtocolError(f"malformed message: {what}")


def _reject_constant(name: str):
    raise ProtocolError(f"{name} is not valid JSON")


def _apply(target, contents) -> None:
    """Write a container's new contents into the caller's own object (identity kept)."""
    if type(target) is dict:
        target.clear()
        target.update(contents)
    elif type(target) is set:
        target.clear()
        target.update(contents)
    else:
        target[:] = contents


# --- a process setting both sides follow: the decimal context of the thread at hand ------------

def decimal_settings(context) -> list:
    """A decimal context's settings, as they cross (the worker follows the test's; the judge the
    model's, judge_plugin.Worker._from_the_model)."""
    return [context.prec, context.rounding, context.Emin, context.Emax, context.capitals, context.clamp,
            sorted(signal.__name__ for signal, on in context.traps.items() if on)]


def set_decimal_settings(settings: list) -> None:
    """decimal_settings' list applied to this thread's context (a bad value raises ValueError or TypeError)."""
    import decimal
    _check(type(settings) is list and len(settings) == 7 and type(settings[6]) is list, "decimal settings")
    context = decimal.getcontext()
    context.prec, context.rounding, context.Emin, context.Emax, context.capitals, context.clamp = \
        int(settings[0]), str(settings[1]), int(settings[2]), int(settings[3]), int(settings[4]), int(settings[5])
    traps = set(map(str, settings[6]))
    for signal in list(context.traps):
        context.traps[signal] = signal.__name__ in traps


def random_state(rng) -> list:
    """The state of a random.Random (the module's one generator: the test's and the model's are
    one in a plain run), as it crosses."""
    version, internal, gauss = rng.getstate()
    return [version, list(internal), gauss]


def set_random_state(rng, state) -> None:
    """random_state's list set on a random.Random (a bad one raises ValueError or TypeError)."""
    _check(type(state) is list and len(state) == 3 and type(state[1]) is list
           and all(type(n) is int for n in state[1]) and (state[2] is None or type(state[2]) is float), "random state")
    rng.setstate((state[0], tuple(state[1]), state[2]))


# --- value encoders and decoders (exact types only) ---------------------------------------

def _loaded(module: str, name: str):
    """A class of a value module if that module is already imported (else no value of it exists)."""
    return getattr(sys.modules.get(module), name, None)


def _enc_tz(tz):
    if tz is None:
        return None
    if type(tz) is _loaded("datetime", "timezone"):
        offset = tz.utcoffset(None)
        return {"o": [offset.days, offset.seconds, offset.microseconds], "n": tz.tzname(None)}
    if type(tz) is _loaded("zoneinfo", "ZoneInfo") and type(tz.key) is str:
        return {"k": tz.key}
    raise LookupError


def _dec_tz(data):
    import datetime
    if data is None:
        return None
    _check(type(data) is dict, "time zone")
    if "k" in data:
        import zoneinfo
        _check(type(data["k"]) is str, "zone key")
        return zoneinfo.ZoneInfo(data["k"])
    offset = data.get("o")
    _check(type(offset) is list and len(offset) == 3 and all(type(x) is int for x in offset), "offset")
    delta = datetime.timedelta(days=offset[0], seconds=offset[1], microseconds=offset[2])
    name = data.get("n")
    if not delta and name == "UTC":
        return datetime.timezone.utc
    return datetime.timezone(delta, name) if type(name) is str else datetime.timezone(delta)


def _enc_moment(kind):
    def encode(conn, obj, memo):
        try:
            zone = _enc_tz(obj.tzinfo)
        except LookupError:
            return None  # an unknown tzinfo: by reference
        return {"$": kind, "v": obj.replace(tzinfo=None).isoformat(), "z": zone, "f": obj.fold}
    return encode


def _dec_moment(name):
    def decode(conn, data, memo):
        import datetime
        cls = getattr(datetime, name)
        text, fold = data.get("v"), data.get("f")
        _check(type(text) is str and fold in (0, 1) and type(fold) is int, name)
        return cls.fromisoformat(text).replace(tzinfo=_dec_tz(data.get("z")), fold=fold)
    return decode


def _dec_ints(data, count: int, conn, memo) -> list:
    values = conn._dec_list(data, memo)
    _check(len(values) == count and all(type(v) is int for v in values), "integers")
    return values


def _dec_placeholder(kind):
    """Immutable containers are built after their items; a cycle through them is refused."""
    def decode(conn, data, memo):
        index = len(memo.objs)
        memo.objs.append(_PENDING)
        memo.writable.append(False)
        memo.keep.append(None)
        items = conn._dec_list(data, memo)
        if kind == "ntuple":
            name, fields = data.get("n"), data.get("f")
            _check(type(name) is str and name.isidentifier() and type(fields) is list
                   and len(fields) == len(items) and len(set(fields)) == len(fields)
                   and all(type(f) is str and f.isidentifier() and not f.startswith("_") for f in fields),
                   "named tuple")
            origin = data.get("o")
            _check(origin is None or (type(origin) is int and origin > 0), "named tuple class")
            mine = conn._objects.get(origin) if origin is not None and not conn.guarded else None
            if isinstance(mine, type) and issubclass(mine, tuple) and _namedtuple_fields(mine, len(items)) == fields:
                obj = tuple.__new__(mine, items)  # the model's own named tuple, handed back
            elif any(hasattr(tuple, f) for f in fields):  # a field `index` or `count` would answer tuple's own methods
                obj = tuple(items)
            else:
                obj = _namedtuple_class(name, tuple(fields), type(conn).__module__, origin)(items)
        else:
            obj = tuple(items) if kind == "tuple" else frozenset(items)
        memo.objs[index] = obj
        memo.keep[index] = obj
        memo.ids[id(obj)] = index
        return obj
    return decode


def _dec_memo(conn, data, memo):
    index = data.get("i")
    _check(type(index) is int and 0 <= index < len(memo.objs), "back-reference")
    obj = memo.objs[index]
    _check(obj is not _PENDING, "a cycle through an immutable container")
    if index < memo.sent:
        memo.echoed = True
        if conn.guarded and memo.answering:  # the test's own container back (what it holds, looked through)
            conn.under_test.handed_back(obj)
    return obj


def _dec_bytes(conn, data, memo):
    _check(type(data.get("v")) is str, "bytes")
    return bytes.fromhex(data["v"])


def _enc_memoryview(conn, obj, memo):
    """A read-only view of bytes (what bytes.decode hands a codec): a view of a copy, as bytes
    cross. A writable view stays a proxy (writes through it reach the owner)."""
    try:
        if not obj.readonly or obj.ndim != 1 or obj.format != "B" or not obj.c_contiguous:
            return None
        return {"$": "memoryview", "v": obj.tobytes().hex()}
    except ValueError:  # released
        return None


def _dec_memoryview(conn, data, memo):
    return memoryview(_dec_bytes(conn, data, memo))


def _dec_bytearray(conn, data, memo):
    obj = bytearray(_dec_bytes(conn, data, memo))
    memo.add(obj, obj, True)
    return obj


def _dec_int(conn, data, memo):
    _check(type(data.get("v")) is str and len(data["v"]) < 10 ** 6, "big integer")
    return int(data["v"], 16)


def _dec_float(conn, data, memo):
    _check(data.get("v") in ("nan", "inf", "-inf"), "float")
    return float(data["v"])


def _dec_complex(conn, data, memo):
    parts = conn._dec_list(data, memo)
    _check(len(parts) == 2 and all(type(p) is float for p in parts), "complex")
    return complex(*parts)


def _dec_path(conn, data, memo):
    import pathlib
    name, text = data.get("c"), data.get("v")
    _check(name in _PATH_TYPES and type(text) is str, "path")
    return getattr(pathlib, name)(text)


def _dec_timedelta(conn, data, memo):
    import datetime
    days, seconds, micros = _dec_ints(data, 3, conn, memo)
    return datetime.timedelta(days=days, seconds=seconds, microseconds=micros)


def _dec_date(conn, data, memo):
    import datetime
    _check(type(data.get("v")) is str, "date")
    return datetime.date.fromisoformat(data["v"])


def _dec_decimal(conn, data, memo):
    import decimal
    _check(type(data.get("v")) is str, "decimal")
    return decimal.Decimal(data["v"])


def _dec_pattern(conn, data, memo):
    """A compiled regular expression: its pattern (str or bytes) and flags, compiled anew (no code runs)."""
    import re
    pattern, flags = conn._dec(data.get("v"), memo), data.get("f")
    _check(type(pattern) in (str, bytes) and type(flags) is int, "pattern")
    try:
        return re.compile(pattern, flags)
    except (re.error, ValueError, OverflowError) as e:
        raise ProtocolError(f"a pattern that does not compile: {e}") from None


def _dec_fraction(conn, data, memo):
    import fractions
    numerator, denominator = _dec_ints(data, 2, conn, memo)
    _check(denominator != 0, "fraction")
    return fractions.Fraction(numerator, denominator)


def _dec_slice(conn, data, memo):
    parts = conn._dec_list(data, memo)
    _check(len(parts) == 3, "slice")
    return slice(*parts)


def _dec_range(conn, data, memo):
    start, stop, step = _dec_ints(data, 3, conn, memo)
    _check(step != 0, "range")
    return range(start, stop, step)


def _dec_type(conn, data, memo):
    cls = _BUILTIN_TYPES.get(data.get("n"))
    _check(cls is not None, "builtin type")
    return cls


def _enc_namespace(conn, obj, memo):
    """An argparse.Namespace or types.SimpleNamespace of the model's code: by value, as the judge's
    own class (a test compares what `parse_args` returned with a Namespace of its own). A test's
    namespace stays the test's, by reference: the model's code may set attributes on it."""
    attrs = getattr(obj, "__dict__", None)
    if conn.guarded or type(attrs) is not dict or not all(type(k) is str for k in attrs):
        return None
    return {"$": "namespace", "c": type(obj).__module__, "v": [[k, conn._enc(v, memo)] for k, v in dict.items(attrs)]}


def _dec_namespace(conn, data, memo):
    import argparse
    import types
    module, items = data.get("c"), data.get("v")
    _check(module in ("argparse", "types") and type(items) is list, "namespace")
    made = argparse.Namespace() if module == "argparse" else types.SimpleNamespace()
    for entry in items:
        _check(type(entry) is list and len(entry) == 2 and type(entry[0]) is str, "namespace attribute")
        made.__dict__[entry[0]] = conn._dec(entry[1], memo)
    return made


_VALUE_ENCODERS = {
    bytes: lambda conn, obj, memo: {"$": "bytes", "v": obj.hex()},
    memoryview: _enc_memoryview,
    complex: lambda conn, obj, memo: {"$": "complex", "v": [conn._enc(obj.real, memo), conn._enc(obj.imag, memo)]},
    range: lambda conn, obj, memo: {"$": "range", "v": [conn._enc(obj.start, memo), conn._enc(obj.stop, memo),
                                                        conn._enc(obj.step, memo)]},
    slice: lambda conn, obj, memo: {"$": "slice", "v": [conn._enc(obj.start, memo), conn._enc(obj.stop, memo),
                                                        conn._enc(obj.step, memo)]},
}
_LAZY_ENCODERS = {
    ("datetime", "date"): lambda conn, obj, memo: {"$": "date", "v": obj.isoformat()},
    ("datetime", "datetime"): _enc_moment("datetime"),
    ("datetime", "time"): _enc_moment("time"),
    ("datetime", "timedelta"): lambda conn, obj, memo: {"$": "timedelta", "v": [obj.days, obj.seconds, obj.microseconds]},
    ("decimal", "Decimal"): lambda conn, obj, memo: {"$": "decimal", "v": str(obj)},
    ("re", "Pattern"): lambda conn, obj, memo: {"$": "pattern", "v": conn._enc(obj.pattern, memo), "f": obj.flags},
    ("argparse", "Namespace"): _enc_namespace, ("types", "SimpleNamespace"): _enc_namespace,
    ("fractions", "Fraction"): lambda conn, obj, memo: {"$": "fraction", "v": [conn._enc(obj.numerator, memo),
                                                                              conn._enc(obj.denominator, memo)]},
    **{("pathlib", name): (lambda conn, obj, memo: {"$": "path", "c": type(obj).__name__, "v": str(obj)})
       for name in _PATH_TYPES},
}


def _value_encoder(t):
    """The encoder for an exact value type; the lazy ones join once their module is imported."""
    encoder = _VALUE_ENCODERS.get(t)
    if encoder is None and _LAZY_ENCODERS:
        for key in [k for k in _LAZY_ENCODERS if k[0] in sys.modules]:
            cls = _loaded(*key)
            if isinstance(cls, type):
                _VALUE_ENCODERS[cls] = _LAZY_ENCODERS.pop(key)
        encoder = _VALUE_ENCODERS.get(t)
    return encoder

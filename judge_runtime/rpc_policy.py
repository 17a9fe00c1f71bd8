"""The judge's policy at the trust boundary (used by rpc.py's guarded end): what the model's code
may do with what the tests hand it, and what the judge remembers about it.

- What is handed out at all (_check_exportable): never modules, frames, code objects, tracebacks,
  or module-level builtins but a few safe ones.
- What the model's code may act on (_check_target): only what the tests handed out; never the
  harness's objects (pytest's, pluggy's, the judge's); of a test class's instance only its bound
  methods, called.
- Which attribute names it may read or write (_check_name): public names; private names and data
  dunders only of the tests' own objects (_defined_here: defined in the trusted tests' folder).
- The tests' failed assertions that went into the model's hands (a callback it called, the body
  of its context manager) and never came out: they still count (failures_kept_by_the_model).
- While the judge answers the worker's questions it acts for the model's code
  (acting_for_the_model): its audit hook (judge_plugin) then allows it no more than the worker.

Functions that take `conn` read only its handle table (conn._is_exported) and its trusted folder
(conn._trusted). rpc.py loads this file by hand under a private name (_judge_rpc_policy).

stdlib only: this file runs inside the sandbox interpreter, on both sides (the worker's end never
asks the policy, but shares the bookkeeping of the calls it is in: FOR_THE_MODEL).
"""
from __future__ import annotations

import builtins
import collections.abc
import contextvars
import datetime
import functools
import gc
import os
import pickle
import re
import secrets
import sys
import threading
import types
import weakref
from typing import Optional

# Builtins the judge may hand to the model's code when a test passes them (e.g. key=len).
_SAFE_BUILTINS = {"abs", "all", "any", "ascii", "bin", "callable", "chr", "divmod", "format", "hash", "hex",
                  "id", "isinstance", "issubclass", "iter", "len", "max", "min", "next", "oct", "ord", "pow",
                  "print", "repr", "round", "sorted", "sum"}
_NEVER_EXPORTED = (types.ModuleType, types.FrameType, types.CodeType, types.TracebackType)

_TOKEN_HEX = secrets.token_hex  # (a test's mock of secrets must not make the judge's tickets)


def _is_dunder(name: str) -> bool:
    return name.startswith("__") and name.endswith("__")


# Dunders the model's code may read on any object the tests handed it (each a plain value), and
# more on the tests' own objects; dunders it may set on the tests' own objects (besides new ones).
_READABLE_DUNDERS = frozenset({"__name__", "__qualname__", "__doc__", "__module__", "__annotations__",
                               "__type_params__", "__text_signature__", "__enter__", "__exit__", "__aenter__",
                               "__aexit__", "__len__", "__iter__", "__next__", "__contains__", "__getitem__"})
_OWN_READABLE_DUNDERS = frozenset({"__dict__", "__wrapped__", "__defaults__", "__kwdefaults__", "__slots__",
                                   "__call__", "__self__", "__func__", "__bases__"})
# What the model's code may never read of a bound method (it forwards them from its function) or
# of a functools.partial of the tests' function (a test `partial(check, case, expected)`).
_FUNCTION_INSIDES = frozenset({"__closure__", "__globals__", "__builtins__", "__code__", "args", "keywords",
                               "func", "__reduce__", "__setstate__"})
# A part of a test's object handed over is that part, never the whole it leads back to, the rest of
# which the test may keep as its expected answers (red team rounds 34-35): (module, class) -> the
# attribute that is the whole. A dict view's `mapping` (`EXPECTED.keys()` handed over), a
# memoryview slice's `obj` (a frame without its checksum), a ConfigParser section's `parser`.
_BACK_TO_THE_WHOLE = {("builtins", "dict_keys"): "mapping", ("builtins", "dict_values"): "mapping",
                      ("builtins", "dict_items"): "mapping", ("builtins", "memoryview"): "obj",
                      ("configparser", "SectionProxy"): "parser"}
_WHOLES = frozenset(_BACK_TO_THE_WHOLE.values())


def _leads_to_the_whole(target, name: str) -> bool:
    return any(_BACK_TO_THE_WHOLE.get((getattr(k, "__module__", None), k.__name__)) == name
               for k in type.__getattribute__(type(target), "__mro__"))


def _a_part(obj) -> bool:
    """A part of a whole whose pickle (or text) is the whole: a carrier of _BACK_TO_THE_WHOLE, or
    any view of a mapping (a `collections.abc` KeysView pickles its `_mapping`: red team round 39)."""
    abc = sys.modules.get("collections.abc")
    return (abc is not None and isinstance(obj, abc.MappingView)) or any(
        (getattr(k, "__module__", None), k.__name__) in _BACK_TO_THE_WHOLE for k in type.__getattribute__(type(obj), "__mro__"))


# What the model's code may read of a test class itself (a class decorator's argument): its name.
_TEST_CLASS_NAMES = frozenset({"__name__", "__qualname__", "__module__", "__doc__"})


class Default:
    """What the model's code gets for a default value of the tests' function (`__defaults__`,
    inspect.signature): a token. A test made in a loop keeps its case there (`def test(x=_x,
    expected=_expected)`)."""

    __slots__ = ()

    def __repr__(self):
        return "<a default value of the tests' function>"


def hidden_defaults(defaults):
    """(judge) A function's __defaults__ / __kwdefaults__ as the model's code sees them."""
    if type(defaults) is tuple:
        return tuple(Default() for _ in defaults)
    if type(defaults) is dict:
        return {name: Default() for name in defaults}
    return None
_WRITABLE_DUNDERS = frozenset({"__doc__", "__wrapped__", "__name__", "__qualname__"})
_TEST_SECRETS = frozenset({"pytestmark"})  # pytest keeps a test's parametrize values there
# What pytest and unittest read on a test's function or class to decide whether and how it runs.
_PYTEST_READS = frozenset({"__test__", "__unittest_skip__", "__unittest_skip_why__", "__unittest_expecting_failure__",
                           "__pytest_wrapped__", "__signature__", "__wrapped__", "_pytestfixturefunction",
                           "__call__", "__code__", "__defaults__", "__kwdefaults__"})


# The harness: pytest, pluggy and the judge itself. Its objects reach the model's code only as
# opaque handles (a Metafunc or a fixture request leads to every hook of the judge).
_HARNESS_MODULES = ("_pytest", "pytest", "pluggy", "judge_plugin", "_judge_sweep", "py.")  # rpc.py's own dispatchers are handed out
_FAILURES_IN_MODEL_HANDS: list = []  # (judge) the tests' failed assertions the model's code has not let through,
# each with the call of ours it went into the model's hands in


def _iteration_step(op: str, args: tuple) -> bool:
    """next(it), it.__next__(), gen.send(x), gen.throw(...): where StopIteration means "no more".
    Raised by any other call it would end a loop of the test's own (`all(map(check, cases))`),
    so it comes back as RuntimeError, as from a generator (PEP 479)."""
    if op == "op":
        return bool(args) and args[0] in ("next", "anext")
    return op == "method" and len(args) > 1 and args[1] in ("__next__", "send", "throw", "__anext__", "asend", "athrow")


class Refused(BaseException):
    """The judge refused to hand a test's value to the model's code (an operator, `in`). Not a
    TypeError: a test's `pytest.raises(TypeError)` must not take the judge's refusal for the
    model's answer (`Money(5) + 3` raising as the test expects), nor any `except Exception`."""


class FromTheModel(BaseException):
    """What the model's code raised that cannot reach a test as itself: StopIteration from a call
    that is not a step of an iterator (it would end the test's loop over its checks early), a
    KeyboardInterrupt (it would end the session). Not an Exception: no test expects it."""


def _is_test_failure(exc) -> bool:
    """A failed assertion of a test (or pytest.fail), or what the judge itself raised in the test's
    code (a refusal, the model's StopIteration as rpc.FromTheModel): the verdict's own signals,
    which count even if the model's code catches them (a callback's caller, its __exit__)."""
    t = type(exc)
    return isinstance(exc, AssertionError) or (t.__name__ == "Failed" and t.__module__ == "_pytest.outcomes") \
        or isinstance(exc, JUDGES_OWN)


# (judge) The judge's own exceptions. The refusals of its audit hooks while it acts for the model's
# code are kept where they are raised (judge_plugin) and never released (REFUSALS): a test's
# callback that reads the tests' data files fails, also where the test's own code or a library
# catches the refusal (Path.glob), or where it comes back as the OSError a test expects.
JUDGES_OWN: tuple = (Refused, FromTheModel)
REFUSALS: "weakref.WeakSet" = weakref.WeakSet()


def failures_kept_by_the_model() -> list:
    """(judge) The tests' failed assertions that went into the model's code (a callback it
    called, the body of its context manager) and never came out: they count all the same. The
    list is emptied: each phase of a test asks once."""
    kept = [exc for exc, _ in _FAILURES_IN_MODEL_HANDS]
    _FAILURES_IN_MODEL_HANDS.clear()
    return kept


def _came_back(exc, qid: int) -> None:
    """(judge) An exception the model's code raised to the test as the answer to our call `qid`:
    if it is a test failure that went into the model's hands during that very call, it came
    back through. Never one in its chain (the model's code can set any cause on an exception it
    then catches again), nor a failure kept from an earlier call and raised now."""
    for i, (kept, during) in enumerate(_FAILURES_IN_MODEL_HANDS):
        if kept is exc and during == qid and exc not in REFUSALS:
            del _FAILURES_IN_MODEL_HANDS[i]
            return


# (judge) Methods of the tests' objects that keep a callable and call it later where its failure
# is swallowed (sqlite3 turns a callback's AssertionError into its own OperationalError, a Future
# logs what its done-callback raised, an ExitStack's exit callback may suppress the block's
# failure): a callable the model's code registers there runs as the judge runs what the model asks
# of it (RUN_FOR_THE_MODEL, set by judge_plugin: its failed assertions are kept); an aggregate
# class's methods too; an exit callback that suppresses a test's failure keeps it.
_SWALLOWERS = {
    ("sqlite3", "Connection"): frozenset({"create_function", "create_window_function", "create_aggregate",
                                          "create_collation", "set_authorizer", "set_progress_handler",
                                          "set_trace_callback"}),
    ("concurrent.futures._base", "Future"): frozenset({"add_done_callback"}),
    ("_asyncio", "Future"): frozenset({"add_done_callback"}), ("_asyncio", "Task"): frozenset({"add_done_callback"}),
    ("contextlib", "ExitStack"): frozenset({"push", "callback"}),
    ("contextlib", "AsyncExitStack"): frozenset({"push", "callback"}),
}
RUN_FOR_THE_MODEL = None
# (judge) Methods that take away what a test registered on its object to run later (its checks):
# refused to the model's code, whose helper would otherwise drop the test's exit check unseen.
_TAKERS = {
    ("contextlib", "ExitStack"): frozenset({"pop_all"}), ("contextlib", "AsyncExitStack"): frozenset({"pop_all"}),
    ("_asyncio", "Future"): frozenset({"remove_done_callback"}), ("_asyncio", "Task"): frozenset({"remove_done_callback"}),
}


class _MethodsForTheModel:
    """An instance of the tests' aggregate class as sqlite sees it: each method runs for the model."""

    def __init__(self, obj):
        self._obj = obj

    def __getattr__(self, name):
        attr = getattr(self._obj, name)
        return RUN_FOR_THE_MODEL(attr) if callable(attr) and RUN_FOR_THE_MODEL is not None else attr


def _exit_for_the_model(exit_callback):
    """An ExitStack exit callback: one that suppresses a test's failure keeps it."""
    def exit_(exc_type, exc, tb):
        suppressed = exit_callback(exc_type, exc, tb)
        if suppressed and _is_test_failure(exc):
            _keep_failure(exc)
        return suppressed
    return exit_


def _for_the_model(target, name: str, value):
    if not callable(value):
        return value
    if type(target).__name__ in ("ExitStack", "AsyncExitStack"):
        return _exit_for_the_model(value) if name == "push" and not hasattr(value, "__exit__") else value
    if isinstance(value, type) and name in ("create_aggregate", "create_window_function"):
        return RUN_FOR_THE_MODEL(lambda *args: _MethodsForTheModel(value(*args)))
    return RUN_FOR_THE_MODEL(value)


# (judge) What would decide whether a test's coroutines run at all: a task factory of the model's
# on the test's event loop closes them unrun (red team round 37).
_LOOP_SETTERS = frozenset({"set_task_factory", "set_default_executor"})


def callbacks_for_the_model(target, name: str, args: tuple, kwargs: dict) -> tuple:
    """(judge) The arguments of a method the model's code calls on a test's object, callables
    wrapped where the object would call them later and swallow their failures."""
    t = type(target)
    asyncio = sys.modules.get("asyncio")
    if name in _LOOP_SETTERS and asyncio is not None and isinstance(target, asyncio.AbstractEventLoop):
        raise Refused(f"{t.__name__}.{name}: what runs a test's coroutines on its event loop is the test's")
    if name in _TAKERS.get((t.__module__, t.__name__), ()):
        raise Refused(f"{t.__name__}.{name}: what a test registered on its {t.__name__} stays there (the model's "
                      f"code may not take a test's checks away)")
    _inside_as_the_model_would([*args, *kwargs.values()])
    if RUN_FOR_THE_MODEL is None or name not in _SWALLOWERS.get((t.__module__, t.__name__), ()):
        return args, kwargs
    return (tuple(_for_the_model(target, name, a) for a in args),
            {k: _for_the_model(target, name, v) for k, v in kwargs.items()})


# (judge) The judge's builtins that call what they are given later, on the judge's side: handed to a
# test's object (`loop.run_in_executor(None, map, map, [f], [[x]])`, `iter(give, None)` made there)
# they call the judge's callables for the model's code unchecked (red team rounds 39-40).
_CALLS_LATER = (builtins.map, builtins.filter, builtins.iter)


def _check_as_the_model_would(fn) -> None:
    """(judge) A callable of the judge's that the model's code hands to a test's object to call
    later (`loop.run_in_executor(None, loop.set_task_factory, f)`): the same refusals as the
    model's own call of it (red team round 38). The judge's repr, ascii and format reach the
    judge from the model's code as judged_text already (rpc._dec_global)."""
    if any(fn is later for later in _CALLS_LATER):
        raise Refused(f"{fn.__name__}: the judge's own would call what it is given later, for the model's code, "
                      "unchecked: a test's object is not handed one")
    if type(fn) in (types.MethodType, types.BuiltinMethodType) and getattr(fn, "__self__", None) is not None \
            and not isinstance(fn.__self__, types.ModuleType):
        callbacks_for_the_model(fn.__self__, fn.__name__, (), {})  # refuses a taker or a loop setter


def judged_text(text):
    """(judge) The judge's repr, ascii or format as the model's code gets it, wherever it is called
    (a test's executor, a map): the real text only of exact scalars and strings, of the model's own
    objects (their text is the worker's) and of builtin containers of those; anything else tells
    its kind only. A slice, a namespace, a named tuple or an exception made around a test's
    partial, or a test's object the model's code may not look inside, would show what it holds
    (red team round 42)."""
    def judged_text(obj=None, *args, **kwargs):
        return text(obj, *args, **kwargs) if _text_is_plain(obj) else f"<{type(obj).__name__} of the tests>"
    return judged_text


_CONTAINERS = (list, tuple, set, frozenset, dict)
_PLAIN_TEXT = (int, float, complex, bool, str, bytes, type(None))
REMOTE_TYPES: set = set()  # (the proxies' classes, rpc._remote_class)


def _text_is_plain(obj) -> bool:
    return type(obj) in _PLAIN_TEXT or type(obj) in REMOTE_TYPES or \
        type(obj) in _CONTAINERS and all(type(x) in _PLAIN_TEXT or type(x) in REMOTE_TYPES for x in _items(obj))


def _items(box):
    """Everything but a list, tuple, set or dict in `box` (one of them) and in those inside it."""
    seen, boxes = set(), [box]
    while boxes:
        box = boxes.pop()
        if id(box) in seen:
            continue
        seen.add(id(box))
        for x in [*box.keys(), *box.values()] if type(box) is dict else box:
            if type(x) in _CONTAINERS:
                boxes.append(x)
            else:
                yield x


def _inside_as_the_model_would(values: list) -> None:
    """(judge) What the model's code hands to a test's object, and the callables inside its lists,
    tuples, sets and dicts (`map(map, [f], [[x]])`: red team round 39), get _check_as_the_model_would."""
    for x in _items(values):
        _check_as_the_model_would(x)


# (judge) What the judge raises in a test's callback that the model's code must never catch: the
# test's time ran out (judge_plugin.Overtime). It ends the exchange and reaches the test.
NOT_FOR_THE_MODEL: tuple = ()


def _keep_failure(exc) -> None:
    """(judge) A test's failure went into the model's hands, during the innermost call this
    thread is making into the model's code (None: no call of ours, it can never come back)."""
    if any(kept is exc for kept, _ in _FAILURES_IN_MODEL_HANDS):
        return
    asking = getattr(FOR_THE_MODEL, "asking", None)
    _FAILURES_IN_MODEL_HANDS.append((exc, asking[-1] if asking else None))


# (judge) The judge's functions made for the model's code to call (judge_plugin._import_for_the_model):
# each calls a test's own function and hands back only what the model's code may have.
CALLED_BY_THE_MODEL: "weakref.WeakSet" = weakref.WeakSet()


def _of_the_harness(obj) -> bool:
    if type(obj) is types.FunctionType and obj in CALLED_BY_THE_MODEL:
        return False
    names = [type(obj).__module__]
    if isinstance(obj, type) or type(obj) in (types.FunctionType, types.BuiltinFunctionType):
        names.append(getattr(obj, "__module__", None))
    elif type(obj) is types.MethodType:
        names += [getattr(obj.__func__, "__module__", None), type(obj.__self__).__module__]
    return any(type(n) is str and n.startswith(_HARNESS_MODULES) for n in names)


def _method_on_type(obj, name: str) -> bool:
    """Whether obj's type defines `name` as a method (not a data attribute or a property)."""
    for klass in type.__getattribute__(type(obj), "__mro__"):
        value = type.__getattribute__(klass, "__dict__").get(name)
        if value is not None:
            return isinstance(value, (classmethod, staticmethod)) or (callable(value)
                                                                      and not hasattr(type(value), "__set__"))
    return False


def _on_type(obj, name: str) -> bool:
    """Whether `name` is defined by obj's type (a slot or a descriptor), not by obj itself."""
    return any(name in type.__getattribute__(k, "__dict__") for k in type.__getattribute__(type(obj), "__mro__"))


# (judge) How many of the worker's questions this thread is answering now: while it answers one,
# the judge acts for the model's code (a method of a test's object, a test's callback), and its
# audit hook (judge_plugin) allows it no more than the worker may do.
FOR_THE_MODEL = threading.local()
TEST_CLASSES: set = set()  # (judge) the classes pytest collected tests from, whatever their names (python_classes)
# (judge) While a test function the model's code made runs (the wrapper of its decorator): the
# test's own function, which the model's code calls back (judge_plugin.TestBody; None otherwise).
TEST_BODY = None
# (judge) The tests' functions and classes the model's code handed back (a decorator's result): the
# judge checks that what it collects under a test's name is that test's own (judge_plugin).
HANDED_BACK: "weakref.WeakSet" = weakref.WeakSet()
# (judge) The tests' functions handed to the model's code while the tests are imported (a decorator
# of the model's on a test, a fixture, a factory's inner test), by id; each leaves when the model's
# code calls it or hands it back as that call's result. One still here at the session's end was
# made to vanish (judge_plugin: an error). IMPORTING ends when pytest has collected.
HANDED_AT_IMPORT: dict = {}
IMPORTING = True


def handed_at_import(conn, obj) -> None:
    """(judge) Remember a test's function (not a lambda) the model's code gets while the tests load."""
    if IMPORTING and ((type(obj) is types.FunctionType and obj.__code__.co_name != "<lambda>"
                       and _defined_here(conn, obj)) or _partial_of_theirs(conn, obj)):
        HANDED_AT_IMPORT[id(obj)] = obj


def ran(target) -> None:
    """(judge) The model's code called one of the tests' functions (or a bound method of it) while
    a test runs, and the call returned (a call while the tests load, or one that failed, ran no test)."""
    if IMPORTING:
        return
    target = getattr(target, "__func__", target) if type(target) is types.MethodType else target
    if type(target).__name__ == "method-wrapper":  # f.__call__
        target = target.__self__
    if HANDED_AT_IMPORT.get(id(target)) is target:
        del HANDED_AT_IMPORT[id(target)]


# (judge) What a call of the model's code made, while the tests load, from the one test function
# it was handed (a decorator's wrapper): id(wrapper) -> (wrapper, the test's function). TestBody
# takes that function for the test's own body (a factory's inner `def test` too).
MADE_FROM: dict = {}


def decorated(conn, result, args: tuple, kwargs: dict) -> None:
    """(judge) A call of the model's code while the tests load: one that returns the test function
    it was handed (a decorator that returns the test itself) hands it back to pytest, which runs it
    as the tests' own; a wrapper it returns for one stands for that one."""
    given = [a for a in (*args, *kwargs.values())
             if (type(a) is types.FunctionType and _defined_here(conn, a)) or _partial_of_theirs(conn, a)]
    if any(result is a for a in given):
        HANDED_AT_IMPORT.pop(id(result), None)
    elif len(given) == 1 and type(result) is not types.FunctionType:
        known = MADE_FROM.get(id(result))
        if known is not None and known[0] is result and known[1] is not given[0]:
            MADE_FROM[id(result)] = (result, None)  # one wrapper for several tests: stands for none of them
        else:
            MADE_FROM[id(result)] = (result, given[0])


def made_from(wrapper):
    """(judge) The test function the model's code made this wrapper from (None: not known)."""
    entry = MADE_FROM.get(id(wrapper))
    return entry[1] if entry is not None and entry[0] is wrapper else None


def acting_for_the_model() -> bool:
    return getattr(FOR_THE_MODEL, "depth", 0) > 0


def _check_exportable(obj) -> None:
    """What the judge never hands to the model's code: modules, frames, code objects,
    tracebacks (each a door to globals), and module-level builtins such as eval or open."""
    if isinstance(obj, _NEVER_EXPORTED):
        raise Refused(f"a {type(obj).__name__} object cannot be handed to the model's code")
    if type(obj) is types.BuiltinFunctionType:
        owner = obj.__self__
        if owner is None or isinstance(owner, types.ModuleType):
            if not (owner is builtins and obj.__name__ in _SAFE_BUILTINS):
                raise Refused(f"the builtin {obj.__name__!r} cannot be handed to the model's code")


def _check_target(conn, obj, op: str = "use") -> None:
    """(judge) What the model's code may act on: what the tests handed out; never the
    harness's objects (pytest's, pluggy's, the judge's); of an instance of a test class
    (TestX, a TestCase) only its bound methods, called: its attributes are the test's state."""
    if not conn._is_exported(obj):
        raise PermissionError("only objects the tests handed out can be used from the model's code")
    if _of_the_harness(obj):
        raise PermissionError(f"{type(obj).__name__}: pytest's and the judge's own objects are not for the "
                              f"model's code (they lead to the hooks that decide the verdict)")
    if op != "call" and _test_case(conn, obj):
        raise PermissionError("an instance of a test class is the test's own state: the model's code may "
                              "call the bound methods it was handed, and unittest's own assertions, nothing else")
    if op != "call" and id(obj) in _ONLY_THROUGH_SELF and _ONLY_THROUGH_SELF[id(obj)] is obj:
        raise PermissionError("an object the model's code reached only as a bound method's __self__ is the "
                              "tests' (a stop rule's target): it may hand it back, not look inside")


# (judge) Objects of the tests the model's code reached only as the __self__ of a bound method they
# handed it (`six.get_method_self(x.m) is x` holds; `done.__self__.target` is refused).
_ONLY_THROUGH_SELF: dict[int, object] = {}


def handed_by_the_tests(obj) -> None:
    """(judge) An object the tests themselves hand to the model's code (an argument of their call,
    not an answer to the model's request) is open to it."""
    if getattr(FOR_THE_MODEL, "handing", False) and not acting_for_the_model():
        _ONLY_THROUGH_SELF.pop(id(obj), None)


def only_through_self(obj) -> bool:
    return _ONLY_THROUGH_SELF.get(id(obj), _ABSENT) is obj


# What the judge says when such an object comes from the model's code anywhere but as the target of
# a call or as the answer to a test's own call: inside a slice or a namespace handed to a test's
# pool with the judge's `str`, or yielded to a test's pool.map (red team round 43).
OPAQUE_HANDED_OVER = ("an object the model's code reached only as a bound method's __self__ may be handed back "
                      "to the test or called, not handed to a test's object, which could look inside it")


def reached_through_self(conn, target, name: str, value) -> None:
    """(judge) After `bound.__self__`: an object the tests never handed out becomes opaque."""
    if name == "__self__" and type(target) is types.MethodType and not conn._is_exported(value):
        _ONLY_THROUGH_SELF[id(value)] = value


def unittest_assertion(obj, name) -> bool:
    """(judge) unittest's own assertion (`assertCountEqual`, `fail` ...) on a TestCase the tests
    handed out, not one the test class replaced: the model's code may call it (six.assertCountEqual(self, ...))."""
    unittest = sys.modules.get("unittest")
    if unittest is None or type(name) is not str or not name.startswith(("assert", "fail")) \
            or not isinstance(obj, unittest.TestCase):
        return False
    own = unittest.TestCase.__dict__.get(name)
    return callable(own) and _class_attribute(type(obj), name) is own


def _class_attribute(cls, name):
    for klass in type.__getattribute__(cls, "__mro__"):
        found = type.__getattribute__(klass, "__dict__").get(name, _ABSENT)
        if found is not _ABSENT:
            return found
    return None


_ABSENT = object()


def _pickle_for_the_model(conn, obj) -> bytes:
    """(judge) pickle.dumps of a test's object for the model's code (its copy or deepcopy):
    never with an instance of a test class or the harness's objects inside (a bound method
    pickles its instance, with the test's state), nor an iterator (an `islice(SEQ, 5)` pickles
    the whole of SEQ, also what it has passed over: red team round 34), nor a part of a whole
    (_a_part: round 39)."""
    import io
    import pickle

    class Guarded(pickle.Pickler):
        def persistent_id(self, x):
            if _test_case(conn, x) or _of_the_harness(x) or _binds_values(x) or _ONLY_THROUGH_SELF.get(id(x), _ABSENT) is x \
                    or hasattr(type(x), "__next__") or _a_part(x):
                raise PermissionError("a test instance, what a callable or an iterator of the tests holds, a view of "
                                      "a whole or the harness's object would be pickled for the model's code (its "
                                      "state is the test's)")
            return None

    buffer = io.BytesIO()
    Guarded(buffer).dump(obj)
    return buffer.getvalue()


def _binds_values(obj) -> bool:
    """A callable that carries values of the tests' with it (a bound method's object, a partial's
    arguments, an itemgetter's keys): anything callable but a class, a plain function or a
    module's builtin, which pickle by name."""
    if isinstance(obj, type) or type(obj) is types.FunctionType:
        return False
    if type(obj) is types.BuiltinFunctionType and (obj.__self__ is None or isinstance(obj.__self__, types.ModuleType)):
        return False
    return callable(obj)


def opaque_text(obj) -> str | None:
    """(judge) What repr(), str() or format() of a test's callable tells the model's code, when
    the real text would show what it binds (`functools.partial(<isclose>, 1.4142135623730951)`,
    a bound method's object): its kind only. None: the real text."""
    if isinstance(obj, (types.MethodType, functools.partial)):
        return f"<{type(obj).__name__} of the tests>"
    abc = sys.modules.get("collections.abc")
    if abc is not None and isinstance(obj, abc.MappingView) and not _leads_to_the_whole(obj, "mapping"):
        return f"<{type(obj).__name__} of the tests>"  # a KeysView's text is its whole mapping (round 38)
    if type(obj) in _CONTAINERS and any(opaque_text(x) is not None for x in _items(obj)):
        return f"<{type(obj).__name__} holding callables of the tests>"  # `repr([partial])` (round 41)
    return None


def _partial_of_theirs(conn, obj) -> bool:
    """A functools.partial the tests handed out, of any function (`partial(math.isclose, expected)`,
    `partial(self.assertIn, container=expected)`): what it binds is the test's."""
    import functools
    return isinstance(obj, functools.partial)


def _test_case(conn, obj) -> bool:
    """An instance of a test class."""
    return _test_class(conn, type(obj))


def _test_class(conn, cls) -> bool:
    """A class of the tests pytest collects (or would, by its default name: one without an
    `__init__` or `__new__` of its own, as pytest has it), a TestCase. Any
    unittest.TestCase of the judge is one, wherever it was made (`types.new_class("TestX", ...)`
    names the `types` module as its home): the model's code has no class in the judge."""
    unittest = sys.modules.get("unittest")
    if unittest is not None and isinstance(cls, type) and issubclass(cls, unittest.TestCase):
        return True
    if not _defined_here(conn, cls):
        return False
    if cls in TEST_CLASSES:
        return True
    name = type.__getattribute__(cls, "__name__")
    collectable = cls.__init__ is object.__init__ and cls.__new__ is object.__new__  # (pytest's own rule: a
    return collectable and (name.startswith("Test") or TEST_CLASS_NAME(name))   # `class TestDict(dict)` is data)


def TEST_CLASS_NAME(name: str) -> bool:  # noqa: N802 - judge_plugin sets pytest's python_classes rule here
    """(judge) Whether pytest's python_classes (prefixes or globs) name a test class so."""
    return False


def _check_name(conn, target, name: str, write: bool) -> None:
    """What the model's code may read or write on an object the tests handed it: public names;
    on the tests' own functions and objects also private names, data dunders such as __name__
    or __doc__ (functools.wraps reads them) and new dunders (a decorator's f.__params__). Never
    a door to the judge: __globals__, __code__, __closure__, __class__, __self__ ..."""
    if name in _TEST_SECRETS:
        raise AttributeError(f"{name!r}: the tests' marks (parametrize values) are not for the model's code")
    if _test_double(target) and (write or (not _is_dunder(name) and (_method_on_type(target, name)
                                                                    or _autospec_method(target, name)))):
        raise PermissionError(f"{name!r}: a test double (unittest.mock) is the test's record of how the model's "
                              f"code used it: the model's code may call it and read it, never configure it")
    if write and isinstance(target, type) and _defined_here(conn, target):
        raise PermissionError(f"{name!r}: the tests' classes are theirs; the model's code may not set, replace or "
                              f"delete their attributes (a test method swapped for another, a TestCase's run)")
    if write and type(target) is types.FunctionType and name in target.__dict__ and _defined_here(conn, target):
        raise PermissionError(f"{name!r}: the model's code may add attributes to the tests' functions, never "
                              f"replace or delete one they have")
    if write and name in _PYTEST_READS:
        raise PermissionError(f"{name!r}: pytest and unittest read it to decide what runs; the model's code may not "
                              f"set it on the tests' objects")
    if write and _method_on_type(target, name):
        raise PermissionError(f"{name!r} is a method of the tests' object: the model's code may not replace "
                              f"or delete it (the test would call the model's code thinking it calls its own)")
    if not write and name in _FUNCTION_INSIDES and (type(target) is types.MethodType or _partial_of_theirs(conn, target)):
        raise AttributeError(f"{name!r}: what a function of the tests holds (its closure, globals, defaults, a "
                             f"partial's arguments) is the tests' own")
    if not write and name in _WHOLES and _leads_to_the_whole(target, name):
        raise AttributeError(f"{name!r}: the whole a part of the tests' object was taken from is the tests' own")
    if not write and isinstance(target, type) and name not in _TEST_CLASS_NAMES and _test_class(conn, target):
        raise AttributeError(f"{name!r}: a test class is the tests' own (its cases, its state): the model's code "
                             f"may hold it, call it and read its name, nothing else")
    if not name.startswith("_"):
        return
    own = _defined_here(conn, target)
    if _is_dunder(name):
        if write:
            allowed = own and (name in _WRITABLE_DUNDERS or not _on_type(target, name))
        else:
            allowed = name in _READABLE_DUNDERS or (own and (name in _OWN_READABLE_DUNDERS
                                                             or not _on_type(target, name)))
    else:
        allowed = own and not name.startswith(("_rpc", "_pytest"))
    if not allowed:  # a read the model may not make looks like an attribute that is not there (getattr(x, n, None))
        text = (f"{name!r}: the model's code may use public names of the tests' objects, and private names and "
                f"data dunders only of objects the tests define")
        raise PermissionError(text) if write else AttributeError(text)


def _test_double(obj) -> bool:
    """A unittest.mock object (its type: a spec'd mock's __class__ is the spec's), or the function
    `create_autospec(f)` makes, whose attributes are its mock's record and checks (`call_count`,
    `assert_not_called`, `reset_mock`: red team round 37)."""
    mock = sys.modules.get("unittest.mock")
    if mock is None:
        return False
    if type(obj) is types.FunctionType:
        inner = obj.__dict__.get("mock")
        return isinstance(inner, mock.NonCallableMock) and inner.__dict__.get("_mock_delegate") is obj
    return issubclass(type(obj), mock.NonCallableMock)


def _autospec_method(double, name: str) -> bool:
    """A method of the mock that `create_autospec(f)` sets on the function it makes (`reset_mock`,
    `assert_not_called`): the test's own check, not for the model's code to call."""
    value = double.__dict__.get(name) if type(double) is types.FunctionType else None
    return callable(value) and name not in ("return_value", "side_effect")


def _defined_here(conn, obj) -> bool:
    """Defined in the trusted tests' folder: a function or method of theirs, a class of theirs,
    or an instance of one."""
    if conn._trusted is None:
        return False
    if type(obj) is types.MethodType:
        obj = obj.__func__
    if type(obj) is types.FunctionType:  # (code compiled from a string names "<string>": never the tests')
        return os.path.isabs(obj.__code__.co_filename) and obj.__code__.co_filename.startswith(conn._trusted)
    cls = obj if isinstance(obj, type) else type(obj)
    module = sys.modules.get(type.__getattribute__(cls, "__module__"))
    path = getattr(module, "__file__", None) if module is not None else None
    return type(path) is str and os.path.abspath(path).startswith(conn._trusted)


CURRENT_TEST = [""]  # (judge) the test item running now (judge_plugin)


class UnderTest:
    """(judge) The objects under test: what a test built itself by calling a class of the model's
    code, a name it read from a module of the model's that it imported, spelt as a class
    (`Cache(2)`, `Cache[int](2)`, `self.Cache(...)` after `Cache = cachetools.LRUCache`), or a copy
    it made of one with `copy.copy`/`deepcopy` (where the class has `__copy__`/`__deepcopy__`).
    Their operators (`1 in cache`, `v < "1.0.0"`, `v == "1.0.0"`) are calls the test makes,
    answered by the model's code as in a plain run. What the model's code *returns* is a result
    and never answers an operator with a test's value (`mean(xs) - 2.5`), also when it is an object
    under test: handed back by anything (its own method or `__enter__` returning self,
    `Solution().solve() == [0, 1]`; a property; a list holding it; a module's attribute; a
    function's result; a callback's argument), it is one no more (red team rounds 46, 47).

    Kept by handle (one proxy per handle). A class is a handle that came only as a class-named
    attribute of an imported module (or as itself in `Cache[int]`): read in lower case (`mean =
    Stats`) or handed over any other way (`Stats.mean = Stats`, then `s.mean`), it builds nothing."""

    def __init__(self):
        self._from_modules: dict[int, bool] = {}  # a handle -> came only as an imported module's attribute
        self._lower_case: set[int] = set()  # handles read from a module under a lower-case name
        self._built: set[int] = set()
        self._pickles: dict[str, bytes] = {}  # ticket -> the pickle of an object under test (pickled)
        self._live: dict[str, object] = {}  # ticket -> the object under test, while the ticket lives
        self.ended = ""  # why the objects under test ended for the run (handed_back)

    def read_from_module(self, handle: int, name: str) -> None:
        self._from_modules.setdefault(handle, True)
        if not name[:1].isupper():
            self._lower_case.add(handle)

    def is_module(self, handle: int) -> bool:
        """`semver.version` read from an imported `semver`: a submodule, and a module the tests reached."""
        return self._from_modules.get(handle, False)

    def is_built(self, handle: int) -> bool:
        return handle in self._built

    def arrived(self, handle: int, op, target) -> None:
        """A handle in an answer to the test's request `op` on `target`, or (op None) anything else
        that decodes the model's message: a result from now on. A class stays one as a module's
        attribute, as itself in `Cache[int]`, and as a base in a class's `__bases__` or `__mro__`
        (pytest's `issubclass(obj, TestCase)` on each class a test module imports reads them)."""
        if op not in ("module", "bases") and not (op == "getitem" and handle == target):
            self._from_modules[handle] = False
        self._built.discard(handle)

    def answered(self, op: str, target: int, result: int, fresh: bool) -> None:
        """After the test's request `op` on `target` came back with `result`, a handle first seen
        in that answer (`fresh`) or not. A test's own class statement subclassing a class
        (`class DefaultCache(self.Cache)`: the worker's subclass, op "subclass") is a class too,
        and its instances (op "new") objects under test."""
        if not fresh or self.ended:
            return
        a_class = self._from_modules.get(target, False) and target not in self._lower_case
        if op in ("call", "new") and a_class or op in ("copy", "deepcopy", "copy_of") and target in self._built:
            self._built.add(result)
        elif op == "subclass" and a_class:
            self._from_modules[result] = True

    def pickled(self, proxy, handle: int, data: bytes) -> str:
        """A pickle of the model's object made for the tests (`__reduce_ex__`): of an object under
        test, a ticket (unguessable) that loads it as a copy of it while the ticket lives, until
        the tests ask anything else of the model's code (which then could have seen it); "" else."""
        if handle not in self._built:
            return ""
        ticket = _TOKEN_HEX(16)
        self._pickles[ticket], self._live[ticket] = data, proxy
        return ticket

    def redeem(self, ticket: str):
        """(the object under test or None once the ticket is dead, the pickle's bytes)"""
        if type(ticket) is not str or ticket not in self._pickles:
            raise pickle.UnpicklingError("not a pickle the judge made")
        return self._live.pop(ticket, None), self._pickles[ticket]

    def asking(self, op: str, args: tuple) -> None:
        """The tests ask the model's code something: what it is given may hold a live ticket."""
        if self._live and op != "copy_of" and not (op == "op" and args[:1] == ("pickle",)):
            self._live.clear()

    def carry(self, old: "UnderTest", was: int, now: int) -> None:
        """A new worker stands in for a lost one (judge_plugin's revive reads each name the tests
        took again, by its first name only): a callable the old worker's answers made no class
        (`mean = Stats` read as `mean` too) is none in the new one (red team round 48)."""
        if not old._from_modules.get(was, False) or was in old._lower_case:
            self._from_modules[now] = False

    def restore(self, handle: int) -> None:
        """An object under test that arrived as its own override's `self` (rpc._own_override)."""
        if not self.ended:
            self._built.add(handle)

    def handed_back(self, obj) -> None:
        """The model's code hands one of the tests' own objects back to the tests (an answer, or a
        test's callback's argument): objects under test in it would answer for what the model's
        code returned (`bumped(project).version == "1.0.1"`, the model returning the test's
        `project` as it was). The judge looks through it (_handles_inside; no code runs) and makes
        those results; one it cannot look through ends the objects under test for the rest of the
        judged run: an iterator of the tests' that may build more later (`map(Version, texts)`),
        an attribute that runs code when read (a property), a kind it does not know (rounds 50, 51)."""
        if self.ended or not self._built and not isinstance(obj, _ITERATORS) and not self._classes_read():
            return
        found = _handles_inside(obj, self._built, self._builds_later)
        if type(found) is str:
            self._built.clear()
            self.ended = f"the model's code handed back one of the tests' objects holding {found} (in {CURRENT_TEST[0]})"
        else:
            self._built.difference_update(found)

    def _builds_later(self, obj) -> str:
        """A test's callable handed back as such (`newest(partial(Version, "1.0"), lambda: Version(...))`):
        the test will call it, and what it builds or looks up by name then (a class of the model's
        it names, `globals()[name]`) would answer for what the model's code chose (round 52)."""
        while type(obj) in (types.MethodType, functools.partial):
            obj = obj.__func__ if type(obj) is types.MethodType else obj.func
        if type(obj) in REMOTE_TYPES:
            handle = object.__getattribute__(obj, "_rpc_handle")
            return "a callable of the tests' that calls a class" if self._from_modules.get(handle) else ""
        if type(obj) is not types.FunctionType or str(obj.__module__).partition(".")[0] in _LIBRARIES:
            return ""
        names = _code_names(obj.__code__)
        if names & _LOOKUPS:
            return "a function of the tests' that looks up names at run time"
        for name in names:
            value = obj.__globals__.get(name)
            if type(value) in REMOTE_TYPES and self._from_modules.get(object.__getattribute__(value, "_rpc_handle")):
                return "a function of the tests' that calls a class"
        return ""

    def _classes_read(self) -> bool:
        return any(read and handle not in self._lower_case for handle, read in self._from_modules.items())


_ITERATORS = (collections.abc.Iterator,)
_LOOK_THROUGH = 5000
_ATOMS = frozenset({str, bytes, int, float, complex, bool, type(None), range, types.CodeType,
                    type(Ellipsis), type(NotImplemented)})
_SEQUENCES = {list: list.__iter__, tuple: tuple.__iter__, set: set.__iter__, frozenset: frozenset.__iter__,
              collections.deque: collections.deque.__iter__}
_MAPPINGS = (dict, collections.OrderedDict, collections.defaultdict)
_C_DESCRIPTORS = frozenset({types.MemberDescriptorType, types.GetSetDescriptorType, types.WrapperDescriptorType,
                            types.MethodDescriptorType, type(collections.namedtuple("_T", "a").a)})  # (slots, fields)
_NO_CODE_ON_READ = (types.FunctionType, staticmethod, classmethod, types.BuiltinFunctionType, *_C_DESCRIPTORS)
_LOOKUPS = frozenset({"globals", "locals", "vars", "getattr", "eval", "exec", "__import__", "sys", "importlib",
                      "builtins", "operator", "__dict__"})  # (a function that names one may look up any name)
_LIBRARIES = frozenset(sys.stdlib_module_names) | {"pytest", "_pytest", "pluggy", "model_code"}
_HARNESS = ("_pytest", "pluggy", "_judge")  # their objects hold none of the tests' (`self._outcome` leads there)
_HOLDS_NO_OBJECTS = frozenset({type(threading.Lock()), type(threading.RLock()), re.Pattern, re.Match})
_VIEWS = frozenset({type({}.keys()), type({}.values()), type({}.items())})
_VARIABLES = frozenset({contextvars.ContextVar, contextvars.Token})


def _handles_inside(root, built: set, builds_later=lambda obj: "") -> "set | str":
    """The handles of objects under test a test's object reaches without running code: builtin
    containers, instance dicts and slots, its class's attributes, a function's cells, defaults
    and the globals its code names, a bound method's, a partial's, a weak reference's and an
    exception's parts. What it is, when it cannot tell: an object of a kind not known here (a C object
    that can hold others), an iterator, an attribute that runs code when read (a property,
    `__getattr__`: both may build objects later), more than a few thousand objects."""
    found: set = set()
    seen, todo = set(), [(root, False)]  # (an object, reached through a class's attributes: its methods)
    while todo:
        obj, of_a_class = todo.pop()
        if id(obj) in seen:
            continue
        seen.add(id(obj))
        later = "" if of_a_class else builds_later(obj)  # a callable of the tests' held as a value
        if later:
            return later
        if len(seen) > _LOOK_THROUGH:
            return f"more than {_LOOK_THROUGH} objects"
        if type(obj) in REMOTE_TYPES:
            handle = object.__getattribute__(obj, "_rpc_handle")
            if handle in built:
                found.add(handle)
            continue
        parts = _parts(obj)
        if parts is None:
            return f"a {type(obj).__module__}.{type(obj).__qualname__} it cannot look through"
        todo.extend((part, of_a_class or isinstance(obj, type)) for part in parts)
    return found


def _parts(obj) -> Optional[list]:
    """What `obj` holds (see _handles_inside), or None."""
    kind = type(obj)
    if kind in _ATOMS:
        return []
    if kind is slice:
        return [obj.start, obj.stop, obj.step]
    if kind in (types.UnionType, types.GenericAlias):  # `int | None`, `list[int]` (annotations)
        return [*obj.__args__, getattr(obj, "__origin__", None)]
    if kind is types.ModuleType:  # a module of the tests' holds what it binds; a library's, none of theirs
        name = str(obj.__name__)
        return [] if name.partition(".")[0] in _LIBRARIES or name.startswith("_judge") else list(vars(obj).values())
    if kind in _SEQUENCES:
        return list(_SEQUENCES[kind](obj))
    if kind in _MAPPINGS:
        return [*dict.keys(obj), *dict.values(obj), getattr(obj, "default_factory", None)]
    if kind is types.FunctionType:
        return _function_parts(obj)
    if kind is types.MethodType:
        return [obj.__self__, obj.__func__]
    if kind is types.BuiltinFunctionType:  # also a builtin bound method (`seen.append`): its list
        return [] if isinstance(obj.__self__, types.ModuleType) else [obj.__self__]
    if kind in (functools.partial, staticmethod, classmethod):
        held = [obj.func, *obj.args, *obj.keywords.values()] if kind is functools.partial else [obj.__func__]
        return held + list(object.__getattribute__(obj, "__dict__").values())
    if kind is weakref.ref:
        return [obj()]
    if kind is types.MappingProxyType:
        return [*obj.keys(), *obj.values()]
    if kind in _VIEWS:
        return [obj.mapping]
    if kind in _HOLDS_NO_OBJECTS or str(getattr(kind, "__module__", "")).startswith(_HARNESS):
        return []
    if isinstance(obj, type):
        return _class_parts(obj)
    if isinstance(obj, _ITERATORS):
        return None
    if _python_class(kind) or isinstance(obj, BaseException) or kind is types.SimpleNamespace:
        return _instance_parts(obj)
    if kind in (datetime.datetime, datetime.time):
        return [obj.tzinfo]  # (not tracked, yet it holds one: a test's tzinfo)
    if kind in _VARIABLES:
        return None  # (a ContextVar's value lives in a Context: not tracked, yet it holds one)
    return [] if not gc.is_tracked(obj) else None  # a C object that holds no other objects (a lock, a date)


def _python_class(cls: type) -> bool:
    return not cls.__flags__ & (1 << 8)  # Py_TPFLAGS_IMMUTABLETYPE: set on every class written in C


def _instance_parts(obj) -> Optional[list]:
    """An instance of a class of the tests (or an exception): its dict, slots, class attributes,
    and what a builtin base it extends holds."""
    kind = type(obj)
    if _class_parts(kind) is None:
        return None
    parts: list = [kind]  # (its class's attributes are walked as a class's: its methods are no values held)
    try:
        state = object.__getattribute__(obj, "__dict__")
    except AttributeError:
        state = {}
    if type(state) is not dict:
        return None
    parts.extend(state.values())
    for cls in kind.__mro__:
        if _python_class(cls):
            for descriptor in vars(cls).values():
                if type(descriptor) is types.MemberDescriptorType:  # a slot, whatever its name or spelling
                    try:
                        parts.append(descriptor.__get__(obj, kind))
                    except AttributeError:
                        pass
        elif cls is object:
            continue
        elif issubclass(cls, BaseException):  # args, and each field a builtin exception keeps (StopIteration.value)
            parts.extend(BaseException.__dict__["args"].__get__(obj))
            parts.extend(BaseException.__dict__[name].__get__(obj) for name in ("__cause__", "__context__"))
            for name, descriptor in vars(cls).items():
                if type(descriptor) in (types.MemberDescriptorType, types.GetSetDescriptorType) \
                        and name not in ("__dict__", "__traceback__"):
                    try:
                        parts.append(descriptor.__get__(obj, kind))
                    except AttributeError:  # a field not set (OSError.characters_written)
                        pass
        elif cls in _SEQUENCES:
            parts.extend(_SEQUENCES[cls](obj))
        elif cls in _MAPPINGS:
            parts.extend([*dict.keys(obj), *dict.values(obj)])
            if cls is collections.defaultdict:
                parts.append(collections.defaultdict.default_factory.__get__(obj))
        elif cls is weakref.ref:  # (WeakValueDictionary's KeyedRef)
            parts.append(weakref.ref.__call__(obj))
        elif cls not in _ATOMS and cls is not types.SimpleNamespace:
            return None  # a builtin base that holds what the judge cannot read (threading.local)
    return parts


def _class_parts(cls: type) -> Optional[list]:
    """A class's own attributes (its bases' too), but of the standard library's, pytest's and the
    judge's classes; None if one runs code when read on an instance (a property, `__getattr__`)."""
    parts: list = []
    for klass in cls.__mro__:
        if not _python_class(klass) or str(getattr(klass, "__module__", "")).partition(".")[0] in _LIBRARIES \
                or str(klass.__module__).startswith("_judge"):
            continue
        for name, value in vars(klass).items():
            if name in ("__getattr__", "__getattribute__") or hasattr(type(value), "__get__") and \
                    not isinstance(value, _NO_CODE_ON_READ) and type(value) not in REMOTE_TYPES:
                return None
            if name != "_abc_impl" and type(value) not in _C_DESCRIPTORS:
                parts.append(value)
    return parts


def _function_parts(function) -> list:
    """A function's cells, defaults, attributes and the globals its code names (also through a
    module of the tests': `helpers.OLD`)."""
    parts = [*(function.__defaults__ or ()), *(function.__kwdefaults__ or {}).values(),
             *object.__getattribute__(function, "__dict__").values()]
    for cell in function.__closure__ or ():
        try:
            parts.append(cell.cell_contents)
        except ValueError:  # a cell not filled yet
            pass
    if str(function.__module__).partition(".")[0] in _LIBRARIES:
        return parts
    names, spaces = _code_names(function.__code__), [function.__globals__]
    spaces += [vars(m) for m in (function.__globals__.get(name) for name in names) if type(m) is types.ModuleType
               and m.__name__.partition(".")[0] not in _LIBRARIES and not m.__name__.startswith("_judge")]
    return parts + [space[name] for space in spaces for name in names if name in space]


def _code_names(code) -> set:
    names = set(code.co_names)
    for const in code.co_consts:
        if type(const) is types.CodeType:
            names |= _code_names(const)
    return names

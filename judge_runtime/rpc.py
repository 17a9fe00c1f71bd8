"""A symmetric RPC between the judge (runs the trusted tests) and the worker (runs the model's
code), over two pipes, one JSON object per line. Never pickle: the judge must not run anything
the worker sends, so every message is plain JSON, decoded by the strict code below.

Values cross by value when they are exact builtins (None, bool, int, float, str, bytes,
bytearray, list, tuple, dict, set, frozenset, complex, range, slice, Ellipsis, NotImplemented), pathlib paths,
datetime objects, Decimal and Fraction. An instance of a *subclass* of a builtin type is
converted with the base type's own methods (`list.__iter__`, `str.__str__`, ...), so its
overrides never decide anything; comparisons then happen on exact builtins on the receiving
side. Everything else crosses by reference: a handle (the same object always gets the same
handle, found by id(), never by the object's own __eq__/__hash__), and on the other side one
`Remote` proxy per handle. Mutable containers passed as call arguments are written back after
the call, so `xs.sort()` in the callee is seen by the caller.

The *guarded* side (the judge) serves only what a test hands out: public attribute names, and
private names and data dunders only of the tests' own objects (never __globals__, __code__,
frames, modules, tracebacks); standard-library functions and classes are sent by name (the
worker uses its own); no imports. Exceptions keep their identity across a round trip; a class
the other side defines gets a local mirror class. The rule of the verdict (_operand): an
operator never hands a test's value to the model's code. Sections below: transport and
requests (Connection), values, proxies (Remote, one class per set of special methods),
shared containers (_LIVE), a test's subclass of a model class (ModelSubclass), modules.
Beside this file, loaded by it under private names: rpc_values.py (the protocol's errors and
the exact copies of builtin values) and rpc_policy.py (what the guarded end lets the model's
code do with the tests' objects, and the tests' failures it holds).

stdlib only: this file runs inside the sandbox interpreter, on both sides.
"""
from __future__ import annotations

import builtins
import collections.abc
import copy
import enum
import itertools
import json
import keyword
import math
import operator
import os
import queue
import sys
import threading
import types
import weakref
from _collections_abc import MutableMapping
from time import sleep as _sleep  # (a test's mock of time.sleep is not ours)

# (worker) Whether this thread runs the model's code now (serving one of the judge's questions) or
# the worker's own (its loop, an exchange with the judge): worker._Patched answers a test's patch to
# the first only. A thread the model's code starts runs the model's code.
RUNNING = threading.local()


def models_code_running() -> bool:
    return getattr(RUNNING, "model", True)


_THREAD, _SEP, _OPEN = threading.Thread, os.sep, open  # (taken at load: a test's patch of them is the model's code's)

# The worker reads bytecode only from our cache (runtime_files.bytecode: the modules imported here
# and a few common ones). datetime, decimal, fractions, pathlib and zoneinfo are looked up in
# sys.modules when a value of theirs is sent, and imported only when such a value arrives.

MAX_MESSAGE = 64 * 1024 * 1024
MAX_TRACEBACK = 4000
_BIG = 2 ** 53
_HERE = os.path.dirname(os.path.abspath(__file__))
_IMPORTLIB = os.path.dirname(os.__file__) + os.sep + "importlib" + os.sep


def _sibling(name: str, private: str) -> types.ModuleType:
    """Our own file next to this one, under a private name (a model module called `rpc_values`
    stays the model's). Its bytecode, if any, is our cache's (runtime_files.bytecode)."""
    import importlib.util
    spec = importlib.util.spec_from_file_location(private, os.path.join(_HERE, f"{name}.py"))
    module = importlib.util.module_from_spec(spec)
    sys.modules[private] = module
    spec.loader.exec_module(module)
    return module


TYPE_CHECKING = False
if TYPE_CHECKING:  # mypy reads the siblings as the modules they are
    from judge_runtime import rpc_policy as _policy
    from judge_runtime import rpc_values as _values
else:
    _values = _sibling("rpc_values", "_judge_rpc_values")
    _policy = _sibling("rpc_policy", "_judge_rpc_policy")

# The protocol's errors keep this module's name: tracebacks and tests name them rpc's.
RpcError = _values.RpcError
PeerGone = _values.PeerGone
ProtocolError = _values.ProtocolError
for _error in (RpcError, PeerGone, ProtocolError):
    _error.__module__ = __name__
_Memo = _values._Memo
_check, _PENDING = _values._check, _values._PENDING
_BUILTIN_TYPES, _BUILTIN_TYPE_NAMES = _values._BUILTIN_TYPES, _values._BUILTIN_TYPE_NAMES
_BUILTIN_EXCEPTIONS = _values._BUILTIN_EXCEPTIONS
_items, _exact_scalar, _namedtuple_fields = _values._items, _values._exact_scalar, _values._namedtuple_fields
_value_encoder, _reject_constant, _apply = _values._value_encoder, _values._reject_constant, _values._apply
FOR_THE_MODEL, acting_for_the_model, TEST_CLASSES = _policy.FOR_THE_MODEL, _policy.acting_for_the_model, _policy.TEST_CLASSES
failures_kept_by_the_model, _is_dunder = _policy.failures_kept_by_the_model, _policy._is_dunder

# Attribute names a proxy answers itself (AttributeError) instead of asking the other side:
# pytest and inspect probe them on every object in a test module's namespace.
_NOT_FORWARDED = frozenset({"__test__", "__signature__", "__mro_entries__", "__origin__",
                            "__getstate__", "__reduce__", "__reduce_ex__", "__copy__", "__deepcopy__",
                            "pytestmark"})
_MODULE_LOCAL = frozenset({"__path__", "__file__", "__cached__", "__loader__", "__spec__", "__package__",
                           "__builtins__", "__getattr__", "__dir__"})
_UNARY = {"repr": repr, "str": str, "bool": bool, "len": len, "hash": hash, "signature": lambda x: _signature(x),
          "copy": lambda x: __import__("copy").copy(x), "deepcopy": lambda x: __import__("copy").deepcopy(x),
          "iter": iter, "next": next, "reversed": reversed,
          "neg": operator.neg, "pos": operator.pos, "abs": abs, "invert": operator.invert,
          "index": operator.index, "int": int, "float": float, "complex": complex, "bytes": bytes, "round": round}
_BINARY = {"add": operator.add, "sub": operator.sub, "mul": operator.mul, "matmul": operator.matmul,
           "truediv": operator.truediv, "floordiv": operator.floordiv, "mod": operator.mod, "divmod": divmod,
           "pow": pow, "lshift": operator.lshift, "rshift": operator.rshift, "and": operator.and_,
           "xor": operator.xor, "or": operator.or_, "eq": operator.eq, "ne": operator.ne, "lt": operator.lt,
           "le": operator.le, "gt": operator.gt, "ge": operator.ge, "contains": operator.contains,
           "getitem": operator.getitem, "delitem": operator.delitem, "format": format, "round": round,
           "isinstance": isinstance, "issubclass": issubclass}
_TERNARY = {"setitem": operator.setitem, "pow": pow}
_BINARY["pickle"] = lambda x, protocol: __import__("pickle").dumps(x, _protocol(protocol))


def own_files(worker: str) -> list:
    """The worker's own code: worker.py and the rpc modules, each with its namespace where loaded."""
    here = os.path.dirname(worker)
    return [(worker, {})] + [(os.path.join(here, f"{name}.py"), vars(sys.modules[private]) if private in sys.modules
                              else {}) for name, private in (("rpc", "_judge_rpc"), ("rpc_values", "_judge_rpc_values"),
                                                             ("rpc_policy", "_judge_rpc_policy"))]


def reads_when_run(sources: list) -> frozenset:
    """The (module, attribute) pairs the functions of these files read when they run (`os.path`,
    `datetime.datetime`), from their bytecode: a loaded name that is a module, then attribute reads.
    (What a module or class body reads ran at import.) A test's patch of a class or value among
    them cannot be followed into the worker (judge_plugin._worker_reads)."""
    import dis
    import inspect
    found: set = set()
    for path, space in sources:
        with open(path, encoding="utf-8") as source:
            codes = [compile(source.read(), path, "exec")]
        while codes:
            code = codes.pop()
            codes.extend(c for c in code.co_consts if isinstance(c, type(code)))
            if not code.co_flags & inspect.CO_OPTIMIZED:
                continue
            held = None
            for ins in dis.get_instructions(code):
                if ins.opname in ("LOAD_GLOBAL", "LOAD_NAME", "LOAD_FAST", "LOAD_DEREF", "IMPORT_NAME"):
                    name = str(ins.argval)
                    held = space.get(name) if type(space.get(name)) is types.ModuleType else sys.modules.get(name)
                elif ins.opname in ("LOAD_ATTR", "LOAD_METHOD", "IMPORT_FROM") and held is not None:
                    found.add((held.__name__, str(ins.argval)))
                    held = getattr(held, str(ins.argval), None)
                    held = held if type(held) is types.ModuleType else None
                else:
                    held = None
    return frozenset(found)


def _protocol(protocol) -> int:
    if type(protocol) is not int or not 0 <= protocol <= __import__("pickle").HIGHEST_PROTOCOL:
        raise ValueError("a pickle protocol from 0 to pickle.HIGHEST_PROTOCOL")
    return protocol
_EXCEPTION_DATA = frozenset({"__notes__", "filename", "filename2", "name", "path", "code", "value"})


# Names pytest gives a meaning in a test module (tests, hooks such as pytest_generate_tests,
# pytest_plugins, pytestmark, setup/teardown functions): a star import never binds them.
_PYTEST_MEANINGFUL = ("test", "Test", "pytest", "setup", "teardown", "setUp", "tearDown")
_CODE_FIELDS = ("co_argcount", "co_posonlyargcount", "co_kwonlyargcount", "co_nlocals", "co_flags", "co_name",
                "co_qualname", "co_firstlineno", "co_varnames")


def _code_facts(code):
    """What a test function's __code__ may tell the model's code (toolz's curry counts arguments):
    the argument counts, flags, name and the names of its arguments; not its constants or code."""
    names = code.co_varnames[:code.co_argcount + code.co_kwonlyargcount + bool(code.co_flags & 4)
                             + bool(code.co_flags & 8)]
    values = [getattr(code, f) for f in _CODE_FIELDS[:-1]] + [names]
    return _values._namedtuple_class("code", _CODE_FIELDS, __name__)(values)


def _blocked(name: str) -> bool:
    return name in _NOT_FORWARDED or name.startswith(("_rpc", "_pytest"))


class Connection:
    """One end of the pipe pair. `guarded` is the judge's end: it trusts nothing it receives."""

    def __init__(self, rfile, wfile, *, guarded: bool, outgoing=None, incoming=None, follow=None,
                 describe_loss=None, trusted_folder: str = ""):
        self.guarded = guarded
        global _GUARDED, _UNGUARDED
        if guarded:
            _GUARDED = self
        else:
            _UNGUARDED = self
        self._trusted = os.path.abspath(trusted_folder) + _SEP if trusted_folder else None
        self._rfile, self._wfile = rfile, wfile
        self._read_some = getattr(rfile, "read1", rfile.read)  # what has come, without waiting for more
        self._unread, self._scanned = bytearray(), 0
        self._outgoing = outgoing or (lambda msg: None)      # adds fields to a message being sent
        self._incoming = incoming or (lambda msg: None)      # reads fields of any message received
        self._follow = follow or (lambda msg: None)  # (worker) the tests' state a question or reply carries
        self._describe_loss = describe_loss or (lambda: "")
        self._ids = itertools.count(1)
        self._handles = itertools.count(1)
        self._objects: dict[int, object] = {}   # handle -> our object, kept alive
        self._handle_of: dict[int, int] = {}    # id(our object) -> handle
        self._proxies: dict[int, object] = {}   # their handle -> its one proxy
        self._methods: dict[tuple, object] = {}  # (worker) (id(obj), id(function)) -> the bound method sent
        self._mirrors: dict[int, type] = {}     # their exception class handle -> local class
        self._kept: dict[int, object] = {}      # their handle -> its one kept value (_dec_kept)
        self.broken: RpcError | None = None
        self._turn = threading.RLock()          # (judge) its threads take turns: one exchange at a time
        self._serving: list[int] = []            # (judge) the worker's questions being answered, innermost last
        self._pending: list[int] = []            # our questions waiting for a reply in turn, innermost last
        self._early: dict[int, dict] = {}        # replies to outer questions that came first
        self._routed = False                     # (worker) one reader thread routes each message (_route)
        self._waiting: dict[int, queue.SimpleQueue] = {}  # (worker) our question -> the asking thread's inbox
        self._inboxes: list[queue.SimpleQueue] = []
        self._thread_inbox = threading.local()
        self._main_inbox: queue.SimpleQueue = queue.SimpleQueue()  # (worker) the judge's top-level questions
        self._sending = threading.Lock()
        # one encoder and one decoder per connection (json.dumps and json.loads with options make
        # new ones per message): each is used by one thread at a time (_sending; the one reader)
        self._encode = json.JSONEncoder(ensure_ascii=True, allow_nan=False, separators=(",", ":")).encode
        self._decode = json.JSONDecoder(parse_constant=_reject_constant).decode
        self._tables = threading.RLock()         # handles and proxies, made once per object from any thread
        self.local_bases: dict[int, type] = {}   # their class handle -> our base for the tests' subclasses
        self.subclasses: dict = {}               # (worker) their token -> our subclass; (judge) token -> test class
        self.wrappers: dict[int, object] = {}    # (judge) their handle -> the test's subclass instance
        self.origins: list = []  # weak references to proxies read from a module (found again in a new worker)
        self.own_pickles: set[bytes] = set()     # (judge) what it pickled of the tests' objects for the model's code
        self.under_test = _policy.UnderTest()    # (judge) the objects the tests built (their operators are theirs)

    # --- transport ------------------------------------------------------------------------

    def _fail(self, error: RpcError, explain: bool = True) -> RpcError:
        """Mark the connection unusable; every later request raises the same error."""
        if self.broken is None:
            hint = self._describe_loss() if explain else ""
            if hint:
                error = type(error)(f"{error.args[0]}; {hint}")
            self.broken = error
            for f in (self._wfile, self._rfile):
                try:
                    f.close()
                except (OSError, ValueError):
                    pass
        return self.broken

    def _still_broken(self) -> RpcError:
        """A fresh copy each time, so a later test's traceback does not carry earlier ones."""
        return type(self.broken)(*self.broken.args)

    def close(self) -> None:
        self._fail(PeerGone("the connection was closed"), explain=False)

    def _send(self, msg: dict) -> None:
        with self._sending:
            if self.broken is not None:
                raise self._still_broken()
            self._outgoing(msg)
            data = self._encode(msg).encode() + b"\n"
            try:
                self._wfile.write(data)
                self._wfile.flush()
            except (OSError, ValueError):
                raise self._fail(PeerGone("the other side stopped reading")) from None

    def _receive(self) -> dict:
        if self.broken is not None:
            raise self._still_broken()
        line = self._read_line()
        if not line:
            raise self._fail(PeerGone("the other side closed the connection"))
        if len(line) > MAX_MESSAGE or not line.endswith(b"\n"):
            raise self._fail(ProtocolError("a message without end or over the size limit"))
        try:
            msg = self._decode(line.decode("utf-8"))
            _check(type(msg) is dict, "not an object")
            self._incoming(msg)
        except RpcError as e:
            raise self._fail(e) from None
        except (ValueError, TypeError, RecursionError) as e:
            raise self._fail(ProtocolError(f"not a valid message ({type(e).__name__})")) from None
        return msg

    def _read_line(self) -> bytes:
        """One message, read in chunks as they come: what is read past it stays here (not in a
        file's buffer), so the judge's idle listener can tell that a message is waiting."""
        while True:
            end = self._unread.find(b"\n", self._scanned)
            if end >= 0:
                line = bytes(self._unread[:end + 1])
                del self._unread[:end + 1]
                self._scanned = 0
                return line
            self._scanned = len(self._unread)
            if self._scanned > MAX_MESSAGE:
                return bytes(self._unread)
            try:
                chunk = self._read_some(1 << 16)
            except (OSError, ValueError):
                chunk = b""
            if not chunk:
                return bytes(self._unread)
            self._unread += chunk

    def _message_waiting(self, timeout: float) -> bool:
        import select
        if b"\n" in self._unread:
            return True
        return bool(select.select([self._rfile], [], [], timeout)[0])

    def answer_when_idle(self) -> None:
        """(judge) The model's threads may call a test's function while no test thread is in an
        exchange (a timer, a callback_iter between two next() calls): a thread of the judge
        answers then, as the model's own thread would have run that function in a plain run."""
        _THREAD(target=self._answer_when_idle, name="judge-rpc-idle", daemon=True).start()

    def _answer_when_idle(self) -> None:
        while self.broken is None:
            try:
                if not self._message_waiting(0.1):
                    continue
            except (OSError, ValueError):
                return
            if not self._turn.acquire(blocking=False):  # a thread in an exchange reads it: look again
                _sleep(0.002)                           # a little later, not at each of its replies
                continue
            try:
                if self.broken is None and self._message_waiting(0):
                    msg = self._receive()
                    if "q" not in msg:
                        raise self._fail(ProtocolError("a reply while nothing was asked"))
                    self._serve(msg)
            except BaseException:  # noqa: BLE001 - the connection is marked broken; tests see that
                return
            finally:
                self._turn.release()

    def send_hello(self) -> None:
        self._send({"hello": 1})

    def expect_hello(self) -> None:
        msg = self._receive()
        if msg.get("hello") != 1:
            raise self._fail(ProtocolError("the worker did not greet"))

    # --- requests -------------------------------------------------------------------------

    def request(self, op: str, *args):
        """Ask the other side; serve its own requests (callbacks) while waiting for the reply.
        The judge's threads take turns (one exchange at a time, read by the thread that holds the
        turn); the worker's threads ask at once, each getting what is meant for it (_route)."""
        __tracebackhide__ = True
        if self._routed:  # (the worker: the exchange itself is its own code, not the model's)
            was, RUNNING.model = models_code_running(), False
            try:
                return self._request(op, args)
            finally:
                RUNNING.model = was
        with self._turn:
            return self._request(op, args)

    def _request(self, op: str, args: tuple):
        __tracebackhide__ = True  # pytest shows the test and the worker's traceback, not this
        if self.broken is not None:
            raise self._still_broken()
        memo = _Memo()
        if self.guarded:
            self._aim(memo, op, args)
            self.under_test.asking(op, args)
        FOR_THE_MODEL.handing = self.guarded  # (judge) what the tests hand over here is theirs to open
        try:
            encoded = [self._enc(a, memo) for a in args]
        except RecursionError:
            raise TypeError("a value too deeply nested to send to the other process") from None
        finally:
            FOR_THE_MODEL.handing = False
        sent = memo.sent = len(memo.objs)
        qid = next(self._ids)
        question = {"q": qid, "op": op, "a": encoded}
        if self._serving:  # part of answering the worker's question: the thread that asked it answers this
            question["in"] = self._serving[-1]
        asking = FOR_THE_MODEL.__dict__.setdefault("asking", [])
        asking.append(qid)
        try:
            if self._routed:
                inbox = self._inbox()
                self._waiting[qid] = inbox
                self._send(question)
                msg = self._reply_routed(qid, inbox)
            else:
                self._pending.append(qid)
                self._send(question)
                msg = self._reply_in_turn(qid)
        except RpcError:
            raise
        except BaseException:  # left mid-exchange (a test's time ran out): the exchange cannot go on
            self._fail(PeerGone("an exchange with the other side was abandoned"), explain=False)
            raise
        finally:
            asking.pop()
            if qid in self._pending:
                self._pending.remove(qid)
        self._follow(msg)  # (worker) a test's callback may have changed the test's state: the model's code goes on in it
        try:
            value = self._finish(msg, memo, sent, qid)
            made = object.__getattribute__(value, "_rpc_obj") if ModelSubclass in type(value).__mro__ else value
            if memo.target is not None and type(made) in _REMOTE_TYPES and made._rpc_conn is self:
                self.under_test.answered(memo.op, memo.target, made._rpc_handle, made._rpc_handle in memo.fresh)
            return value
        except (StopIteration, StopAsyncIteration) as stop:
            if not self.guarded or _policy._iteration_step(op, args):
                raise
            raise FromTheModel(f"the model's code raised {type(stop).__name__} from a call that is not a step of an "
                               f"iterator (it would end the test's loop over its checks early)") from stop

    def _aim(self, memo: _Memo, op: str, args: tuple) -> None:
        """(judge) What this request of the tests does, and to which of the model's objects (UnderTest)."""
        target = args[1] if op == "op" and len(args) > 1 else args[0] if args else None
        if type(target) is ModuleProxy and op == "getattr" and target._rpc_imported():
            memo.op = "module"
        elif type(target) in _REMOTE_TYPES and target._rpc_conn is self:
            memo.op = args[0] if op == "op" else args[1] if op == "method" else \
                "bases" if op == "getattr" and args[1] in ("__bases__", "__base__", "__mro__") else op
            memo.target, memo.fresh = target._rpc_handle, set()

    def _own_override(self, call: tuple, memo: _Memo) -> None:
        """(judge) The model's class calling an override of the test's own subclass on an object
        under test (`self.__missing__(key)` on `class DefaultCache(self.Cache)`): that object, as
        the override's `self` and nowhere else in the message, stays one (UnderTest)."""
        target = call[2] if type(call) is tuple and len(call) == 5 and call[0] == "call" else None
        if target is not None and ModelSubclass in type(target).__mro__:
            handle = object.__getattribute__(target, "_rpc_obj")._rpc_handle
            if memo.revoked.count(handle) == 1:
                self.under_test.restore(handle)

    def _arrival(self, handle: int, memo: _Memo) -> None:
        """(judge) A handle of the model's in its message (UnderTest): new to the judge, once in
        this answer (`fresh`; a second time, in a write-back, it is shared: `data[:] = [self]`)."""
        if memo.target is not None:
            if handle not in self._proxies and handle not in self.wrappers and handle not in self._kept:
                memo.fresh.add(handle)
            else:
                memo.fresh.discard(handle)
        if self.under_test.is_built(handle) or handle in memo.revoked:
            memo.revoked.append(handle)
        self.under_test.arrived(handle, memo.op, memo.target)

    def _reply_in_turn(self, qid: int) -> dict:
        """(judge) Read until our reply comes, answering the worker's questions meanwhile. A
        reply to an outer question of ours may come first (the model's thread that asked the
        inner one is still running): kept until that question's turn."""
        while qid not in self._early:
            msg = self._receive()
            if "q" in msg:
                self._serve(msg)
                continue
            answered = msg.get("r")
            if type(answered) is not int or answered not in self._pending or answered in self._early:
                raise self._fail(ProtocolError("a reply to a question that was not asked"))
            self._early[answered] = msg
        return self._early.pop(qid)

    def _reply_routed(self, qid: int, inbox: queue.SimpleQueue) -> dict:
        """(worker) Wait for what the router hands this thread: the reply, or a question the
        judge asks while answering ours (a test's callback calling the model's code again)."""
        while True:
            msg = inbox.get()
            if msg is None:
                raise self._still_broken()
            if "q" in msg:
                self._serve(msg)
                continue
            if msg.get("r") != qid:
                raise self._fail(ProtocolError("a reply out of turn"))
            return msg

    def _inbox(self) -> queue.SimpleQueue:
        inbox = getattr(self._thread_inbox, "inbox", None)
        if inbox is None:
            inbox = self._thread_inbox.inbox = queue.SimpleQueue()
            self._inboxes.append(inbox)
        return inbox

    def _route(self) -> None:
        """(worker) The one reader: a reply goes to the thread that asked; a question the judge
        asks while answering one of ours goes to the thread that asked that one (where the
        model's code would run it in a plain run); any other question to the main thread."""
        RUNNING.model = False
        while True:
            try:
                msg = self._receive()
            except RpcError:
                break
            if "q" not in msg:
                inbox = self._waiting.pop(msg.get("r"), None) if type(msg.get("r")) is int else None
            elif "in" in msg:
                inbox = self._waiting.get(msg["in"]) if type(msg["in"]) is int else None
            else:
                inbox = self._main_inbox
            if inbox is None:
                self._fail(ProtocolError("a message for no one"))
                break
            inbox.put(msg)
        for inbox in [self._main_inbox, *self._inboxes]:
            inbox.put(None)

    def _finish(self, msg: dict, memo: _Memo, sent: int, qid: int):
        __tracebackhide__ = True
        try:
            failed = "e" in msg
            memo.opaque_refused = self.guarded and _policy.acting_for_the_model()
            memo.answering = True
            value = self._dec(msg["e"] if failed else msg["v"], memo)
            updates = []
            back = msg.get("b", [])
            _check(type(back) is list, "write-back")
            for entry in back:
                _check(type(entry) is list and len(entry) == 2 and type(entry[0]) is int, "write-back entry")
                index = entry[0]
                _check(0 <= index < sent, "write-back index")
                if memo.writable[index]:
                    updates.append((memo.objs[index], self._dec_contents(memo.objs[index], entry[1], memo)))
            if failed:
                _check(isinstance(value, BaseException), "an error that is not an exception")
                value = self._admissible(value)
                if self.guarded:
                    _policy._came_back(value, qid)
        except RpcError as e:
            raise self._fail(e) from None
        except (KeyError, ValueError, TypeError, IndexError, RecursionError, OverflowError, ArithmeticError) as e:
            raise self._fail(ProtocolError(f"undecodable reply ({type(e).__name__}: {e})")) from None
        if memo.echoed:  # `return args`: the test's own container back, with the objects under test in it
            for handle in memo.handed:
                self.under_test.arrived(handle, None, None)
        if memo.opaque_found:
            refusal = _policy.Refused(_policy.OPAQUE_HANDED_OVER)
            _policy._keep_failure(refusal)
            raise refusal
        for target, contents in updates:
            _apply(target, contents)
        if "w" in msg:
            try:
                self._warn(msg["w"], memo)
            except RpcError as e:
                raise self._fail(e) from None
        if failed:
            raise value
        return value

    def _admissible(self, exc: BaseException) -> BaseException:
        """The judge raises only builtin exceptions and mirrors of the worker's classes: one of
        its own pytest outcome exceptions (Skipped, XFailed, Exit) handed back by the model's
        code must not skip or end a test."""
        if not self.guarded or self._is_exported(exc):  # the test's own exception, come back
            return exc
        t = type(exc)
        if t is KeyboardInterrupt:
            return FromTheModel("the model's code raised KeyboardInterrupt")
        if _BUILTIN_EXCEPTIONS.get(t.__name__) is t or type(t) is _MirrorMeta or isinstance(exc, Exception):
            return exc
        return ProtocolError(f"the model's code raised an outcome exception of the tests ({t.__name__})")

    def serve_forever(self) -> None:
        """The worker's main loop: answer the judge's questions until it closes the pipe."""
        RUNNING.model = False
        try:
            _THREAD(target=self._route, name="judge-rpc-router", daemon=True).start()
            self._routed = True
        except RuntimeError:  # no thread to spare (the user's process limit): the judge's way, one reader in turn
            self._serve_in_turn()
            return
        while True:
            msg = self._main_inbox.get()
            if msg is None:
                return
            self._serve(msg)

    def _serve_in_turn(self) -> None:
        """Without the router: the model's threads take turns, and one of them still running
        after the call that started it returned reads against this loop (the connection breaks)."""
        while True:
            try:
                msg = self._receive()
            except PeerGone:
                return
            if "q" not in msg:
                raise self._fail(ProtocolError("a reply while nothing was asked"))
            self._serve(msg)

    def _serve(self, msg: dict) -> None:
        qid, op, raw = msg.get("q"), msg.get("op"), msg.get("a")
        memo = _Memo()
        try:
            _check(type(qid) is int and type(op) is str and type(raw) is list, "request")
            args = []
            given = _GIVEN.get(op, len(raw))  # (judge) what the model's code gives the tests' code: looked through as
            for index, a in enumerate(raw):    # an answer is (UnderTest.handed_back); a call's target is not given
                memo.opaque_refused = self.guarded and not (op == "call" and index == 0)  # (reached only as __self__)
                memo.answering = self.guarded and index >= given
                args.append(self._dec(a, memo))
            memo.opaque_refused = memo.answering = False
            if memo.revoked and op == "call" and args[0] is _dispatch:
                self._own_override(args[1], memo)
            acted_on = _ACTED_ON.get(op if op != "op" or not args else args[0])
            if self.guarded and acted_on is not None and len(args) > acted_on:
                self.under_test.handed_back(args[acted_on])  # rearranged in place (`slots.rotate(1)`): looked through
            elif self.guarded and op == "call" and type(args[0]) in (types.MethodType, types.BuiltinMethodType):
                self.under_test.handed_back(args[0].__self__)  # (`slots.rotate` fetched, then called)
        except RpcError as e:
            raise self._fail(e) from None
        except (KeyError, ValueError, TypeError, IndexError, RecursionError, OverflowError, ArithmeticError) as e:
            raise self._fail(ProtocolError(f"undecodable request ({type(e).__name__}: {e})")) from None
        received = len(memo.objs)
        reply: dict = {"r": qid}
        caught: list = []
        recording = not self.guarded and threading.current_thread() is threading.main_thread()
        try:
            if memo.opaque_found:
                raise _policy.Refused(_policy.OPAQUE_HANDED_OVER)
            self._follow(msg)
            if self.guarded:
                self._serving.append(qid)
                FOR_THE_MODEL.depth = getattr(FOR_THE_MODEL, "depth", 0) + 1
                try:
                    result = self._perform(op, args)
                finally:
                    FOR_THE_MODEL.depth -= 1
                    self._serving.pop()
            else:
                was, RUNNING.model = models_code_running(), True
                try:
                    result = self._perform_recording(op, args, caught) if recording else self._perform(op, args)
                finally:
                    RUNNING.model = was
            mark = len(memo.objs)
            try:
                reply["v"] = self._enc(result, memo)
                if op == "getattr" and not self.guarded and reply["v"].get("$") in ("list", "dict", "set") \
                        if type(reply["v"]) is dict else False:
                    reply["v"]["h"] = self._export(result)["h"]  # shared state: the judge's copy passes changes on
            except RecursionError:
                memo.rollback(mark)
                raise TypeError("a result too deeply nested to send") from None
            except _policy.Refused as refused:  # what the model's code asked for (a frame, a module): refused
                memo.rollback(mark)             # to it, as an error of its own request, not a failure of the test's
                raise TypeError(str(refused)) from None
            except BaseException:
                memo.rollback(mark)
                raise
        except RpcError:
            raise
        except BaseException as exc:  # the model's code may raise anything; a test's callback too
            if self.guarded and isinstance(exc, _policy.NOT_FOR_THE_MODEL):
                raise  # the test's time ran out in its callback: never the model's to catch
            if self.guarded and _policy._is_test_failure(exc):
                _policy._keep_failure(exc)
            reply.pop("v", None)
            reply["e"] = self._enc_error(exc, memo)
        reply["b"] = self._write_back(memo, received)
        if caught:
            reply["w"] = self._enc_warnings(caught, memo)
        self._send(reply)

    def _perform_recording(self, op: str, args: list, caught: list):
        """(worker) Perform, recording the warnings the model's code issues: the judge issues them
        again where the test runs, so pytest.warns and the test's own filters see them. Only in
        the main thread: catch_warnings is process-wide, and the main thread's recording also
        sees the warnings of the model's other threads."""
        import warnings
        with warnings.catch_warnings(record=True) as recorded:
            warnings.simplefilter("always")
            try:
                return self._perform(op, args)
            finally:
                caught.extend(recorded[:100])

    def _enc_warnings(self, caught: list, memo: _Memo) -> list:
        found = []
        for w in caught:
            try:
                found.append([self._enc(w.category, memo), str(w.message), str(w.filename), int(w.lineno or 0)])
            except Exception:
                continue
        return found

    def _warn(self, entries, memo: _Memo) -> None:
        """(judge) The worker's warnings, issued here (never a class the worker could make up)."""
        import warnings
        _check(type(entries) is list, "warnings")
        for entry in entries:
            _check(type(entry) is list and len(entry) == 4, "warning")
            category = self._dec(entry[0], memo)
            _check(isinstance(category, type) and issubclass(category, Warning), "warning category")
            _check(type(entry[1]) is str and type(entry[2]) is str and type(entry[3]) is int, "warning")
            warnings.warn_explicit(entry[1], category, entry[2], entry[3])

    def _perform(self, op: str, args: list):
        guarded = self.guarded
        if op == "getattr":
            target, name = args
            self._check_target(target, "call" if guarded and _policy.unittest_assertion(target, name) else "use")
            if guarded and name == "__code__" and type(target) is types.FunctionType and _policy._defined_here(self, target):
                return _code_facts(target.__code__)  # the signature's facts, never the test's constants
            if guarded and name in ("__defaults__", "__kwdefaults__") and type(target) in (
                    types.FunctionType, types.MethodType) and _policy._defined_here(self, target):
                return _policy.hidden_defaults(getattr(target, name))  # tokens: a loop's test keeps its case there
            self._check_name(target, name, write=False)
            if guarded and name == "__dict__":  # a copy, without the tests' marks
                return {k: v for k, v in dict(getattr(target, name)).items() if k not in _policy._TEST_SECRETS}
            value = getattr(target, name)
            if guarded:
                _policy.reached_through_self(self, target, name, value)
            return value
        if op == "setattr":
            target, name, value = args
            self._check_target(target)
            self._check_name(target, name, write=True)
            setattr(target, name, value)
            return None
        if op == "delattr":
            target, name = args
            self._check_target(target)
            self._check_name(target, name, write=True)
            delattr(target, name)
            return None
        if op == "method":
            target, name, call_args, kwargs = args
            self._check_target(target, "call" if guarded and _policy.unittest_assertion(target, name) else "use")
            self._check_name(target, name, write=False)
            if type(call_args) is not tuple or type(kwargs) is not dict or not all(type(k) is str for k in kwargs):
                raise TypeError("malformed call")
            if guarded and name == "__call__" and _policy.HANDED_AT_IMPORT:
                result = getattr(target, name)(*call_args, **kwargs)
                _policy.ran(target)
                return result
            if guarded:
                call_args, kwargs = _policy.callbacks_for_the_model(target, name, call_args, kwargs)
            return getattr(target, name)(*call_args, **kwargs)
        if op == "call":
            target, call_args, kwargs = args
            self._check_target(target, "call")
            if type(call_args) is not tuple or type(kwargs) is not dict or not all(type(k) is str for k in kwargs):
                raise TypeError("malformed call")
            if guarded and (type(target) in (types.MethodType, types.BuiltinMethodType)
                            or type(target).__name__ == "builtin_method"):  # conn.create_function(...), fetched first
                call_args, kwargs = _policy.callbacks_for_the_model(getattr(target, "__self__", None),
                                                                    getattr(target, "__name__", ""), call_args, kwargs)
            if guarded:
                call_args = _own_self(self, target, call_args)
            body = _policy.TEST_BODY if guarded else None
            if body is not None and body.is_the_tests_own(target):
                result = body.call(target, call_args, kwargs)
            else:
                result = target(*call_args, **kwargs)
            if guarded and _policy.HANDED_AT_IMPORT:
                _policy.ran(target)
            return result
        if op == "op":
            if not args or type(args[0]) is not str:
                raise TypeError("malformed operation")
            name, operands = args[0], args[1:]
            table = {1: _UNARY, 2: _BINARY, 3: _TERNARY}.get(len(operands), {})
            if name not in table:
                raise TypeError(f"unknown operation {name!r}")
            if guarded and not any(self._is_exported(x) for x in operands):
                raise PermissionError("operations are served only on objects the tests handed out")
            for x in operands if guarded else ():
                if self._is_exported(x):
                    self._check_target(x, "op")  # pickle.dumps of a test instance would read its state
            if guarded and name == "pickle":
                data = _policy._pickle_for_the_model(self, operands[0])
                self.own_pickles.add(data)
                return data
            if guarded and name in ("repr", "str", "format") and _policy.opaque_text(operands[0]) is not None:
                return _policy.opaque_text(operands[0])  # a partial's repr shows its arguments
            if guarded and name == "signature":
                return _signature(operands[0], hide_defaults=True)
            return table[name](*operands)
        if op == "dir":
            (target,) = args
            self._check_target(target)
            names = sorted(n for n in dir(target) if type(n) is str)
            return [n for n in names if not n.startswith("_")] if guarded else names
        if op == "names" and not guarded:  # what `from module import *` takes
            (module,) = args
            names = getattr(module, "__all__", None)
            if names is None:
                names = [n for n in vars(module) if type(n) is str and not n.startswith("_")]
            return [str(n) for n in names]
        if op == "codec" and not guarded:  # (judge_plugin.ModelCodecs) a codec the model's code registered
            import codecs
            (name,) = args
            try:
                info = codecs.lookup(name)
            except LookupError:
                return None
            return [info.name, getattr(info, "_is_text_encoding", True), info.encode, info.decode, info.streamreader,
                    info.streamwriter, info.incrementalencoder, info.incrementaldecoder]
        if op == "import" and not guarded:
            import importlib
            name, *again = args
            if again and again[0]:  # (the tests deleted it from their sys.modules: a fresh import, as plain)
                sys.modules.pop(name, None)
            return importlib.import_module(name)
        if op == "read" and not guarded:  # (judge_plugin._read_by_the_worker) a file of the worker's user
            (path,) = args
            with _OPEN(str(path), "rb") as file:
                return file.read()
        if op == "reload" and not guarded:
            import importlib
            (module,) = args
            return importlib.reload(module)
        if op == "unpickle" and guarded:
            (data,) = args
            return self.load_own_pickle(data)
        if op == "copy_of" and not guarded:  # (_copy_of_built)
            import pickle
            return pickle.loads(args[1])
        if op == "unpickle" and not guarded:
            import io
            import pickle
            if len(args) == 1:  # a proxy's own pickle, handed back
                return pickle.loads(args[0])
            data, options = args  # a test's pickle.load(s) of the model's objects: the object, the bytes it took
            stream = io.BytesIO(data)
            return [pickle.Unpickler(stream, **options).load(), stream.tell()]
        if op == "members" and not guarded:
            (cls,) = args
            return _members(cls)
        if op == "subclass" and not guarded:
            base, name, token, overrides, dispatch = args
            sub = _make_subclass(base, name, overrides, dispatch)
            self.subclasses[sub] = token
            return sub
        if op == "standin" and not guarded:
            return _make_standin_class(*args)
        if op == "new" and not guarded:
            sub, call_args, kwargs = args
            return sub.__new__(sub) if sub.__new__ is object.__new__ else sub.__new__(sub, *call_args, **kwargs)
        if op == "super" and not guarded:
            sub, obj, name, call_args, kwargs = args
            return getattr(super(sub, obj), name)(*call_args, **kwargs)
        raise PermissionError(f"operation {op!r} is not served here")

    def load_own_pickle(self, data):
        """(judge) A pickle it made of a test's object for the model's code, loaded here (it names
        the tests' modules, which the worker cannot import): only these very bytes, so nothing the
        worker wrote is unpickled in the judge. pickle's own loader (the tests' pickle.loads is
        the judge's, which loads only plain data)."""
        if type(data) is not bytes or data not in self.own_pickles:
            raise PermissionError("the judge loads only the pickles it made of the tests' objects")
        import _pickle
        return _pickle.loads(data)

    def _is_exported(self, obj) -> bool:
        handle = self._handle_of.get(id(obj))
        return handle is not None and self._objects.get(handle) is obj

    def _check_target(self, obj, op: str = "use") -> None:
        """What the model's code may act on: the judge's end asks its policy (rpc_policy)."""
        if self.guarded:
            _policy._check_target(self, obj, op)

    def _check_name(self, target, name, write: bool) -> None:
        """What the model's code may read or write: a name, and on the judge's end what its
        policy allows (rpc_policy)."""
        if type(name) is not str:
            raise TypeError("attribute name must be a string")
        if self.guarded:
            _policy._check_name(self, target, name, write)

    # --- encoding ---------------------------------------------------------------------------

    def _enc(self, obj, memo: _Memo):
        t = type(obj)
        if obj is None or t is bool or t is str:
            return obj
        if t is int:
            return obj if -_BIG < obj < _BIG else {"$": "int", "v": hex(obj)}
        if t is float:
            return obj if math.isfinite(obj) else {"$": "float", "v": repr(obj)}
        index = memo.ids.get(id(obj))
        if index is not None:
            return {"$": "m", "i": index}
        if t in _REMOTE_TYPES or t is ModuleProxy:
            if obj._rpc_conn is self:
                if self.guarded and self.under_test.is_built(obj._rpc_handle):
                    memo.handed.append(obj._rpc_handle)
                return {"$": "yours", "h": obj._rpc_handle}
            raise TypeError("a proxy of another connection cannot be sent")
        if (t in _LIVE_TYPES or t in _KEPT_TYPES) and getattr(obj, "_rpc_remote", None) is not None \
                and obj._rpc_remote._rpc_conn is self:
            return {"$": "yours", "h": obj._rpc_remote._rpc_handle}
        if self.guarded and isinstance(obj, ModelSubclass):
            return self._enc(obj._rpc_obj, memo)
        if self.guarded and isinstance(obj, type) and issubclass(obj, ModelSubclass):
            return self._enc(_worker_subclass(obj), memo)
        if t is _MirrorMeta and obj._rpc_conn is self:
            return {"$": "yours", "h": obj._rpc_handle}
        if t is bytearray:
            memo.add(obj, obj, True)
            return {"$": "bytearray", "v": bytes(obj).hex()}
        items = _items(obj, t) if t in (list, tuple, dict, set, frozenset) else None
        if items is not None:
            return self._enc_container(obj, t in (list, dict, set), items, memo)
        value = _value_encoder(t)
        if value is not None:
            encoded = value(self, obj, memo)
            if encoded is not None:
                return encoded
        elif issubclass(t, BaseException):
            remote = BaseException.__dict__["__dict__"].__get__(obj).get("_rpc_remote")
            if type(remote) in _REMOTE_TYPES and remote._rpc_conn is self:  # the other side's own exception
                return {"$": "yours", "h": remote._rpc_handle, "x": [
                    BaseException.__suppress_context__.__get__(obj), self._enc(obj.__cause__, memo)]}
            return self._enc_exception(obj, memo)
        elif _BUILTIN_TYPE_NAMES.get(id(obj)) is not None:
            return {"$": "type", "n": _BUILTIN_TYPE_NAMES[id(obj)]}
        elif obj is Ellipsis:
            return {"$": "ellipsis"}
        elif obj is NotImplemented:  # (a comparison function's answer: semantic_version's compare)
            return {"$": "notimplemented"}
        elif t is types.GenericAlias:  # Box[int]: rebuilt on the other side around the same origin
            return {"$": "alias", "o": self._enc(obj.__origin__, memo), "a": self._enc(obj.__args__, memo)}
        else:
            converted = self._enc_subclass(obj, t, memo)
            if converted is not None:
                return converted
        name = _stdlib_name(obj)
        if name is not None and self.guarded:  # operator.add, math.sqrt, str.upper: the worker's own copy
            return {"$": "global", "m": name[0], "q": name[1]}
        if name is not None and name[0] == "builtins" and name[1] in _PURE_BUILTINS:  # the judge's own `next`
            return {"$": "global", "m": name[0], "q": name[1]}
        if name is not None and isinstance(obj, type) and issubclass(obj, BaseException):
            # the standard library's exception classes keep their class (pytest.raises(json.JSONDecodeError)),
            # or, where the judge has not imported that module, get a mirror as the model's own classes do
            return {"$": "global", "m": name[0], "q": name[1], "or": self._export(obj)}
        return self._export(obj)

    def _enc_subclass(self, obj, t, memo: _Memo):
        """An instance of a subclass of a builtin value type, converted to the exact type."""
        try:
            if issubclass(t, tuple):
                fields = _namedtuple_fields(t, tuple.__len__(obj))
                if fields is not None and not self.guarded and _overrides_of_its_base(t, tuple, obj) - _DISPLAY:
                    return None  # a named tuple whose own `__eq__` ... answers: by reference (the operator rule)
                if fields is not None:
                    memo.add(obj, obj, False)
                    encoded = {"$": "ntuple", "n": _class_name(t), "f": fields,
                               "v": [self._enc(x, memo) for x in tuple.__iter__(obj)]}
                    origin = type.__getattribute__(t, "__dict__").get("_rpc_origin")
                    if not self.guarded:  # the model's class: its look-alike in the judge can come back as it
                        encoded["o"] = self._export(t)["h"]
                    elif type(origin) is int and t in _values._namedtuple_classes.values():
                        encoded["o"] = origin
                    return encoded
            items = _items(obj, t)
            if items is not None and self.guarded and _policy._defined_here(self, obj):
                return None  # a test's own dict or list subclass: by reference, its overrides kept
            base = next((b for b in _KEPT if issubclass(t, b)), None)
            shown = _overrides_of_its_base(t, base, obj) if not self.guarded and base is not None else frozenset()
            if shown - _DISPLAY:
                return None  # its own operators or methods answer: by reference, a proxy (the operator rule)
            if items is not None and items[0] == "tuple" and not self.guarded:  # the model's tuple subclass
                exact = tuple(items[1])  # (sqlparse's token types): kept, as a str subclass is (_KEPT)
                return {"$": "kept", "v": self._enc_container(exact, False, ("tuple", exact), memo),
                        "h": self._export(obj)["h"], "d": sorted(shown), "n": self._kept_class_name(t)}
            if items is not None:
                encoded = self._enc_container(obj, False, items, memo)
                if not self.guarded and items[0] in ("list", "dict", "set"):
                    encoded["h"] = self._export(obj)["h"]  # the model's Counter or Registry(dict): methods kept
                return encoded
            exact = _exact_scalar(obj, t)
            if type(exact) in _KEPT and not self.guarded:  # the model's IntEnum member, its str subclass
                return {"$": "kept", "v": self._enc(exact, memo), "h": self._export(obj)["h"], "d": sorted(shown),
                        "n": self._kept_class_name(t)}
        except RecursionError:
            raise
        except Exception:
            return None
        return None if exact is None else self._enc(exact, memo)

    def _kept_class_name(self, t) -> list:
        """(worker) How the judge names a kept value's class: its name, module and qualified name,
        and its handle (two classes of one name are two classes)."""
        names = [getattr(t, key, None) for key in ("__module__", "__qualname__")]
        return [_class_name(t)] + [n if type(n) is str else "" for n in names] + [self._export(t)["h"]]

    def _enc_container(self, obj, writable: bool, items, memo: _Memo):
        kind, elements = items
        memo.add(obj, obj, writable)
        if kind == "dict":
            return {"$": "dict", "v": [[self._enc(k, memo), self._enc(v, memo)] for k, v in elements]}
        return {"$": kind, "v": [self._enc(x, memo) for x in elements]}

    def _export(self, obj):
        """By reference: a handle, the same for the same object (found by id, kept alive)."""
        if self.guarded:
            _policy._check_exportable(obj)
            _policy.handed_at_import(self, obj)
            _policy.handed_by_the_tests(obj)
        with self._tables:
            if type(obj) is types.MethodType and not self.guarded:  # `it.peek()` makes a bound method each
                # time: one handle for the same object's same method (the table keeps both alive)
                obj = self._methods.setdefault((id(obj.__self__), id(obj.__func__)), obj)
            handle = self._handle_of.get(id(obj))
            if handle is None or self._objects.get(handle) is not obj:
                handle = next(self._handles)
                self._objects[handle] = obj
                self._handle_of[id(obj)] = handle
        desc = {"$": "ref", "h": handle}
        t = type(obj)
        special = _special_methods(t)
        if isinstance(obj, type) and _special_methods(obj, ("__class_getitem__",)):
            special |= {"__getitem__"}  # Box[int]
        desc["d"] = sorted(special)
        nones = _special_methods(t, none=True)
        if nones:
            desc["z"] = sorted(nones)  # `__iter__ = None`: the proxy's class says so too
        abcs = _abcs_of(obj)
        if abcs:
            desc["a"] = abcs  # isinstance(proxy, Mapping) as for the real object
        if t is types.FunctionType:
            desc["f"] = True  # inspect.isfunction(proxy) holds, as for the function itself
        elif self.guarded and issubclass(t, type):
            desc["f"] = "class"  # isinstance(proxy, type) holds in the worker, as for a test's class itself
        name = type.__dict__["__name__"].__get__(t)
        if not self.guarded and name.isidentifier() and len(name) <= 100:
            desc["cn"] = name  # `type(cache).__name__` in a test: its class's name, as plain
        fields = _dataclass_fields(t) if self.guarded else None
        if fields is not None:
            desc["dc"] = fields  # dataclasses.is_dataclass(test_row) and fields() in the model's code
        if not self.guarded and self.subclasses:
            token = self.subclasses.get(t) if t in self.subclasses else None
            if token is not None:
                desc["w"] = token
        if issubclass(t, types.ModuleType):
            desc.update(k="module", n=str(types.ModuleType.__getattribute__(obj, "__name__")),
                        p=hasattr(obj, "__path__"))
        elif issubclass(t, type) and issubclass(obj, BaseException):
            desc.update(k="excclass", n=_class_name(obj), b=_builtin_base(obj))
            parent = _own_exception_base(obj)
            if parent is not None:  # `except ParseError` catches the other side's IncompleteError too
                desc["p"] = self._export(parent)
        return desc

    def _enc_exception(self, exc: BaseException, memo: _Memo):
        t = type(exc)
        name = _BUILTIN_TYPE_NAMES.get(id(t))
        cls = {"$": "type", "n": name} if name else self._enc(t, memo)
        args = self._enc(tuple(BaseException.args.__get__(exc)), memo)  # (before the attributes, as they are read:
        attrs = []  # CalledProcessError's `cmd` is in both)
        if name or _stdlib_name(t) is not None:  # attributes kept outside args (only when set)
            keys = (("filename", "filename2") if isinstance(exc, OSError) else ("name", "path")
                    if isinstance(exc, ImportError) else ("code",) if t is SystemExit else ())
            for key in keys:
                if getattr(exc, key) is not None:
                    attrs.append([key, self._enc(getattr(exc, key), memo)])
            extra = getattr(exc, "__dict__", {})
            for key, value in list(dict.items(extra)) if type(extra) is dict else ():
                if type(key) is str and (key == "__notes__" or not key.startswith("__")):
                    try:
                        attrs.append([key, self._enc(value, memo)])
                    except TypeError:
                        pass
        desc = {"$": "exc", "c": cls, "a": args, "d": attrs,
                "h": self._export(exc)["h"], "s": BaseException.__suppress_context__.__get__(exc)}  # (`from None`)
        if not self.guarded:
            desc["tb"] = _remote_traceback(exc)
        return desc

    def _enc_error(self, exc: BaseException, memo: _Memo):
        mark = len(memo.objs)
        try:
            return self._enc(exc, memo)
        except Exception:
            memo.rollback(mark)
            text = f"{type(exc).__name__} (its details could not be sent)"
            return self._enc_exception(RuntimeError(text), memo)

    def _write_back(self, memo: _Memo, received: int) -> list:
        """The current contents of every mutable container that came in as an argument."""
        back = []
        for index in range(received):
            obj = memo.objs[index]
            if not memo.writable[index]:
                continue
            mark = len(memo.objs)
            try:
                t = type(obj)
                if t is bytearray:
                    contents = bytes(obj).hex()
                elif t is dict:
                    contents = [[self._enc(k, memo), self._enc(v, memo)] for k, v in dict.items(obj)]
                else:
                    contents = [self._enc(x, memo) for x in obj]
            except (TypeError, RecursionError):
                memo.rollback(mark)
                continue
            back.append([index, contents])
        return back

    # --- decoding ---------------------------------------------------------------------------

    def _dec(self, data, memo: _Memo):
        t = type(data)
        if data is None or t is bool or t is str or t is int or t is float:
            return data
        _check(t is dict, "a bare array")
        tag = data.get("$")
        decoder = _DECODERS.get(tag) if type(tag) is str else None
        _check(decoder is not None, f"unknown value tag {tag!r}")
        return decoder(self, data, memo)

    def _dec_list(self, data, memo: _Memo) -> list:
        items = data.get("v")
        _check(type(items) is list, "container items")
        return [self._dec(x, memo) for x in items]

    def _dec_contents(self, target, data, memo: _Memo):
        t = type(target)
        if t is bytearray:
            _check(type(data) is str, "bytearray contents")
            return bytearray.fromhex(data)
        _check(type(data) is list, "container contents")
        if t is dict:
            pairs = []
            for pair in data:
                _check(type(pair) is list and len(pair) == 2, "dict pair")
                pairs.append((self._dec(pair[0], memo), self._dec(pair[1], memo)))
            return dict(pairs)
        values = [self._dec(x, memo) for x in data]
        return set(values) if t is set else values

    def _proxy(self, handle: int, desc: dict):
        """One proxy per handle, also when two of the worker's threads receive it at once."""
        with self._tables:
            return self._one_proxy(handle, desc)

    def _one_proxy(self, handle: int, desc: dict):
        _check(type(handle) is int and handle > 0, "handle")
        kind = desc.get("k", "obj")
        if kind == "excclass":
            return self._mirror_class(handle, desc)
        wrapper = self.wrappers.get(handle)
        if wrapper is not None:
            return wrapper
        proxy = self._proxies.get(handle)
        if proxy is None and self.guarded and desc.get("w") is not None:
            cls = self.subclasses.get(desc["w"])
            _check(cls is not None, "a subclass the judge never made")
            wrapper = object.__new__(cls)
            _bind(wrapper, _remote_class(_PLAIN_SPECIALS).of(self, handle), self)
            return wrapper
        if proxy is None:
            if kind == "module":
                _check(type(desc.get("n")) is str and type(desc.get("p")) is bool, "module reference")
                proxy = ModuleProxy(self, handle, desc["n"], desc["p"])
            else:
                _check(kind == "obj", "reference kind")
                special, nones = desc.get("d"), desc.get("z") or []
                _check(special is None or (type(special) is list and set(special) <= _OPTIONAL.keys()),
                       "special methods")
                _check(type(nones) is list and set(nones) <= _OPTIONAL.keys() - {"__hash__"}, "specials set to None")
                abcs = desc.get("a") or []
                _check(type(abcs) is list and set(abcs) <= _REGISTERED_ABCS.keys(), "abstract base classes")
                _check(desc.get("f") in (None, True) or (desc["f"] == "class" and not self.guarded), "proxy kind")
                fields = desc.get("dc") or []
                _check(type(fields) is list and (not fields or not self.guarded) and len(set(fields)) == len(fields)
                       and all(type(n) is str and n.isidentifier() and not keyword.iskeyword(n) for n in fields),
                       "dataclass fields")
                name = desc.get("cn", "Remote")
                _check(type(name) is str and name.isidentifier() and len(name) <= 100, "class name")
                proxy = _remote_class(_PLAIN_SPECIALS if special is None else frozenset(special),
                                      function=desc.get("f") or False, nones=frozenset(nones),
                                      abcs=frozenset(abcs), fields=tuple(fields), name=name).of(self, handle)
            self._proxies[handle] = proxy
        return proxy

    def _mirror_class(self, handle: int, desc: dict) -> type:
        cls = self._mirrors.get(handle)
        if cls is None:
            name, base_name, parent = desc.get("n"), desc.get("b"), desc.get("p")
            _check(type(name) is str and type(base_name) is str, "exception class reference")
            base = _BUILTIN_EXCEPTIONS.get(base_name, Exception)
            if base is KeyboardInterrupt:  # (it would end the session) never an Exception a test expects
                base = BaseException
            elif not _can_subclass(base):
                base = Exception
            if parent is not None:  # the mirror of the other side's own base class: its hierarchy kept
                _check(type(parent) is dict and parent.get("k") == "excclass" and type(parent.get("h")) is int
                       and parent["h"] != handle, "exception base reference")
                base = self._mirror_class(parent["h"], parent)
            namespace = {"__module__": "model_code", "__qualname__": name[:200], "_rpc_conn": self,
                         "_rpc_handle": handle, "_rpc_class": self._proxy(handle, {"k": "obj"}),
                         "__new__": _mirror_new, "__init__": _mirror_init, "__getattr__": _mirror_getattr,
                         "__str__": _mirror_str}
            cls = _MirrorMeta(name[:200] or "ModelError", (base,), namespace)
            self._mirrors[handle] = cls
        return cls

    def _dec_exception(self, data, memo: _Memo):
        cls = self._dec(data.get("c"), memo)
        _check(isinstance(cls, type) and issubclass(cls, BaseException), "exception class")
        if self.guarded:
            _check(_BUILTIN_EXCEPTIONS.get(cls.__name__) is cls or type(cls) is _MirrorMeta or _stdlib_name(cls),
                   "an exception class that is neither builtin nor the worker's own")
        args = self._dec(data.get("a"), memo)
        _check(type(args) is tuple, "exception args")
        handle = data.get("h")
        _check(type(handle) is int and handle > 0, "exception handle")
        base = next(c for c in cls.__mro__ if _BUILTIN_EXCEPTIONS.get(c.__name__) is c)
        try:
            exc = base.__new__(cls, *args)
            BaseException.__init__(exc, *args)
            if type(cls) is not _MirrorMeta:
                exc = cls(*args)
        except Exception:
            exc = base.__new__(cls)
            exc.args = args
        if self.guarded:
            self._arrival(handle, memo)
        exc.__dict__["_rpc_remote"] = self._proxy(handle, {"k": "obj"})  # sent back, it is the original
        attrs = data.get("d", [])
        _check(type(attrs) is list, "exception attributes")
        for entry in attrs:
            _check(type(entry) is list and len(entry) == 2 and type(entry[0]) is str, "exception attribute")
            key, value = entry[0], self._dec(entry[1], memo)
            # data attributes only: never a method of the class (add_note...) or our own _rpc_ state
            if key in _EXCEPTION_DATA or (key.isidentifier() and not key.startswith(("__", "_rpc"))
                                          and not hasattr(cls, key)):
                try:
                    setattr(exc, key, value)
                except (AttributeError, TypeError, ValueError):
                    pass
        exc.__suppress_context__ = data.get("s") is True
        text = data.get("tb")
        if type(text) is str and text.strip():  # for the report (judge_plugin), never a note `match=` would read
            exc.__dict__["_rpc_traceback"] = text[-MAX_TRACEBACK:].rstrip()
        return exc

    # --- small public helpers for the runtime ---------------------------------------------

    def encode_value(self, obj):
        return self._enc(obj, _Memo())

    def decode_value(self, data):
        try:
            return self._dec(data, _Memo())
        except RpcError:
            raise
        except (KeyError, ValueError, TypeError, IndexError, RecursionError, OverflowError, ArithmeticError) as e:
            raise ProtocolError(f"undecodable value ({type(e).__name__})") from None


def _class_name(cls) -> str:
    try:
        name = type.__getattribute__(cls, "__name__")
    except Exception:
        name = None
    return name if type(name) is str else "ModelClass"


def _builtin_base(cls) -> str:
    for klass in type.__getattribute__(cls, "__mro__"):
        name = _BUILTIN_TYPE_NAMES.get(id(klass))
        if name and name in _BUILTIN_EXCEPTIONS:
            return name
    return "Exception"


def _own_exception_base(cls):
    """The nearest base exception class of cls that is neither builtin nor the standard library's
    (a side's own class, which the other side mirrors), or None."""
    for klass in type.__getattribute__(cls, "__mro__")[1:]:
        if _BUILTIN_TYPE_NAMES.get(id(klass)) is not None or _stdlib_name(klass) is not None:
            return None
        if isinstance(klass, type) and issubclass(klass, BaseException):
            return klass
    return None


def _can_subclass(base: type) -> bool:
    try:
        type("probe", (base,), {})
        return True
    except TypeError:
        return False


def _remote_traceback(exc: BaseException) -> str:
    """The model's frames only (not this runtime's), for the person reading the failure."""
    try:
        import traceback
        frames = [f for f in traceback.extract_tb(exc.__traceback__)
                  if not os.path.abspath(f.filename).startswith((_HERE + _SEP, _IMPORTLIB))
                  and not f.filename.startswith("<frozen importlib")]
        text = "".join(traceback.format_list(frames)) + "".join(traceback.format_exception_only(type(exc), exc))
    except BaseException:
        text = type(exc).__name__
    return text[-MAX_TRACEBACK:]


# --- decoders of what is more than a value: shared containers, handles, names (the exact values'
# own encoders and decoders are in rpc_values.py) ------------------------------------------------

def _dec_mutable(kind):
    base = {"list": list, "set": set, "dict": dict}[kind]

    def decode(conn, data, memo):
        handle = data.get("h")
        live = conn.guarded and handle is not None
        obj = _LIVE[kind]() if live else base()
        if live:
            _check(type(handle) is int and handle > 0, "handle")
            conn._arrival(handle, memo)
            obj._rpc_remote = conn._proxy(handle, {"k": "obj"})
        memo.add(obj, obj, not live)
        items = data.get("v")
        _check(type(items) is list, "container items")
        if kind == "dict":
            for pair in items:
                _check(type(pair) is list and len(pair) == 2, "dict pair")
                key = conn._dec(pair[0], memo)
                dict.__setitem__(obj, key, conn._dec(pair[1], memo))
        elif kind == "set":
            for item in items:
                set.add(obj, conn._dec(item, memo))
        else:
            for item in items:
                list.append(obj, conn._dec(item, memo))
        return obj
    return decode


# Shared state: a list, dict or set read as an attribute (inflection.UNCOUNTABLES, obj.items)
# arrives as a copy that also makes each change the test makes to it in the worker's own object,
# so `inflection.UNCOUNTABLES.add("ors")` reaches the model's code as it would in one process.
# Comparisons stay the base type's own (C) methods on the copy; a change the model's code makes
# later is not seen by the copy.
_MUTATORS = {
    "list": ("append", "extend", "insert", "remove", "pop", "clear", "sort", "reverse", "__setitem__",
             "__delitem__", "__iadd__", "__imul__"),
    "dict": ("__setitem__", "__delitem__", "pop", "popitem", "clear", "update", "setdefault", "__ior__"),
    "set": ("add", "discard", "remove", "pop", "clear", "update", "difference_update", "intersection_update",
            "symmetric_difference_update", "__ior__", "__iand__", "__isub__", "__ixor__"),
}
_SAME_CHANGE = {("set", "pop"): ("discard", lambda result: (result,)),  # the element our pop took
                ("dict", "popitem"): ("pop", lambda result: (result[0],))}


def _ask_the_models_object(self, name):
    """(__getattr__ of a copy) What the copy lacks, the model's object answers: a method of its
    subclass (Counter.most_common, Registry.total, a str's _repr_html_, an enum member's name)."""
    remote = getattr(self, "_rpc_remote", None) if not name.startswith("_rpc") else None
    if remote is None:
        raise AttributeError(name)
    return getattr(remote, name)


def _live_class(kind: str) -> type:
    base = {"list": list, "set": set, "dict": dict}[kind]

    def mutator(name):
        def method(self, /, *args, **kwargs):
            result = getattr(base, name)(self, *args, **kwargs)
            remote = getattr(self, "_rpc_remote", None)
            if remote is not None:
                same, make_args = _SAME_CHANGE.get((kind, name), (name, None))
                sent = make_args(result) if make_args else args
                remote._rpc_conn.request("method", remote, same, sent, kwargs)
            return self if name.startswith("__i") else result
        method.__name__ = name
        return method
    namespace = {name: mutator(name) for name in _MUTATORS[kind]}
    namespace.update(__slots__=("_rpc_remote",), __module__=base.__module__, __qualname__=base.__qualname__,
                     __getattr__=_ask_the_models_object)
    if kind == "dict":
        def __missing__(self, key):
            """A key the copy lacks: the model's object answers (a defaultdict makes it)."""
            remote = getattr(self, "_rpc_remote", None)
            if remote is None:
                raise KeyError(key)
            value = remote._rpc_conn.request("op", "getitem", remote, key)
            dict.__setitem__(self, key, value)
            return value
        namespace["__missing__"] = __missing__
    return type(base.__name__, (base,), namespace)


_LIVE = {kind: _live_class(kind) for kind in _MUTATORS}
_LIVE_TYPES = frozenset(_LIVE.values())

def _overrides_of_its_base(t, base, obj=None) -> frozenset:
    """(worker) What the model's code answers for a value of its subclass `t` of a kept type: an
    allow-list rule. Every special method (dunder) its classes define and every name its base has
    (`upper`, `count`) counts, found where `t`'s method resolution finds it (a class between `t`
    and `base` but for the standard library's enum classes), and so does an attribute of the
    object itself named like one of its base's (`w.count = 3` hides str.count). Only what
    _KEPT_MAY_DEFINE lists does not: construction, the class statement's own names, copy and
    pickle (a kept value's are the model's object's, _copied_by_the_model) and `__getattr__` (what
    the base lacks is asked of the model's object). A kept value, whose every special method is
    the base's, would otherwise answer for code that does otherwise (an unfinished `__eq__` or
    `__bool__` that raises would pass judged); the caller sends such a value by reference, but
    for how it shows itself (_DISPLAY, asked of the model's object)."""
    mro = type.__getattribute__(t, "__mro__")
    bases = type.__getattribute__(base, "__mro__")
    names = _BASE_NAMES.setdefault(base, frozenset(dir(base)))
    found: set = set()
    for klass in mro:
        if klass in bases:
            continue
        space = type.__getattribute__(klass, "__dict__")
        if klass in _ENUM_CLASSES:  # enum's own names, but what the model's code set on them since
            space = {n: v for n, v in space.items() if _ENUM_DICTS[klass].get(n, _ABSENT) is not v}
        for name in space:
            if type(name) is not str:  # (`locals()[Key("__bool__")] = f`: a key whose own methods could lie)
                found.add("<a name that is not a str>")
            elif name in ("__dict__", "__weakref__") and type(space[name]) is not types.GetSetDescriptorType:
                found.add(name)  # (a `__dict__` property could hide the object's own attributes from the check)
            elif name not in found and name not in _KEPT_MAY_DEFINE and (name in names or _special(name)) and \
                    _owner(mro, name) is klass:  # (a mixin's `__contains__` behind tuple's own answers nothing)
                found.add(name)
    # how it shows itself: the model's object's wherever its class finds it outside the base (enum's repr too)
    found.update(name for name in _DISPLAY if _owner(mro, name) not in bases)
    own = _instance_dict(obj)
    if type(own) is not dict:  # (a dict subclass's own `__iter__` could hide what attribute lookup finds)
        found.add("<an instance __dict__ that is not a dict>")
    else:
        found.update(name if type(name) is str else "<a name that is not a str>"
                     for name in dict.keys(own) if type(name) is not str or name in names)
    return frozenset(found)


def _owner(mro: tuple, name: str):
    return next((k for k in mro if name in type.__getattribute__(k, "__dict__")), None)


# The enum module's own classes, taken when this module loads (the model's code may rebind the
# module's names later: `enum.Base = Base`): their overrides are enum's, not the model's.
_ENUM_CLASSES = frozenset(getattr(enum, name) for name in ("Enum", "ReprEnum", "IntEnum", "StrEnum", "Flag", "IntFlag")
                          if isinstance(getattr(enum, name, None), type))
_ENUM_DICTS = {klass: dict(vars(klass)) for klass in _ENUM_CLASSES}  # (`enum.IntEnum.__lt__ = ...` is the model's)


def _special(name: str) -> bool:
    return len(name) > 4 and name[:2] == name[-2:] == "__"


def _instance_dict(obj):
    try:
        return object.__getattribute__(obj, "__dict__") if obj is not None else {}
    except AttributeError:  # (slots only: they are descriptors in its class)
        return {}


# What the model's subclass of a kept type may define and still arrive kept (_overrides_of_its_base).
_KEPT_MAY_DEFINE = frozenset({
    "__module__", "__qualname__", "__doc__", "__dict__", "__weakref__", "__slots__", "__annotations__",
    "__orig_bases__", "__parameters__", "__firstlineno__", "__static_attributes__", "__classcell__",
    "__match_args__", "__type_params__", "__abstractmethods__", "__final__", "__dataclass_fields__",
    "__dataclass_params__", "__protocol_attrs__", "__non_callable_proto_members__", "__callable_proto_members_only__",
    "__slotnames__",  # (what a class statement, abc, typing and dataclasses write; copyreg's cache at the first copy)
    "__new__", "__init__", "__init_subclass__", "__class_getitem__", "__subclasshook__",  # making it
    "__reduce__", "__reduce_ex__", "__getnewargs__", "__getnewargs_ex__", "__getstate__", "__setstate__",
    "__getattr__"})


_DISPLAY = frozenset({"__str__", "__repr__", "__format__"})  # a kept value asks the model's object for these


def _shown_by_the_model(name: str, base: type):
    """A kept value's __str__/__repr__/__format__: the model's object's own when its class
    defines one (`def __str__(self): return self.name` on an enum), else the base type's."""
    def show(self, *args):
        if name in getattr(self, "_rpc_display", ()):
            remote = self._rpc_remote
            return _typed(remote._rpc_conn.request("op", name.strip("_"), remote, *args), (str,), name.strip("_") + "()")
        return getattr(base, name)(self, *args)
    show.__name__ = name
    return show


_BASE_NAMES: dict = {}


def _copied_by_the_model(self, protocol):
    """copy, deepcopy and pickle of a kept value: the model's object's, as a proxy's are (its
    `__reduce__`, `__getnewargs__`, `__new__` run in the worker, as they do plain)."""
    return _reduced(object.__getattribute__(self, "_rpc_remote"), protocol, sys._getframe(1).f_code)


# A value of a subclass of str, int, float, complex, bytes or tuple that the model's code returns
# (an IntEnum member, a str with an _repr_html_ method, sqlparse's token types) arrives as its
# exact value in a subclass of the base made here: every special method is the base type's own
# (==, hash, str, in and the operators are decided here, on the value), and only what the base
# lacks is asked of the model's object (member.name, result._repr_html_(), T.Keyword.DML), and so
# are copy and pickle. Only values whose class overrides nothing it answers (_overrides_of_its_base).
_KEPT = {base: type(base.__name__, (base,), {"__module__": base.__module__, "__qualname__": base.__qualname__,
                                             "__getattr__": _ask_the_models_object,
                                             "__reduce_ex__": _copied_by_the_model,
                                             **{name: _shown_by_the_model(name, base) for name in _DISPLAY}})
         for base in (str, int, float, complex, bytes, tuple)}
_KEPT_TYPES = set(_KEPT.values())  # and each one named as a class of the model's (_kept_class)
_KEPT_NAMED: dict = {}


def _kept_class(conn, base: type, named) -> type:
    """The kept class for values of one class of the model's, named as it is (`type(r).__name__` is
    "Name", as plain, never "str"), one per class of the worker (by its handle)."""
    _check(type(named) is list and len(named) == 4 and all(type(x) is str and len(x) <= 500 for x in named[:3])
           and named[0].isidentifier() and type(named[3]) is int, "a kept value's class")
    name, module, qualname, handle = named
    key = (id(conn), handle, base, name, module, qualname)  # (a later connection may reuse id and handle)
    kept = _KEPT_NAMED.get(key)
    if kept is None:
        _check(len(_KEPT_NAMED) < 10_000, "a kept value's class")
        kept = _KEPT_NAMED[key] = type(name, (_KEPT[base],), {
            "__module__": module or "model_code", "__qualname__": qualname or name})
        _KEPT_TYPES.add(kept)
    return kept


def _dec_kept(conn, data, memo):
    value, handle = conn._dec(data.get("v"), memo), data.get("h")
    _check(conn.guarded and type(value) in _KEPT and type(handle) is int and handle > 0, "a kept value")
    conn._arrival(handle, memo)
    kept, cls = conn._kept.get(handle), _kept_class(conn, type(value), data.get("n"))
    if kept is None or type(kept) is not cls or not _same_value(kept, value):  # (one per object)
        kept = conn._kept[handle] = cls(value)
        kept._rpc_remote = conn._proxy(handle, {"k": "obj"})
    shown = data.get("d", [])
    _check(type(shown) is list and all(type(n) is str and n in _DISPLAY for n in shown), "a kept value's display")
    kept._rpc_display = frozenset(shown)
    return kept


def _same_value(kept, value) -> bool:
    """The kept object still holds this value (a tuple's items by identity: comparing them could
    ask the model's objects' own `==`)."""
    if type(value) is tuple:
        return len(kept) == len(value) and all(a is b or (type(a) is type(b) and type(a) in _SCALARS and
                                                          _same_scalar(a, b)) for a, b in zip(kept, value))
    return _same_scalar(kept, value)


def _same_scalar(a, b) -> bool:
    """== of the base type, but a NaN is itself (and -0.0 is not 0.0): one kept object per object."""
    base = type(b)
    if base in (float, complex):
        return getattr(base, "__repr__")(a) == repr(b)
    return getattr(base, "__eq__")(a, b) is True


_SCALARS = frozenset({str, int, float, bool, bytes, complex, type(None)})


def _dec_ref(conn, data, memo):
    handle = data.get("h")
    if conn.guarded and type(handle) is int:
        conn._arrival(handle, memo)
    return conn._proxy(handle, data)


def _dec_yours(conn, data, memo):
    handle = data.get("h")
    _check(type(handle) is int and handle in conn._objects, "a handle this side never gave out")
    obj = conn._objects[handle]
    if conn.guarded and type(obj) in (types.FunctionType, type):
        _policy.HANDED_BACK.add(obj)
    if memo.opaque_refused and _policy.only_through_self(obj):
        memo.opaque_found = True
    if memo.answering and conn.guarded:
        conn.under_test.handed_back(obj)
    flags = data.get("x")
    if flags is not None and isinstance(obj, BaseException):  # `raise error from cause` on the other side
        _check(type(flags) is list and len(flags) == 2 and type(flags[0]) is bool, "exception flags")
        cause = conn._dec(flags[1], memo)
        _check(cause is None or isinstance(cause, BaseException), "exception cause")
        obj.__cause__, obj.__suppress_context__ = cause, flags[0]
    return obj


def _signature(obj, hide_defaults: bool = False):
    """inspect.signature of a callable, as plain values: [name, kind, default, annotation] per
    parameter (a missing default or annotation is the string "empty"). The judge's describes the
    tests' defaults as tokens (a test made in a loop keeps its case there)."""
    import inspect
    sig = inspect.signature(obj)
    empty = inspect.Parameter.empty
    return {"signature": [[p.name, int(p.kind), "empty" if p.default is empty else
                           [_policy.Default() if hide_defaults else p.default],
                           "empty" if p.annotation is empty else [p.annotation]] for p in sig.parameters.values()],
            "returns": "empty" if sig.return_annotation is empty else [sig.return_annotation]}


def _as_signature(value):
    """(judge) The signature the worker described, built here from plain values."""
    import inspect
    _check(type(value) is dict and type(value.get("signature")) is list, "signature")
    params = []
    for entry in value["signature"]:
        _check(type(entry) is list and len(entry) == 4 and type(entry[0]) is str and type(entry[1]) is int, "parameter")
        default = inspect.Parameter.empty if entry[2] == "empty" else entry[2][0]
        annotation = inspect.Parameter.empty if entry[3] == "empty" else entry[3][0]
        params.append(inspect.Parameter(entry[0], inspect._ParameterKind(entry[1]), default=default,
                                        annotation=annotation))
    returns = value.get("returns", "empty")
    _check(returns == "empty" or (type(returns) is list and len(returns) == 1), "return annotation")
    return inspect.Signature(params, return_annotation=inspect.Signature.empty if returns == "empty" else returns[0])


def _dec_alias(conn, data, memo):
    args = conn._dec(data.get("a"), memo)
    _check(type(args) is tuple, "alias arguments")
    return types.GenericAlias(conn._dec(data.get("o"), memo), args)


def _stdlib_name(obj):
    """(module, qualified name) of a function, class or method descriptor of the standard
    library that the name resolves to again, else None. Sent by name, the worker uses its own."""
    t = type(obj)
    if t not in (types.BuiltinFunctionType, types.FunctionType, types.MethodDescriptorType,
                 types.WrapperDescriptorType, types.ClassMethodDescriptorType, type):
        return None
    owner = getattr(obj, "__objclass__", obj)
    module, qualname = getattr(owner, "__module__", None), getattr(obj, "__qualname__", None)
    if type(module) is not str or type(qualname) is not str or "<" in qualname:
        return None
    if module.partition(".")[0] not in sys.stdlib_module_names or module not in sys.modules:
        return None
    found = sys.modules[module]
    for part in qualname.split("."):
        found = getattr(found, part, None)
    return (module, qualname) if found is obj else None


# Builtin functions the model's code may hand the tests as themselves (`next = next` in a compat
# module: the test's StopIteration stays a StopIteration): each computes only from its arguments.
# Never eval, exec, compile, open, __import__, getattr and the like: a test calling the model's
# `run(code)` with the model's string would run the model's code in the judge.
_PURE_BUILTINS = frozenset({"abs", "all", "any", "ascii", "bin", "callable", "chr", "divmod", "format", "hash",
                            "hex", "id", "isinstance", "issubclass", "iter", "len", "max", "min", "next", "oct",
                            "ord", "pow", "repr", "round", "sorted", "sum"})


def _dec_global(conn, data, memo):
    """The worker takes any name of the standard library; the judge only an exception class of a
    standard module it has imported already (it never imports what the worker names)."""
    module, qualname = data.get("m"), data.get("q")
    _check(type(module) is str and type(qualname) is str, "a name")
    if conn.guarded:
        _check(module.partition(".")[0] in sys.stdlib_module_names, "a module name")
        fallback = data.get("or")
        if module not in sys.modules and type(fallback) is dict and fallback.get("k") == "excclass":
            if type(fallback.get("h")) is int:
                conn._arrival(fallback["h"], memo)  # a handle handed over is a result (red team round 55)
            return conn._proxy(fallback.get("h"), fallback)
        if module == "builtins" and qualname in ("repr", "ascii", "format"):
            return _policy.judged_text(getattr(builtins, qualname))  # a test's partial shows its kind only
        if module == "builtins" and qualname in _PURE_BUILTINS:
            return getattr(builtins, qualname)
        _check(module in sys.modules, "a module the judge has")
        found = sys.modules[module]
        for part in qualname.split("."):
            _check(part.isidentifier() and not part.startswith("_"), "a name")
            found = type.__getattribute__(found, part) if isinstance(found, type) else getattr(found, part, None)
        _check(isinstance(found, type) and issubclass(found, BaseException), "an exception class")
        return found
    try:
        import importlib
        found = importlib.import_module(module)
        for part in qualname.split("."):
            found = getattr(found, part)
    except Exception as e:
        raise ProtocolError(f"{module}.{qualname} is not in the worker ({type(e).__name__})") from None
    return found


_DECODERS = {
    "int": _values._dec_int, "float": _values._dec_float, "complex": _values._dec_complex,
    "bytes": _values._dec_bytes, "memoryview": _values._dec_memoryview, "bytearray": _values._dec_bytearray,
    "list": _dec_mutable("list"),
    "set": _dec_mutable("set"), "dict": _dec_mutable("dict"), "tuple": _values._dec_placeholder("tuple"),
    "frozenset": _values._dec_placeholder("frozenset"), "ntuple": _values._dec_placeholder("ntuple"),
    "m": _values._dec_memo, "path": _values._dec_path, "date": _values._dec_date,
    "datetime": _values._dec_moment("datetime"), "time": _values._dec_moment("time"),
    "timedelta": _values._dec_timedelta, "decimal": _values._dec_decimal, "fraction": _values._dec_fraction,
    "pattern": _values._dec_pattern,
    "slice": _values._dec_slice, "range": _values._dec_range, "ellipsis": lambda conn, data, memo: Ellipsis,
    "notimplemented": lambda conn, data, memo: NotImplemented,
    "type": _values._dec_type, "ref": _dec_ref, "yours": _dec_yours,
    "exc": lambda conn, data, memo: conn._dec_exception(data, memo), "global": _dec_global, "alias": _dec_alias,
    "kept": _dec_kept, "namespace": _values._dec_namespace,
}


# ---------------------------------------------------------------------------------------------
# Proxies. Only dunder methods and the _rpc_ slots live on the class, so every other attribute
# name reaches the real object.

def _ask(proxy, op, *args):
    __tracebackhide__ = True
    return object.__getattribute__(proxy, "_rpc_conn").request(op, *args)


def _typed(value, kinds, what: str):
    if type(value) not in kinds:
        raise TypeError(f"{what} returned {type(value).__name__} from the other process")
    return value


def _same_side(a, b) -> bool:
    return (type(b) in _REMOTE_TYPES or type(b) is ModuleProxy) and b._rpc_conn is a._rpc_conn


def _model_side(conn, x) -> bool:
    """An object of the model's code on this connection: a proxy, or a test's subclass instance."""
    if type(x) in _REMOTE_TYPES or type(x) is ModuleProxy:
        return x._rpc_conn is conn
    if type(x) in _KEPT_TYPES:
        return getattr(x, "_rpc_remote", None) is not None and x._rpc_remote._rpc_conn is conn
    return isinstance(x, ModelSubclass) and x._rpc_obj._rpc_conn is conn


_SYMBOLS = {"add": "+", "sub": "-", "mul": "*", "matmul": "@", "truediv": "/", "floordiv": "//", "mod": "%",
            "divmod": "divmod()", "lshift": "<<", "rshift": ">>", "and": "&", "xor": "^", "or": "|", "pow": "**",
            "contains": "in", "lt": "<", "le": "<=", "gt": ">", "ge": ">="}


Refused, FromTheModel = _policy.Refused, _policy.FromTheModel  # (the judge's own errors: rpc_policy)


def _operand(proxy, other, op: str) -> None:
    """The rule of the verdict: an operator never hands a value of the tests to what the model's
    code returned (it would decide `mean(xs) - 2.5` knowing 2.5). Between two of the model's
    objects the operator is the model's, and so it is on an object the test built itself (`1 in
    Cache(2)`: rpc_policy.UnderTest); the other way round (the model's code using a test's
    object) the test's own code decides, so only the judge's proxies refuse."""
    conn = object.__getattribute__(proxy, "_rpc_conn")
    if conn.guarded and not _model_side(conn, other) and \
            not conn.under_test.is_built(object.__getattribute__(proxy, "_rpc_handle")):
        raise Refused(f"the judge never hands a test's value to the model's code through an operator "
                        f"({_SYMBOLS.get(op, op)} between an object of the model's code and "
                        f"{type(other).__name__}): return builtin values (int, float, str, list ...) to compare; only an "
                      f"object the test built itself (`Cache(2)`) answers its operators"
                      + (f"; none does since {conn.under_test.ended}" if conn.under_test.ended else ""))


class Remote:
    """An object of the other process. `proxy == value` never asks the other side (False), so a
    model object cannot claim to equal an expected value; `proxy == proxy` does. Hash is the
    model's when its class defines one, else local identity; isinstance(x, proxy_of_a_class) asks
    only for the model's objects. Each proxy is of a
    subclass (_remote_class) that has exactly the special methods the real object's type has, so
    len(), iter(), callable() and hasattr() duck typing see what the real object supports."""

    __slots__ = ("_rpc_conn", "_rpc_handle", "_rpc_origin", "__weakref__")

    @classmethod
    def of(cls, conn: Connection, handle: int) -> "Remote":
        """A proxy, made without calling the class: `ModelClass.__init__(self, ...)` in a test is the
        model's __init__ (a property below), not ours."""
        proxy = object.__new__(cls)
        object.__setattr__(proxy, "_rpc_conn", conn)
        object.__setattr__(proxy, "_rpc_handle", handle)
        object.__setattr__(proxy, "_rpc_origin", None)
        return proxy

    __init__ = property(lambda self: _ask(self, "getattr", self, "__init__"))

    def _rpc_rebind(self, fresh: "Remote") -> None:
        """Stand for the same object of a new worker (the old one is gone)."""
        object.__setattr__(self, "_rpc_conn", fresh._rpc_conn)
        object.__setattr__(self, "_rpc_handle", fresh._rpc_handle)

    def __getattr__(self, name):
        __tracebackhide__ = True
        if name in _policy._TEST_SECRETS:  # a test's marks on a function the model's code made stay here
            try:
                return _TEST_MARKS[self]
            except (KeyError, TypeError):
                raise AttributeError(name) from None
        conn = object.__getattribute__(self, "_rpc_conn")
        if name == "__signature__" and conn.guarded and "__call__" in dir(type(self)):
            try:
                return _as_signature(_ask(self, "op", "signature", self))  # inspect.signature(model_function)
            except (ValueError, TypeError, ProtocolError) as e:
                raise AttributeError(name) from e
        if _blocked(name):
            raise AttributeError(name)
        return _ask(self, "getattr", self, name)

    def __setattr__(self, name, value):
        if name in _policy._TEST_SECRETS and object.__getattribute__(self, "_rpc_conn").guarded:
            _TEST_MARKS[self] = value  # @pytest.mark.parametrize above a decorator of the model's code
            return
        _ask(self, "setattr", self, name, value)

    def __delattr__(self, name):
        _ask(self, "delattr", self, name)

    def __dir__(self):
        return [n for n in _typed(_ask(self, "dir", self), (list,), "dir()") if type(n) is str]

    def __repr__(self):
        try:
            return _typed(_ask(self, "op", "repr", self), (str,), "repr()")
        except RpcError as e:
            return f"<object of the model's code, unreachable: {e}>"

    def __str__(self):
        return _typed(_ask(self, "op", "str", self), (str,), "str()")

    def __format__(self, spec):
        return _typed(_ask(self, "op", "format", self, spec), (str,), "format()")

    def __instancecheck__(self, obj):
        return _model_side(self._rpc_conn, obj) and _typed(_ask(self, "op", "isinstance", obj, self), (bool,),
                                                           "isinstance()")

    def __subclasscheck__(self, cls):
        if isinstance(cls, type) and issubclass(cls, ModelSubclass) and cls._rpc_class._rpc_conn is self._rpc_conn:
            cls = _worker_subclass(cls)
        return _same_side(self, cls) and _typed(_ask(self, "op", "issubclass", cls, self), (bool,), "issubclass()")

    def __mro_entries__(self, bases):
        """`class Mine(lib.Cache)` in a test: the base is a local class standing for it."""
        return (_local_base(self),)

    __hash__ = object.__hash__

    def __reduce_ex__(self, protocol):
        return _reduced(self, protocol, sys._getframe(1).f_code)


def _reduced(proxy, protocol, caller):
    """pickle.dumps(proxy) with the test's protocol: the model's object pickled in the worker;
    loading it asks the worker. An object under test's pickle loaded right away is a copy of it
    (UnderTest.pickled). copy.copy and deepcopy come here too when the object's class has no
    `__copy__`/`__deepcopy__` (`caller` is theirs): then the worker's copy.copy or deepcopy makes
    the copy, shallow or deep as plain Python would (a pickle's round trip is always deep)."""
    conn = object.__getattribute__(proxy, "_rpc_conn")
    copying = _COPIERS.get(caller) if conn.guarded else None
    if copying is not None:
        return _made, (_Made(_ask(proxy, "op", copying, proxy)),)
    data = _typed(_ask(proxy, "op", "pickle", proxy, _protocol(protocol)), (bytes,), "pickle")
    if not conn.guarded:
        return _unpickled_by_the_judge, (data,)
    ticket = conn.under_test.pickled(proxy, object.__getattribute__(proxy, "_rpc_handle"), data)
    return (_copy_of_built, (ticket,)) if ticket else (_unpickled, (data,))


_COPIERS = {copy.copy.__code__: "copy", copy.deepcopy.__code__: "deepcopy"}


class _Made:
    """What the worker's copy made, as copy's `_reconstruct` hands it back (deepcopy copies the
    arguments of a reduction first: this one is its own deep copy)."""
    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value

    def __deepcopy__(self, memo):
        return self


def _made(made: _Made):
    return made.value


def _copy_of_built(ticket: str):
    """(judge) The judge's pickle of an object under test, loaded (`copy.deepcopy(cache)` of a class
    without `__deepcopy__`, `pickle.loads(pickle.dumps(cache))`): the worker loads the bytes it
    made of it; loaded before the tests asked anything else, the copy is an object under test
    too, as one made by the class's own `__deepcopy__` is."""
    original, data = _GUARDED.under_test.redeem(ticket)
    return _GUARDED.request("copy_of", original, data) if original is not None else _unpickled(data)


def _unpickled_by_the_judge(data: bytes):
    """A test's object pickled by the judge for the model's code (pickle.dumps or deepcopy in the
    worker of a model object that holds a test's function): the judge loads it, and the model's
    code gets what it gives (that function, a copy of the object) as any value of the tests."""
    if _UNGUARDED is not None:  # (the worker)
        return _UNGUARDED.request("unpickle", bytes(data))
    return _GUARDED.load_own_pickle(bytes(data))


_TEST_MARKS: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()  # (judge) proxy -> the test's marks on it


def _unpickled(data: bytes):
    if _GUARDED is None:  # in the worker: its own pickle (a test handed the bytes back)
        import pickle
        return pickle.loads(bytes(data))
    return _GUARDED.request("unpickle", bytes(data))


_GUARDED = None  # the judge's connection (pickles of the model's objects are loaded through it)
_UNGUARDED = None  # the worker's connection (pickles of the tests' objects are loaded through it)


class _Binding:
    """A proxy's __get__ (when the real type has one). Python binding a class attribute calls it
    as (proxy, obj, cls). A callable of the model's code set on a test's class (a function, a
    decorator's wrapper object) binds as a method does, here: the test's instance reaches the
    model's code only with the test's call. A descriptor of the model's code that is not
    callable (a decorator that only binds), or one that also learns its name (__set_name__: a
    descriptor by design, whose __call__ may be a guard that raises, as cachetools' cachedmethod's
    is), is asked, in the judge, with a stand-in for the test's instance (_standin: an empty object
    of the worker's) and a token for its class (_Bound): never the test's objects unasked. A
    test's explicit `descriptor.__get__(x)` reads it as an attribute instead: in the judge that
    asks the model's __get__ with x itself if it crosses as an exact builtin or is the model's
    (toolz's InstanceProperty), else it binds as Python's binding does."""

    def __call__(self, proxy, obj, objtype=None):
        special = vars(type(proxy))
        conn = object.__getattribute__(proxy, "_rpc_conn")
        if conn.guarded and ("__call__" not in special or "__set_name__" in special):
            inst = _token(obj) if obj is None or isinstance(obj, type) else _standin(conn, obj)
            return _value_of(_ask(proxy, "method", proxy, "__get__", (inst, _token(objtype)), {}))
        return proxy if obj is None else types.MethodType(proxy, obj)

    def __get__(self, proxy, cls=None):
        if proxy is None or not object.__getattribute__(proxy, "_rpc_conn").guarded:
            return self if proxy is None else types.MethodType(self, proxy)

        def explicit(obj, objtype=None):
            if not all(_plainly_valued(proxy, x) for x in (obj, objtype)):
                return self(proxy, obj, objtype)
            return _ask(proxy, "method", proxy, "__get__", (obj,) if objtype is None else (obj, objtype), {})
        return explicit


def _plainly_valued(proxy, x) -> bool:
    """None, an exact builtin scalar or builtin class, or an object of the model's code."""
    return (x is None or type(x) in (bool, int, float, complex, str, bytes) or _BUILTIN_TYPE_NAMES.get(id(x)) is not None
            or _model_side(object.__getattribute__(proxy, "_rpc_conn"), x))


class _Bound:
    """(judge) What a descriptor of the model's code in a test's class gets for the test's instance
    or class (__get__'s obj and cls, __set_name__'s owner): a token, opaque to the model's code.
    The judge puts the value back only as the first argument of the model's call of a function
    the tests defined in that class (`self.fn(obj, *args)` of the method it decorates: the test's
    own method gets its own self), and when the model's __get__ returns it."""

    __slots__ = ("__weakref__",)

    def __repr__(self):
        return "<a test's instance or class, as a model descriptor sees it>"


_TOKEN_OF: dict[int, tuple] = {}  # (judge) id(a test's object) -> (it, its token), kept alive
_VALUE_OF: dict[int, tuple] = {}  # (judge) id(token) -> (token, the test's object)


def _token(value):
    if value is None:
        return None
    entry = _TOKEN_OF.get(id(value))
    if entry is None or entry[0] is not value:
        entry = _TOKEN_OF[id(value)] = (value, _Bound())
        _VALUE_OF[id(entry[1])] = (entry[1], value)
    return entry[1]


_STANDIN_CLASS: dict[int, tuple] = {}  # (judge) id(a test's class) -> (it, its stand-in class in the worker)
_STANDIN_OF: dict[int, tuple] = {}  # (judge) id(a test's instance) -> (it, its stand-in in the worker)


def _standin(conn, obj):
    """(judge) What a descriptor of the model's code in a test's class gets for the test's instance
    (__get__'s obj): an object of the worker's, empty, of a class made there for the test's class
    (cachetools' cachedmethod finds itself in type(obj).__mro__ and keeps its bound wrapper in the
    instance's __dict__). The stand-in's classes have the test's classes' names, and in their dicts
    only the objects of the model's code the test's classes hold (under their names; a name of the
    test's that shadows one of them holds a placeholder): nothing of the test's values. The judge
    puts the test's instance back where it puts a token back (_own_self, _value_of)."""
    entry = _STANDIN_OF.get(id(obj))
    if entry is not None and entry[0] is obj:
        return entry[1]
    t = type(obj)
    made = _STANDIN_CLASS.get(id(t))
    if made is None or made[0] is not t:
        mro = [k for k in type.__getattribute__(t, "__mro__") if k is not object]
        own = [{n: v for n, v in type.__getattribute__(k, "__dict__").items() if type(n) is str and _model_side(conn, v)}
               for k in mro]
        names = set().union(*own)
        chain = []
        for k, mine in zip(mro, own):
            shadows = {n: None for n in type.__getattribute__(k, "__dict__") if n in names and n not in mine}
            name = type.__getattribute__(k, "__name__")
            chain.append((name if type(name) is str and name.isidentifier() else "Standin", {**mine, **shadows}))
        made = _STANDIN_CLASS[id(t)] = (t, conn.request("standin", chain))
    standin = made[1]()
    _STANDIN_OF[id(obj)] = (obj, standin)
    _VALUE_OF[id(standin)] = (standin, obj)
    return standin


def _make_standin_class(chain):
    """(worker) The classes of a test's instance's stand-in (_standin): most derived first; a name
    held by None is a placeholder (the test's own value there)."""
    _check(type(chain) is list and chain and all(type(c) is tuple and len(c) == 2 and type(c[0]) is str
                                                  and type(c[1]) is dict and all(type(n) is str for n in c[1])
                                                  for c in chain), "a stand-in's classes")
    base = object
    for name, members in reversed(chain):
        namespace = {n: (_Placeholder() if v is None else v) for n, v in members.items()}
        base = type(name, (base,), {**namespace, "__module__": "tests"})
    return base


class _Placeholder:
    """(worker) A name of a test's class that shadows an object of the model's code there."""

    def __repr__(self):
        return "<a test's attribute>"


def _value_of(x):
    entry = _VALUE_OF.get(id(x))
    return entry[1] if entry is not None and entry[0] is x else x


def _own_self(conn, target, args: tuple) -> tuple:
    """(judge) The model's code calls a function the tests defined in a class with a token first:
    the test's instance or class itself, if the function is that class's own (or a base's)."""
    value = _value_of(args[0]) if args else None
    if value is None or value is args[0] or type(target) is not types.FunctionType \
            or not _policy._defined_here(conn, target):
        return args
    # Where the function was defined, from what the model's code cannot change: its code's qualified
    # name (its __qualname__ may be set: red team round 36) and its module's namespace.
    owner = getattr(target.__code__, "co_qualname", "").rpartition(".")[0]  # (Python 3.11+; before: no self)
    mro = type.__getattribute__(value if isinstance(value, type) else type(value), "__mro__")
    if owner and any(k.__qualname__ == owner and target.__globals__ is getattr(sys.modules.get(k.__module__), "__dict__", None)
                     for k in mro):
        return (value, *args[1:])
    return args


class _Special:
    """The special methods a proxy may have (see _remote_class)."""

    __get__ = _Binding()

    def __set_name__(self, owner, name):
        """A descriptor of the model's code in a test's class body learns its name; the test's
        class reaches it as a token (_Bound). (Not asked for a test's object in the worker.)"""
        if object.__getattribute__(self, "_rpc_conn").guarded:
            _ask(self, "method", self, "__set_name__", (_token(owner), name), {})

    def __hash__(self):
        return _typed(_ask(self, "op", "hash", self), (int,), "hash()")

    def __copy__(self):  # only where the real type has one (itertools.tee copies what has __copy__)
        return _ask(self, "op", "copy", self)

    def __deepcopy__(self, memo):
        return _ask(self, "op", "deepcopy", self)

    def __bool__(self):
        return _typed(_ask(self, "op", "bool", self), (bool,), "bool()")

    def __len__(self):
        return _typed(_ask(self, "op", "len", self), (int,), "len()")

    def __iter__(self):
        return _ask(self, "op", "iter", self)

    def __next__(self):
        return _ask(self, "op", "next", self)

    def __reversed__(self):
        return _ask(self, "op", "reversed", self)

    def __contains__(self, item):
        _operand(self, item, "contains")
        return _typed(_ask(self, "op", "contains", self, item), (bool,), "in")

    def __getitem__(self, key):
        return _ask(self, "op", "getitem", self, key)

    def __setitem__(self, key, value):
        _ask(self, "op", "setitem", self, key, value)

    def __delitem__(self, key):
        _ask(self, "op", "delitem", self, key)

    def __call__(self, /, *args, **kwargs):
        __tracebackhide__ = True
        result = _ask(self, "call", self, args, kwargs)
        if _policy.IMPORTING and object.__getattribute__(self, "_rpc_conn").guarded:
            _policy.decorated(object.__getattribute__(self, "_rpc_conn"), result, args, kwargs)
        return result

    def __index__(self):
        return _typed(_ask(self, "op", "index", self), (int,), "index()")

    def __int__(self):
        return _typed(_ask(self, "op", "int", self), (int,), "int()")

    def __float__(self):
        return _typed(_ask(self, "op", "float", self), (float,), "float()")

    def __complex__(self):
        return _typed(_ask(self, "op", "complex", self), (complex,), "complex()")

    def __bytes__(self):
        return _typed(_ask(self, "op", "bytes", self), (bytes,), "bytes()")

    def __round__(self, ndigits=None):
        return _ask(self, "op", "round", self) if ndigits is None else _ask(self, "op", "round", self, ndigits)

    def __pow__(self, other, mod=None):
        _operand(self, other, "pow")
        if mod is not None:
            _operand(self, mod, "pow")
        return _ask(self, "op", "pow", self, other) if mod is None else _ask(self, "op", "pow", self, other, mod)

    def __rpow__(self, other):
        _operand(self, other, "pow")
        return _ask(self, "op", "pow", other, self)

    def __enter__(self):
        return self.__getattr__("__enter__")()

    def __exit__(self, exc_type, exc, tb):
        guarded = object.__getattribute__(self, "_rpc_conn").guarded
        if guarded and isinstance(exc, _policy.NOT_FOR_THE_MODEL):
            return False  # the test's time ran out in the body: never the model's __exit__ to swallow
        try:
            swallowed = bool(self.__getattr__("__exit__")(exc_type, exc, None))  # asked once: __bool__ could flip
        except BaseException as raised:  # `raise Other(...) from exc`: the body's failure is wrapped, not through
            if raised is not exc and guarded and _policy._is_test_failure(exc):
                _policy._FAILURES_IN_MODEL_HANDS.append((exc, None))
            raise
        if swallowed and guarded and _policy._is_test_failure(exc):
            _policy._FAILURES_IN_MODEL_HANDS.append((exc, None))  # the test's failure in the body still counts
        return swallowed


def _under_test(proxy, other) -> bool:
    """`cache == {}`, `version < "1.0"`: an object the test built itself answers (UnderTest)."""
    conn = object.__getattribute__(proxy, "_rpc_conn")
    return conn.guarded and not _model_side(conn, other) and conn.under_test.is_built(proxy._rpc_handle)


def _binary(op):
    def forward(self, other):
        _operand(self, other, op)
        return _ask(self, "op", op, self, other)

    def reflected(self, other):
        _operand(self, other, op)
        return _ask(self, "op", op, other, self)
    return forward, reflected


def _comparison(op):
    def compare(self, other):
        if _same_side(self, other) or _under_test(self, other):
            return _ask(self, "op", op, self, other)
        if op not in ("eq", "ne"):  # an order with a test's value: refused, not Python's own TypeError
            _operand(self, other, op)
        return NotImplemented  # (== and != with a test's value: identity, never asked)
    return compare


def _unary(op):
    return lambda self: _ask(self, "op", op, self)


for _op in ("add", "sub", "mul", "matmul", "truediv", "floordiv", "mod", "divmod", "lshift", "rshift",
            "and", "xor", "or"):
    _forward, _reflected = _binary(_op)
    setattr(_Special, f"__{_op}__", _forward)
    setattr(_Special, f"__r{_op}__", _reflected)
for _op in ("eq", "ne", "lt", "le", "gt", "ge"):
    setattr(Remote, f"__{_op}__", _comparison(_op))
for _op in ("neg", "pos", "abs", "invert"):
    setattr(_Special, f"__{_op}__", _unary(_op))

_OPTIONAL = {n: f for n, f in vars(_Special).items() if _is_dunder(n) and callable(f)}
# A proxy made without a description of its type (an exception's or a mirror's link to the real
# object): none of the special methods that protocols probe for (tee copies what has __copy__,
# a class body calls __set_name__, a class attribute with __get__ binds).
_PLAIN_SPECIALS = frozenset(_OPTIONAL) - {"__get__", "__set_name__", "__copy__", "__deepcopy__", "__hash__"}
_REMOTE_TYPES = _policy.REMOTE_TYPES
_ACTED_ON = {"method": 0, "setattr": 0, "delattr": 0, "setitem": 1, "delitem": 1}  # a test's object the model's code changes
_GIVEN = {"call": 1, "method": 2, "setattr": 2, "op": 2}  # where a request's arguments for the other side's code start
#  (an "op" names the operator, then its operands: `registry[k] = project` hands k and project to the tests' __setitem__)
_remote_classes: dict = {}


def _forwarded(name: str):
    """A data attribute that every class has (__doc__, __module__), read from the real object."""
    return property(lambda self: _ask(self, "getattr", self, name))


# The collections.abc classes a type joins only by inheritance or registration (no __subclasshook__):
# the proxy's class is registered with those the real object is an instance of.
_REGISTERED_ABCS = {name: getattr(collections.abc, name) for name in (
    "Sequence", "MutableSequence", "Mapping", "MutableMapping", "Set", "MutableSet")}


def _abcs_of(obj) -> list:
    try:
        return [name for name, abc in _REGISTERED_ABCS.items() if isinstance(obj, abc)]
    except Exception:  # (an odd __subclasshook__ of the object's own class)
        return []


def _remote_class(special, function: bool | str = False, nones: frozenset = frozenset(),
                  abcs: frozenset = frozenset(), fields: tuple = (), name: str = "Remote") -> type:
    """The proxy class with exactly these special methods (one class per set, cached). A proxy of
    a plain function says so through __class__, so isinstance(proxy, types.FunctionType) and
    inspect.isfunction hold (suites list a module's functions with inspect.getmembers); its type
    stays the proxy's. A proxy of a test's dataclass instance (in the worker) is of a dataclass
    with its fields' names, so dataclasses.is_dataclass, fields() and asdict() work on it (each
    field's value is read from the test's object, as any attribute). The class is named as the
    real object's class (`type(cache).__name__`, `repr` that starts with it)."""
    key = (frozenset(special), function, nones, abcs, fields, name)
    cls = _remote_classes.get(key)
    if cls is None:
        namespace = {n: _OPTIONAL[n] for n in key[0]}
        if fields:
            import dataclasses
            namespace["__dataclass_fields__"] = dataclasses.make_dataclass("Remote", fields).__dataclass_fields__
        namespace.update(dict.fromkeys(nones))  # iter() refuses, as for the real object
        namespace.update(__slots__=(), __doc__=_forwarded("__doc__"), __module__=_forwarded("__module__"))
        if function == "class":  # (a test's class in the worker: register(conn, TestAggregate) sees a class)
            namespace["__class__"] = property(lambda self: type)
        elif function:
            namespace["__class__"] = property(lambda self: types.FunctionType)
        cls = _remote_classes[key] = type(name, (Remote,), namespace)
        _REMOTE_TYPES.add(cls)
        for name in abcs:
            _REGISTERED_ABCS[name].register(cls)
    return cls


def _dataclass_fields(t) -> list | None:
    """(judge) The fields' names if t, the class of a test's object, is a dataclass (found in its
    classes' own dicts, never through a __getattr__ of a class that stands for the model's); each
    name is what the model's code could read on the object anyway."""
    try:
        mro = type.__getattribute__(t, "__mro__")
        if issubclass(t, type) or not any("__dataclass_fields__" in type.__getattribute__(k, "__dict__") for k in mro):
            return None
        import dataclasses
        names = [f.name for f in dataclasses.fields(t)]
        return names if all(type(n) is str and n.isidentifier() and not keyword.iskeyword(n) for n in names) else None
    except Exception:
        return None


def _special_methods(t, names=_OPTIONAL, none: bool = False) -> frozenset:
    """The special methods among `names` that type t defines (object's own do not count); with
    none=True, those it sets to None instead (`__iter__ = None`: iter() must not try __getitem__)."""
    try:
        dicts = [type.__getattribute__(k, "__dict__") for k in type.__getattribute__(t, "__mro__") if k is not object]
    except Exception:
        return frozenset() if none else frozenset(names)
    # `__hash__ = None` counts as defined: the proxy forwards hash() and the real object's TypeError comes back
    found = {n: next((d[n] for d in dicts if n in d), _ABSENT) for n in names}
    if none:
        return frozenset(n for n, v in found.items() if v is None and n != "__hash__")
    return frozenset(n for n, v in found.items() if v is not _ABSENT and (v is not None or n == "__hash__"))


_ABSENT = object()


# ---------------------------------------------------------------------------------------------
# A test's subclass of a class of the model's code (`class Recording(cache.Cache)`, as cachetools'
# own suite does). The test's class derives from a local base that stands for the model's class;
# each instance lives in the worker as an instance of a subclass made there, whose methods that
# the test's class defines call back into the judge. So the model's code calls the test's
# overrides, super() in the test reaches the model's methods, and `type(self)(...)` in the
# model's code makes an instance of the test's class. Each side keeps the attributes it sets
# (the test's in its instance, the model's in the worker); a read the owner cannot answer asks
# the other side. Operators follow the rule of the verdict: never with a test's value.

class ModelSubclass:
    """Base of the local bases (one per class of the model's code that a test subclasses)."""

    _rpc_class = None  # the proxy of the model's class, on each local base

    def __new__(cls, /, *args, **kwargs):
        sub = _worker_subclass(cls)
        made = sub._rpc_conn.request("new", sub, args, kwargs)  # comes back as an instance of cls (_proxy)
        if type(made) is not cls:
            raise TypeError(f"{cls.__name__}.__new__ in the model's code made no {cls.__name__}")
        return made

    def __getattr__(self, name):
        """What the model's code set on the instance (self.size), or a member of its class."""
        if name.startswith("_rpc"):
            raise AttributeError(name)
        return getattr(object.__getattribute__(self, "_rpc_obj"), name)

    def __reduce_ex__(self, protocol):
        """copy, deepcopy and pickle: of the worker's object (whose class pickle finds there,
        _SUBCLASSES), which comes back as an instance of the test's class."""
        return _reduced(object.__getattribute__(self, "_rpc_obj"), protocol, sys._getframe(1).f_code)

    def __init_subclass__(cls, **kwargs):
        """A test's class with the model's class among its bases (`class T(lib.Mixin,
        unittest.TestCase)`): a name that a class of the tests or unittest.TestCase defines is
        theirs, wherever the model's class sits in the order (its `run`, `__call__`, `assertEqual`
        or a helper of the tests' base would decide the test). The model's class answers only the
        names no other class of the test's has."""
        super().__init_subclass__(**kwargs)
        mro, theirs_here = cls.__mro__, {}
        for position, klass in enumerate(mro):
            model = klass.__dict__.get("_rpc_class") is not None
            if not model:
                continue
            for name in list(klass.__dict__):
                if name in _OWN_NAMES or name in cls.__dict__:
                    continue
                theirs = next((k for k in mro[position + 1:] if k is not ModelSubclass and k is not object
                               and k.__dict__.get("_rpc_class") is None and name in k.__dict__), None)
                if name in _FIXTURE_HOOKS and theirs is not None and _unittest_case(theirs):
                    continue  # unittest's empty setUp, tearDown ...: the model's runs where plain runs it (it can only fail)
                if theirs is not None and _is_first_model_definition(mro, position, name):
                    type.__setattr__(cls, name, theirs.__dict__[name])
                    theirs_here[name] = theirs
        type.__setattr__(cls, "_rpc_theirs", theirs_here)  # (what the model's code may call back: their origin's rule)


_FIXTURE_HOOKS = frozenset({"setUp", "tearDown", "setUpClass", "tearDownClass", "asyncSetUp", "asyncTearDown"})


def _unittest_case(klass) -> bool:
    """unittest's own TestCase or IsolatedAsyncioTestCase (the tests' side: loaded there)."""
    return any(klass is getattr(sys.modules.get(module), name, None) for module, name in
               (("unittest.case", "TestCase"), ("unittest.async_case", "IsolatedAsyncioTestCase")))


def _is_first_model_definition(mro, position: int, name: str) -> bool:
    """The model's class at `position` is the first class in the order that defines `name`, so
    plain Python would take the model's."""
    return not any(name in k.__dict__ for k in mro[:position])


def _bind(wrapper, obj, conn) -> None:
    object.__setattr__(wrapper, "_rpc_obj", obj)
    conn.wrappers[obj._rpc_handle] = wrapper


def _local_base(remote_class) -> type:
    """The local class that stands for a class of the model's code (one per class)."""
    conn = remote_class._rpc_conn
    base = conn.local_bases.get(remote_class._rpc_handle)
    if base is None:
        members = _typed(conn.request("members", remote_class), (list,), "members")
        name = _typed(getattr(remote_class, "__name__"), (str,), "__name__")
        namespace = {"_rpc_class": remote_class, "__qualname__": name, "__module__": "model_code"}
        for entry in members:
            _check(type(entry) is list and len(entry) == 2 and all(type(x) is str for x in entry), "member")
            member, kind = entry
            if kind == "fixture":  # it would run around each test plain; here it would be a method: refused
                raise Refused(f"{name}.{member} is a pytest fixture of the model's code: a test's class on "
                              f"{name} cannot be judged (its fixture would never run)")
            if not member.isidentifier() or (member.startswith("_") and member not in _MEMBER_SPECIALS):
                continue  # what the worker says its class has is not trusted: no __getattribute__, no _private
            if _is_dunder(member) and kind not in ("method", "none"):
                continue  # a special method only as a forwarded method (with the operator rule)
            if kind == "method":
                namespace[member] = _forward(member)
            elif kind == "none":
                namespace[member] = None
            else:
                namespace[member] = _ClassMember(member)
        base = conn.local_bases[remote_class._rpc_handle] = type(name, (ModelSubclass,), namespace)
    return base


def _forward(name: str):
    """A method of the model's class, run on the instance in the worker (super().name() too)."""
    binary = name in _BINARY_SPECIALS

    def method(self, /, *args, **kwargs):
        __tracebackhide__ = True
        obj = object.__getattribute__(self, "_rpc_obj")
        if binary and args and not _model_side(obj._rpc_conn, args[0]):
            if name in _COMPARISONS:
                return NotImplemented
            _operand(obj, args[0], name.strip("_"))
        return obj._rpc_conn.request("super", _worker_subclass(type(self)), obj, name, args, kwargs)
    method.__name__ = name
    return method


class _ClassMember:
    """A class attribute, static or class method of the model's class (Cache.LIMIT,
    Cache.sized), read from the instance in the worker or from the worker's subclass."""

    def __init__(self, name: str):
        self.name = name

    def __get__(self, obj, cls=None):
        if obj is not None:
            return getattr(object.__getattribute__(obj, "_rpc_obj"), self.name)
        sub = _worker_subclass(cls)
        if self.name in cls.__dict__.get("_rpc_overrides", ()):  # super().parse(...) in the test's own classmethod
            conn, name = object.__getattribute__(sub, "_rpc_conn"), self.name  # the model's member, bound to cls
            return lambda *args, **kwargs: conn.request("super", sub, sub, name, args, kwargs)
        return getattr(sub, self.name)


_COMPARISONS = frozenset({"__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__"})
_BINARY_SPECIALS = _COMPARISONS | {f"__{op}__" for op in ("add", "sub", "mul", "matmul", "truediv", "floordiv", "mod",
                                                           "divmod", "lshift", "rshift", "and", "xor", "or", "pow",
                                                           "contains")} \
    | {f"__r{op}__" for op in ("add", "sub", "mul", "matmul", "truediv", "floordiv", "mod", "divmod", "lshift",
                               "rshift", "and", "xor", "or", "pow")}
_MEMBER_SPECIALS = _BINARY_SPECIALS | {"__init__", "__repr__", "__str__", "__len__", "__iter__", "__next__",
                                       "__reversed__", "__getitem__", "__setitem__", "__delitem__", "__missing__",
                                       "__call__", "__hash__", "__bool__", "__enter__", "__exit__", "__neg__",
                                       "__pos__", "__abs__", "__invert__", "__index__", "__int__", "__float__"}
_OWN_NAMES = frozenset({"__module__", "__qualname__", "__doc__", "__dict__", "__weakref__", "__slots__",
                        "_rpc_class", "_rpc_sub", "_rpc_overrides", "_rpc_theirs", "__init_subclass__",
                        "__classcell__"})


def _worker_subclass(cls):
    """The worker's subclass for a test's class: made on first use, with a stub for each name it
    may call back (_callback_for_the_model): what the tests' own classes define (after the model's
    class in the order, their public names only, and only those the model's class lacks), and
    unittest's own assertions (a mixin's `self.assertEqual`), wherever they sit."""
    sub = cls.__dict__.get("_rpc_sub")
    if sub is not None:
        return sub
    base = next(k for k in cls.__mro__ if k.__dict__.get("_rpc_class") is not None)
    conn = base._rpc_class._rpc_conn
    overrides, names = [], {}
    mro = cls.__mro__
    after = mro.index(base)
    # A test class (a TestCase, or named as one) holds the tests' expected values and reference
    # helpers: its model mixin calls back unittest's own assertions only.
    test_class = _policy._test_class(conn, cls)
    theirs: dict = {}  # name -> the class it was kept from, over the model's (ModelSubclass.__init_subclass__)
    for klass in reversed(mro):
        theirs.update(klass.__dict__.get("_rpc_theirs", {}))
    for position, klass in enumerate(mro):
        if klass is base or klass is ModelSubclass or klass is object or "_rpc_class" in klass.__dict__:
            continue
        for name, value in vars(klass).items():
            if name in names or name in _OWN_NAMES or (_is_dunder(name) and name not in _MEMBER_SPECIALS):
                continue
            if position > after and (name.startswith("_") or name in vars(base)):
                continue  # a mixin's base after the model's class: only the public names the model's lacks
            origin = theirs[name] if name in theirs and theirs[name].__dict__.get(name) is value else klass
            if origin is not klass and name.startswith("_"):
                continue
            if not (_unittest_assertion_function(origin, name, value) if test_class
                    else _callback_for_the_model(conn, origin, name, value)):
                continue  # unittest's machinery (`run`, `addTypeEqualityFunc`, `skipTest`): not the model's to call
            kind = ("static" if isinstance(value, staticmethod) else "classmethod" if isinstance(value, classmethod)
                    else "property" if hasattr(type(value), "__set__") else "method" if callable(value) else "data")
            names[name] = kind
            overrides.append([name, kind, value if kind == "data" and _plain(value) else None])
    token = len(conn.subclasses) + 1
    conn.subclasses[token] = cls
    sub = conn.request("subclass", base._rpc_class, cls.__name__, token, overrides, _dispatch)
    type.__setattr__(cls, "_rpc_sub", sub)
    type.__setattr__(cls, "_rpc_overrides", names)  # name -> kind: what _dispatch answers, and how
    conn.subclasses[("class", sub._rpc_handle)] = cls
    return sub


def _callback_for_the_model(conn, klass, name: str, value) -> bool:
    """What the model's class may call on `self` of a test's subclass of it (not a test class): a
    name a class of the tests defines (their overrides and helpers), or one of unittest's own
    assertion functions; never the rest of unittest's or another library's machinery
    (`addTypeEqualityFunc`, `run`, `skipTest`, `subTest`, `addCleanup`), which would let it decide
    how the test's checks go."""
    if _unittest_assertion_function(klass, name, value):
        return True
    module = sys.modules.get(klass.__module__)
    where = getattr(module, "__file__", None)
    return conn._trusted is not None and type(where) is str and os.path.abspath(where).startswith(conn._trusted)


def _unittest_assertion_function(klass, name: str, value) -> bool:
    """One of unittest.TestCase's own assertions (`assertEqual`, `fail`): the only callbacks a
    model mixin of a test class gets (it raises or returns None; the test's failure counts)."""
    return name.startswith(("assert", "fail")) and type(value) is types.FunctionType \
        and klass.__module__ in ("unittest.case", "unittest")


def _plain(value) -> bool:
    return type(value) in (type(None), bool, int, float, str, bytes, tuple, frozenset)


def _dispatch(mode: str, name: str, target, args: tuple, kwargs: dict):
    """The worker's subclass calling the test's class: only a name the test's class defines, on
    an instance (or the class) of a test's subclass; or, for mode "local", an attribute the
    test's code set on the instance."""
    instance = isinstance(target, ModelSubclass)
    cls = type(target) if instance else _tests_class(target, mode, name)
    target = target if instance else cls
    if not (isinstance(cls, type) and issubclass(cls, ModelSubclass) and type(args) is tuple and type(kwargs) is dict):
        raise PermissionError("the worker may call back only the tests' own subclasses")
    if mode == "local":  # (a TestCase's or a test class's instance holds the tests' data: never the model's to read)
        if not instance or type(name) is not str or name.startswith("_rpc") or _policy._test_class(
                object.__getattribute__(target, "_rpc_obj")._rpc_conn, cls):
            raise AttributeError(name)
        try:
            return object.__getattribute__(target, "__dict__")[name]
        except KeyError:
            raise AttributeError(name) from None
    kind = cls.__dict__.get("_rpc_overrides", {}).get(name) if type(name) is str else None
    # The model's code may call this with any mode and name (it can reach it in a stub's closure):
    # each name answers only as the kind it was handed as, data never.
    if kind is None or (mode, kind) not in _DISPATCHED:
        raise PermissionError(f"{name!r} is not defined by the tests' class")
    if mode == "set":  # only through a property the test's class defines, never over a method
        descriptor = next((vars(k)[name] for k in cls.__mro__ if name in vars(k)), None)
        if not instance or not hasattr(type(descriptor), "__set__") or len(args) != 1:
            raise PermissionError(f"{name!r} is not a property of the tests' class")
        object.__setattr__(target, name, args[0])
        return None
    value = getattr(target, name)
    return value if mode == "get" else value(*args, **kwargs)


_DISPATCHED = {("call", "method"), ("call", "static"), ("call", "classmethod"), ("get", "property"),
               ("set", "property")}


def _tests_class(target, mode: str, name):
    """The test's class a static or class method of it is called on in the worker. There the
    stub's class is the worker's subclass (`self.getsizeof(v)` in the model's code, where the
    test's class overrides the staticmethod, as cachetools' suite does), which comes here as the
    proxy the judge got when it made that subclass: it stands for the test's class. Only such a
    method: a plain method of the test's class is called back only on an instance of it."""
    if not isinstance(target, Remote):
        return target
    cls = object.__getattribute__(target, "_rpc_conn").subclasses.get(
        ("class", object.__getattribute__(target, "_rpc_handle")))
    member = next((vars(k)[name] for k in cls.__mro__ if name in vars(k)), None) if cls and type(name) is str else None
    return cls if mode == "call" and isinstance(member, (staticmethod, classmethod)) else None


def _members(cls) -> list:
    """(worker) The public members and the special methods of a class, and their kind, so the judge
    can make a local base that stands for it."""
    found = []
    mro = type.__getattribute__(cls, "__mro__")
    for name in dir(cls):
        if type(name) is not str or (name.startswith("_") and name not in _MEMBER_SPECIALS):
            continue
        owner = next((k for k in mro if name in vars(k)), None)
        if owner is None or owner is object:
            continue
        value = vars(owner)[name]
        kind = ("none" if value is None else "fixture" if _pytest_fixture(value) else "static" if isinstance(value, staticmethod)
                else "classmethod" if isinstance(value, classmethod)
                else "data" if not callable(value) or hasattr(type(value), "__set__") else "method")
        found.append([name, kind])
    return found


def _pytest_fixture(value) -> bool:
    """(worker) `@pytest.fixture` on a method (pytest 8.4+ makes a FixtureFunctionDefinition)."""
    kind = type(value)
    return (kind.__name__ == "FixtureFunctionDefinition" and kind.__module__ == "_pytest.fixtures") or \
        hasattr(value, "_pytestfixturefunction")


def _make_subclass(base, name: str, overrides: list, dispatch):
    """(worker) A subclass of the model's class whose methods the test's class defines call back."""
    namespace = {}
    for entry in overrides:
        member, kind, value = entry
        if kind == "method":
            namespace[member] = _stub(member, dispatch)
        elif kind == "property":
            namespace[member] = property(lambda self, n=member: dispatch("get", n, self, (), {}),
                                         lambda self, v, n=member: dispatch("set", n, self, (v,), {}))
        elif kind == "classmethod":
            namespace[member] = classmethod(lambda cls, *a, n=member, **k: dispatch("call", n, cls, a, k))
        elif kind == "static":
            namespace[member] = staticmethod(lambda *a, n=member, **k: dispatch("call", n, sub, a, k))
        else:
            namespace[member] = value
    own_getattr = namespace.get("__getattr__")

    def __getattr__(self, attr):
        """What the test's code set on the instance, else the model's class's own __getattr__."""
        if own_getattr is None and not attr.startswith("__"):
            try:
                return dispatch("local", attr, self, (), {})
            except AttributeError:
                pass
        fallback = own_getattr or getattr(super(sub, self), "__getattr__", None)
        if fallback is None:
            raise AttributeError(attr)
        return fallback(self, attr) if own_getattr else fallback(attr)
    namespace["__getattr__"] = __getattr__
    qualname = f"{name}_{len(vars(_SUBCLASSES))}"  # where pickle finds it (a copy of an instance in the worker)
    namespace["__module__"], namespace["__qualname__"] = _SUBCLASSES.__name__, qualname
    sub = type(name, (base,), namespace)
    setattr(_SUBCLASSES, qualname, sub)
    sys.modules.setdefault(_SUBCLASSES.__name__, _SUBCLASSES)
    return sub


_SUBCLASSES = types.ModuleType("_judge_tests_subclasses")  # (worker) the worker's subclasses of the tests' classes


def _stub(name: str, dispatch):
    def method(self, /, *args, **kwargs):
        return dispatch("call", name, self, args, kwargs)
    method.__name__ = name
    return method


class ModuleProxy(types.ModuleType):
    """A module of the model's workspace, imported in the worker. Import machinery attributes
    (__spec__, __path__ ...) stay local; everything else is read and written remotely, so
    monkeypatch.setattr(module, ...) reaches the model's own module."""

    def __init__(self, conn: Connection, handle: int, name: str, package: bool):
        super().__init__(name)
        d = types.ModuleType.__dict__["__dict__"].__get__(self)
        d.update(_rpc_conn=conn, _rpc_handle=handle, _rpc_package=package)

    def __getattr__(self, name):
        __tracebackhide__ = True
        if name in _MODULE_LOCAL or _blocked(name) or (_is_dunder(name) and self._rpc_conn.broken is not None):
            raise AttributeError(f"module {self.__name__!r} has no attribute {name!r}")  # probes by inspect, pytest
        if name == "__all__":  # `from module import *`: the test's namespace stays the test's
            return _star_names(self, sys._getframe(1))
        value = _ask(self, "getattr", self, name)
        remote = type(value) in _REMOTE_TYPES
        if (remote or type(value) is ModuleProxy) and value._rpc_conn is self._rpc_conn:
            if self._rpc_imported():
                self._rpc_conn.under_test.read_from_module(value._rpc_handle, name)  # `Cache`, `mean`, a submodule
            if remote and value._rpc_origin is None:  # `from module import name`
                object.__setattr__(value, "_rpc_origin", (self.__name__, name))
                self._rpc_conn.origins.append(weakref.ref(value))
        return value

    def _rpc_imported(self) -> bool:
        """A module the tests imported or reached as such a module's attribute (`semver.version`),
        not one the model's code returned (UnderTest)."""
        return sys.modules.get(types.ModuleType.__getattribute__(self, "__name__")) is self or \
            self._rpc_conn.under_test.is_module(self._rpc_handle)

    def __setattr__(self, name, value):
        if _is_dunder(name) or name.startswith("_rpc"):
            types.ModuleType.__setattr__(self, name, value)
        elif type(value) is ModuleProxy and value.__name__ == f"{self.__name__}.{name}":
            pass  # the import system binding a submodule: the worker's own import already bound what Python binds
        else:
            _ask(self, "setattr", self, name, value)

    def __delattr__(self, name):
        if _is_dunder(name) or name.startswith("_rpc"):
            types.ModuleType.__delattr__(self, name)
        else:
            _ask(self, "delattr", self, name)

    def __dir__(self):
        return [n for n in _typed(_ask(self, "dir", self), (list,), "dir()") if type(n) is str]

    def __repr__(self):
        return f"<module {self.__name__!r} of the model's code, run in the worker>"

    def _rpc_rebind(self, fresh: "ModuleProxy") -> None:
        """Point at the same module in a new worker (the old one is gone)."""
        d = types.ModuleType.__dict__["__dict__"].__get__(self)
        d.update(_rpc_conn=fresh._rpc_conn, _rpc_handle=fresh._rpc_handle, _rpc_package=fresh._rpc_package)

    @property
    def __dict__(self):
        """The module's namespace read from the worker (monkeypatch reads old values here)."""
        return _RemoteNamespace(self)


def _star_names(module: ModuleProxy, importer) -> list[str]:
    """What `from module import *` may bind in the importing namespace: never a builtin (a
    model's `abs` or `range` would decide the test's checks), never a name the test bound before
    (its `approx`), never the name of a module."""
    names = _typed(_ask(module, "names", module), (list,), "names")
    taken = set(sys.stdlib_module_names) | set(sys.builtin_module_names) | {n.partition(".")[0] for n in sys.modules}
    taken |= set(vars(builtins)) | set(importer.f_globals) | set(importer.f_locals)
    return [n for n in names if type(n) is str and n.isidentifier() and not n.startswith(("_", *_PYTEST_MEANINGFUL))
            and n not in taken]


class _RemoteNamespace(MutableMapping):
    def __init__(self, module: ModuleProxy):
        self._module = module
        self._local = types.ModuleType.__dict__["__dict__"].__get__(module)

    def __getitem__(self, name):
        if type(name) is not str:
            raise KeyError(name)
        if name in self._local:
            return self._local[name]
        try:
            return _ask(self._module, "getattr", self._module, name)
        except AttributeError:
            raise KeyError(name) from None

    def __iter__(self):
        return iter(dir(self._module))

    def __len__(self):
        return len(dir(self._module))

    def __setitem__(self, name, value):
        setattr(self._module, name, value)

    def copy(self) -> dict:
        return {name: self[name] for name in self}

    def __delitem__(self, name):
        try:
            delattr(self._module, name)
        except AttributeError:
            raise KeyError(name) from None


class _MirrorMeta(type):
    """The type of the local mirrors of the other side's exception classes; class attributes
    that the mirror lacks are read from the real class."""

    def __getattr__(cls, name):
        if name.startswith("_"):
            raise AttributeError(name)
        return getattr(type.__getattribute__(cls, "_rpc_class"), name)


def _mirror_new(cls, *args, **kwargs):
    """Calling a mirror class (a test building the model's exception) builds the real one."""
    made = type.__getattribute__(cls, "_rpc_class")(*args, **kwargs)
    if isinstance(made, BaseException):
        return made
    raise TypeError(f"{cls.__name__}(...) did not make an exception in the model's code")


def _mirror_init(self, *args, **kwargs):
    pass


def _mirror_getattr(self, name):
    remote = self.__dict__.get("_rpc_remote")
    if remote is None or name.startswith("__") or _blocked(name):
        raise AttributeError(name)
    return getattr(remote, name)


def _mirror_str(self):
    remote = self.__dict__.get("_rpc_remote")
    if remote is not None:
        try:
            return str(remote)
        except RpcError:
            pass
    return BaseException.__str__(self)

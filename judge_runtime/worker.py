"""The worker: imports and runs the model's code for the judge, and nothing else. It starts
confined (bwrap and/or uid 65534, rlimits) and talks only over the pipes it is started with as
its stdin and stdout, which it moves to descriptors of its own (not inherited by anything it
starts) before any model code runs: fd 0 then reads nothing and fd 1 goes to the log, like fd 2,
which the model's code may write to at will. No descriptor numbers are passed (Windows has none
to pass).

argv: worker.py WORKSPACE. stdlib only (runs in the sandbox interpreter).
"""
import builtins
import gc
import os
import signal
import sys
import threading
import time
import types

OUTPUT_LIMIT = 1024 * 1024  # forwarded per message; the rest is cut


def _load_rpc():
    """rpc.py (our own file) under a private name, so a model module called `rpc` is still the
    model's. Its bytecode, if any, is our cache's (the pycache prefix we are started with)."""
    import importlib.util
    spec = importlib.util.spec_from_file_location("_judge_rpc", os.path.join(os.path.dirname(os.path.abspath(__file__)), "rpc.py"))
    module = importlib.util.module_from_spec(spec)
    sys.modules["_judge_rpc"] = module
    spec.loader.exec_module(module)
    return module


class Capture:
    """sys.stdout / sys.stderr while the model's code runs: what it prints goes to the judge
    with the next message, so a test's capsys sees it."""

    encoding, errors, name = "utf-8", "replace", "<captured>"

    def __init__(self, fd: int):
        self._parts: list = []
        self._size, self._cut, self._fd = 0, False, fd

    def write(self, text):
        if type(text) is not str:
            raise TypeError(f"write() argument must be str, not {type(text).__name__}")
        if self._size < OUTPUT_LIMIT:
            self._parts.append(text[:OUTPUT_LIMIT - self._size])
            self._size += len(self._parts[-1])
        self._cut |= self._size >= OUTPUT_LIMIT and len(text) > 0
        return len(text)

    def writelines(self, lines):
        for line in lines:
            self.write(line)

    def drain(self) -> str:
        text = "".join(self._parts) + ("\n[... output cut]\n" if self._cut else "")
        self._parts, self._size, self._cut = [], 0, False
        return text

    @property
    def buffer(self):
        return _Bytes(self)

    def flush(self):
        pass

    def isatty(self):
        return False

    def writable(self):
        return True

    def readable(self):
        return False

    def fileno(self):
        """The worker's own descriptor (its log), as pytest's capture hands out one: faulthandler.enable() works."""
        return self._fd

    def reconfigure(self, **settings):
        """`sys.stdout.reconfigure(encoding="utf-8")` in a CLI's main(): the text reaches the tests as text."""


class NoInput:
    """sys.stdin while the test has none of its own: as under pytest's capture, reading fails."""

    encoding, errors, name = "utf-8", "strict", "<stdin>"

    def read(self, *args):
        raise OSError("pytest: reading from stdin while output is captured!  Consider using `-s`.")

    readline = readlines = __next__ = read

    def __iter__(self):
        return self

    def fileno(self):
        import io
        raise io.UnsupportedOperation("redirected stdin is pseudofile, has no fileno()")

    def isatty(self):
        return False

    def close(self):
        pass


class _Bytes:
    def __init__(self, text):
        self._text = text

    def write(self, data):
        self._text.write(bytes(data).decode("utf-8", "replace"))
        return len(data)

    def flush(self):
        pass


# A test's patch of the standard library (judge_plugin.PATCHED) as the worker applies it: a
# function's patch is a _Patched, the test's object while the model's code runs (and any library it
# calls, any thread it starts) and the real one while the worker's own code does (rpc.RUNNING: its
# loop, its exchanges with the judge), so that its transport never runs the test's function (a test
# may make `pickle.loads` raise, or replace `select.select`). A class or a value is set as it is, but
# for those the worker's own functions read (rpc.reads_when_run): those the judge does not send,
# and the test fails (judge_plugin.UNFOLLOWED).
_UNSET = object()


class _Patched:
    """A test's patch of a function of the standard library, in the worker (see above)."""

    __slots__ = ("real", "patch")

    def __init__(self, real, patch):
        self.real, self.patch = real, patch

    def _now(self):
        return self.patch if sys.modules["_judge_rpc"].models_code_running() else self.real

    def __call__(self, *args, **kwargs):
        return self._now()(*args, **kwargs)

    def __getattr__(self, name):
        return getattr(self._now(), name)

    def __repr__(self):
        return repr(self._now())


def take_channel():
    """Our ends of the judge's pipes (stdin, stdout), moved off fds 0 and 1."""
    fd_in, fd_out = os.dup(0), os.dup(1)  # not inheritable (PEP 446)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.dup2(2, 1)
    os.close(null)
    return fd_in, fd_out


def _set(holder, name: str, value) -> None:
    if value is _UNSET:
        if name in vars(holder):
            delattr(holder, name)
    else:
        setattr(holder, name, value)


def _holder(module: str, name: str):
    """(the module, or the class in it, that holds `name`'s last part (`Path.home`), that part)."""
    holder = sys.modules.get(module) or __import__("importlib").import_module(module)
    *path, last = name.split(".")
    for part in path:
        holder = vars(holder)[part]
    return holder, last


def _bound(value, binding):
    """On a class, as it binds plain: a test's function as a method, its staticmethod, classmethod,
    property (sent as [fget, fset, fdel])."""
    if binding == "property":
        return property(*(None if function is None else _method(function) for function in list(value)[:3]))
    if binding == "property mock":
        return _CallsTheMock(value)
    return _method(value) if binding == "method" else staticmethod(value) if binding == "static" else \
        classmethod(_method(value)) if binding == "class" else value


class _CallsTheMock:
    """A test's mock.PropertyMock on a class: called to get (on the class too), with the value to set."""

    def __init__(self, mock):
        self.mock = mock

    def __get__(self, obj, owner=None):
        return self.mock()

    def __set__(self, obj, value):
        self.mock(value)


def _method(function):
    """A test's function set on a class binds as it would plain (the proxy of it would not)."""
    def method(*args, **kwargs):
        return function(*args, **kwargs)
    return method


def _depth() -> int:
    """How deep this thread's stack is here (the recursion limit is the room the test's leaves plus this)."""
    frame: "types.FrameType | None" = sys._getframe(1)
    depth = 0
    while frame is not None:
        frame, depth = frame.f_back, depth + 1
    return depth


# (decided here, not as they run: a test's patch of sys.platform is the model's code's, not ours)
_FD_FOLDER = "/proc/self/fd" if sys.platform == "linux" else "/dev/fd"


def _posix_readers() -> dict:
    """(worker._kept_readers) The interval timers, the signal mask, the priority, where this system
    has them (looked up once, at the worker's start)."""
    readers: dict = {}
    getitimer, sigmask, getpriority = (getattr(signal, "getitimer", None), getattr(signal, "pthread_sigmask", None),
                                       getattr(os, "getpriority", None))
    if getitimer is not None:
        timers = tuple(getattr(signal, name) for name in ("ITIMER_REAL", "ITIMER_VIRTUAL", "ITIMER_PROF"))
        readers["interval timers"] = lambda: tuple(getitimer(t) != (0.0, 0.0) for t in timers)
    if sigmask is not None:
        block = getattr(signal, "SIG_BLOCK")
        readers["signal mask"] = lambda: sigmask(block, ())
    if getpriority is not None:
        process = getattr(os, "PRIO_PROCESS")
        readers["priority (nice)"] = lambda: getpriority(process, 0)
    return readers


if sys.platform == "win32":
    _resource = None

    def _open_files():
        return None

    def _set_open_files(room) -> None:
        pass
else:
    try:
        import resource as _resource
    except ImportError:  # (a system without it, as the tests' simulated Windows)
        _resource = None  # type: ignore[assignment]

    def _open_files():
        if _resource is None:
            return None
        soft = _resource.getrlimit(_resource.RLIMIT_NOFILE)[0]
        return soft if soft >= 0 else None  # (RLIM_INFINITY: nothing to restore)

    def _set_open_files(room) -> None:
        """The open files limit: the room the test's leaves plus our open files (never above the hard limit)."""
        import resource
        soft, hard = max(int(room) + len(os.listdir(_FD_FOLDER)), 0), resource.getrlimit(resource.RLIMIT_NOFILE)[1]
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(soft, hard) if hard >= 0 else soft, hard))


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


_DEFAULT_DECIMAL = [28, "ROUND_HALF_EVEN", -999999, 999999, 1, 0, ["DivisionByZero", "InvalidOperation", "Overflow"]]


# Signals whose handlers the model's code may set (judge_plugin._take_signals: not taken, the test fails):
# every named one that has a handler to set
_WATCHED_SIGNALS = [int(s) for s in signal.Signals if s.name not in ("SIGKILL", "SIGSTOP")]
_GETSIGNAL = __import__("_signal").getsignal  # (the C function: no enum made of each answer; ours, not a patch's)


def signal_handlers() -> tuple:
    return tuple(map(id, map(_GETSIGNAL, _WATCHED_SIGNALS)))


def _kept_readers() -> dict:
    """Process state the judge cannot take into its own (judge_plugin._take_kept: a change still
    there at an answer fails the test; a plain run's tests would see it): one cheap read each,
    bound here at load (a test's patch of one of these functions is not our reading). What the
    verdict's plain run sees anyway and honest code changes for good (faulthandler, asyncio's
    policy: uvloop's install) is left out."""
    getswitch, getprofile, gettrace = sys.getswitchinterval, sys.getprofile, sys.gettrace
    environ0, environ_type0 = os.environ, type(os.environ)

    def hooks():
        threading_ = sys.modules.get("threading")
        return (getprofile() is not None, gettrace() is not None,
                getattr(threading_, "_profile_hook", None) is not None, getattr(threading_, "_trace_hook", None) is not None)

    readers = {"switch interval": getswitch, "profile or trace hook": hooks,
               "os.environ (rebound)": lambda: os.environ is environ0 and type(environ0) is environ_type0}
    readers.update(_posix_readers())
    if _resource is not None:
        getrlimit = _resource.getrlimit
        limits = [getattr(_resource, n) for n in sorted(dir(_resource))
                  if n.startswith("RLIMIT_") and n not in ("RLIMIT_NOFILE", "RLIMIT_OFILE")]  # ("files": its own part)
        readers["resource limits"] = lambda: [getrlimit(limit) for limit in limits]
    return readers


# Parts each thread has its own of: compared with what the answering thread had when its question came
# (a pool thread of the model's that blocks signals for itself is not a change of the call's).
_PER_THREAD = ("signal mask", "priority (nice)", "profile or trace hook")


_KEPT_READERS: dict = {}  # (made at the worker's start: main)


def kept_state(parts=None) -> dict:
    return {name: read() for name, read in _KEPT_READERS.items() if parts is None or name in parts}


def process_state(workspace: str, own_path: "list | None" = None, own_handlers: tuple = (), answer: bool = True,
                  own_kept: "dict | None" = None) -> dict:
    """What the model's code may change in this process that a plain run's tests would see in
    theirs (the same process there): the working directory (None: the workspace), the
    environment, the umask, argv, the collector's switch, the settings of judge_plugin._settings'
    modules where loaded; what it added to sys.path (not ours, not the tests'), whether it set a
    signal handler, which of _kept_readers' parts differ from `own_kept` (at an answer only,
    `answer`: a handler, path or timer set for a call's length is not kept)."""
    try:
        cwd = os.getcwd()
    except OSError:  # (a folder the model's code removed while in it)
        cwd = "?"
    calendar, socket = sys.modules.get("calendar"), sys.modules.get("socket")
    environ = os.environ  # (its raw data: one C copy and comparison per message, decoded only when changed)
    env = dict(environ._data if type(environ) is os._Environ else environ)  # type: ignore[attr-defined]
    return {"cwd": None if cwd == workspace else cwd, "env": env, "umask": _umask(), "argv": list(sys.argv),
            "gc": [gc.isenabled(), *gc.get_threshold()],
            **({"signals": bool(own_handlers) and signal_handlers() != own_handlers,
                "kept": sorted(name for name, value in kept_state().items() if value != own_kept[name]) if own_kept else [],
                "path": [str(e) for e in sys.path if e not in (own_path or ()) and not (
                    type(e) is str and os.path.normpath(e) == workspace)]} if answer else {}),  # (its own folder again)
            "recursion": sys.getrecursionlimit(), "files": _open_files(),
            "digits": sys.get_int_max_str_digits() if hasattr(sys, "get_int_max_str_digits") else None,
            "weekday": calendar.firstweekday() if calendar else None,
            "timeout": socket.getdefaulttimeout() if socket else None}


def state_changes(known: dict, now: dict) -> dict:
    """What differs in `now` from `known` (the environment as [name, value or None] pairs)."""
    changed = {key: value for key, value in now.items() if known.get(key) != value}
    if "env" in changed:
        before, after = _text(known.get("env", {})), _text(now["env"])
        changed["env"] = sorted([k, v] for k, v in after.items() if before.get(k) != v) + \
            sorted([k, None] for k in before if k not in after)
    return changed


def _text(env: dict) -> dict:
    """An environment's data as text (os.environ keeps bytes on POSIX)."""
    return {os.fsdecode(k): os.fsdecode(v) for k, v in env.items() if isinstance(k, (str, bytes))
            and isinstance(v, (str, bytes))}


def _import_through(tests_import, real_import, rpc):
    """builtins.__import__ while a test's own is in force (judge_plugin._import_for_the_model):
    the model's absolute imports ask it first; what it raises is the import's error, what it
    gives (a stub of the test's) the import's value, else the import is ours. Our own imports
    (rpc's, the settings') never ask it."""
    def __import__(name, globals=None, locals=None, fromlist=(), level=0):
        if level == 0 and type(name) is str and rpc.models_code_running():
            given = tests_import(name, [str(n) for n in fromlist or () if type(n) is str], 0)
            if given is not None:
                return given
        return real_import(name, globals, locals, fromlist, level)
    return __import__


def apply_patches(conn, entries: list, originals: dict) -> None:
    """The test's patches of the standard library in force ([module, name, value, how it binds]);
    those it undid, back to what they were here (`originals`)."""
    wanted = {}
    for entry in entries:
        module, name = str(entry[0]), str(entry[1])
        if module != "builtins":  # (a library's: judge_plugin._library)
            value = conn.decode_value(entry[2]) if len(entry) > 2 else _UNSET
            wanted[(module, name)] = _bound(value, entry[3] if len(entry) > 3 else None)
    for key in list(originals):
        if key not in wanted:
            holder, last = _holder(*key)
            _set(holder, last, originals.pop(key))
    for (module, name), value in wanted.items():
        holder, last = _holder(module, name)
        real = originals.setdefault((module, name), vars(holder).get(last, _UNSET))
        if type(holder) is type(sys) and callable(real) and not isinstance(real, type) and value is not _UNSET:
            _set(holder, last, _Patched(real, value))
        else:  # (a class's attribute; or what our functions read, which the judge never sends)
            _set(holder, last, value)


def main():
    fd_in, fd_out = take_channel()
    rpc = _load_rpc()
    workspace = sys.argv[1]
    sys.path[0] = workspace  # the workspace first, as `python -m pytest` run there would have it
    os.chdir(workspace)
    sys.argv = [os.path.join(workspace, "__judged__")]
    base_env, base_argv, base_stdin = dict(os.environ), list(sys.argv), NoInput()
    base_builtins, test_patched = dict(vars(builtins)), set()
    base_umask = os.umask(0o022)
    os.umask(base_umask)
    originals: dict = {}  # (module, attribute) -> its value before the tests' first patch of it here
    base_files = _open_files()
    path_added: list = []  # what the tests added to sys.path, here too
    unblocked: dict = {}  # a module name the test blocks -> what sys.modules held for it here
    out, err = Capture(1), Capture(2)
    __import__("faulthandler").enable()  # (on our stderr, the log: pytest's own plugin turns it on in a plain run)
    sys.stdout, sys.stderr, sys.stdin = out, err, base_stdin

    base_path, base_handlers = list(sys.path), signal_handlers()
    _KEPT_READERS.update(_kept_readers())  # (not sys.stdout: pytest's capture puts it back between tests, plain)
    base_kept = kept_state()

    def state(answer=True):
        at_question = getattr(this_thread, "kept", None)
        return process_state(workspace, base_path + path_added, base_handlers, answer,
                             {**base_kept, **at_question} if at_question else base_kept)

    this_thread = threading.local()  # (the decimal context the judge last gave this thread, how many of its questions
    #                                    it serves, its own kept parts when its question came)
    known = state()  # the state as the judge knows it (it sent it, or we told it)
    import random
    known_random, diverged = [random._inst.getstate()], [False]  # (the module's one generator, as the judge has it)

    def outgoing(msg):
        for key, stream in (("o", out), ("x", err)):
            text = stream.drain()
            if text:
                msg[key] = text
        now = state(answer="r" in msg)  # (a callback's question: a handler or path set for the call's length is not kept)
        changes = state_changes(known, now)
        decimal, seen = sys.modules.get("decimal"), getattr(this_thread, "settings", None)
        seen = _DEFAULT_DECIMAL if seen is None else seen  # (decimal imported since: the judge's is the default)
        serving = getattr(this_thread, "serving", 0)  # (a thread of the model's own: its context is its own)
        if decimal is not None and serving and rpc._values.decimal_settings(decimal.getcontext()) != seen:
            this_thread.settings = changes["decimal"] = rpc._values.decimal_settings(decimal.getcontext())
        if "r" in msg and serving:
            this_thread.serving = serving - 1
        rng = sys.modules["random"]._inst if "random" in sys.modules else None
        if diverged[0]:  # (a thread of the model's drew while the test did: two streams now)
            diverged[0], known_random[0] = False, rng.getstate()
            changes["random"] = "diverged"
        elif rng is not None and rng.getstate() != known_random[0]:  # (the model's code drew, seeded or set it)
            known_random[0] = rng.getstate()
            changes["random"] = rpc._values.random_state(rng)
        if changes:  # the model's code changed its process: in a plain run, the tests' too
            known.update(now)
            msg["t"] = changes

    def follow(msg):
        """Follow the test's process state a question (or a reply to a callback) carries; what it
        is then is what the judge knows."""
        if "q" in msg:  # (this thread serves the judge's question until it answers: the test's thread, there)
            this_thread.serving = getattr(this_thread, "serving", 0) + 1
            this_thread.kept = kept_state(_PER_THREAD)
        if "s" not in msg and hasattr(this_thread, "settings"):
            return  # (nothing changed on the test's side since this thread last looked)
        state_sent = msg.get("s") if isinstance(msg.get("s"), dict) else {}
        unreported = state_changes(known, state())  # (a thread of the model's, or its code before this callback)
        follow_state(state_sent)
        if "env" in unreported:  # the test's changes on top of the model's, as in one process
            set_by_the_test = {k for k, _ in state_sent.get("env") or ()}
            for name, value in unreported["env"]:
                if name not in set_by_the_test:
                    os.environ.pop(name, None) if value is None else os.environ.__setitem__(name, value)
        before = dict(known)
        known.update(state())
        known.update((key, before.get(key)) for key in unreported)  # (still to report, with the next message)
        decimal = sys.modules.get("decimal")
        this_thread.settings = rpc._values.decimal_settings(decimal.getcontext()) if decimal else None

    def follow_state(state):
        """The test's process state: cwd, environment, argv, stdin, patches, settings."""
        if not isinstance(state, dict):
            return
        if "cwd" in state:
            os.chdir(state["cwd"] or workspace)
        if "env" in state:
            os.environ.clear()
            os.environ.update(base_env)
            for key, value in state["env"]:
                if value is None:
                    os.environ.pop(key, None)
                else:
                    os.environ[key] = value
            if hasattr(time, "tzset"):
                time.tzset()  # (TZ as the test set it: time.localtime in the model's code follows)
        if "argv" in state:
            sys.argv[:] = state["argv"] if state["argv"] is not None else base_argv
        if "stdin" in state:
            sys.stdin = base_stdin if state["stdin"] is None else conn.decode_value(state["stdin"])
        if "random" in state:  # (the module's generator: one with the test's, as in a plain run)
            diverged[0] = not state.get("random_reset") and random._inst.getstate() != known_random[0]  # (drawn meanwhile)
            rpc._values.set_random_state(random._inst, state["random"])
            known_random[0] = random._inst.getstate()
        if "builtins" in state:  # the test's patches of builtins (its mock of print); those it undid, back
            patched = dict((name, conn.decode_value(value)) for name, value in state["builtins"])
            for name in test_patched - set(patched):
                if name in base_builtins:
                    setattr(builtins, name, base_builtins[name])
                elif hasattr(builtins, name):
                    delattr(builtins, name)
            for name, value in patched.items():
                setattr(builtins, name, _import_through(value, base_builtins["__import__"], rpc)
                        if name == "__import__" else value)
            test_patched.clear()
            test_patched.update(patched)
        if "patches" in state:
            apply_patches(conn, state["patches"], originals)
        if "path" in state:  # the tests' additions to sys.path, before and after the entries it started with
            sys.path[:] = [entry for entry in sys.path if entry not in path_added]  # (the model's own stay)
            front, back = ([str(e) for e in part if str(e) not in sys.path] for part in state["path"])
            sys.path[0:0], path_added[:] = front, front
            sys.path.extend(back)
            path_added.extend(back)
        if "modules" in state:  # (judge_plugin.Worker._modules)
            for name, module in state["modules"]:
                if module is None:
                    sys.modules.pop(str(name), None)
                else:
                    sys.modules[str(name)] = conn.decode_value(module)
        if "blocked" in state:  # `mock.patch.dict(sys.modules, {"yaml": None})`: the model's `import yaml` fails
            for name, module in unblocked.items():
                if module is None:
                    sys.modules.pop(name, None)
                else:
                    sys.modules[name] = module
            unblocked.clear()
            for name in map(str, state["blocked"]):
                unblocked[name] = sys.modules.get(name)
                sys.modules[name] = None
        if "settings" in state:  # (judge_plugin._settings)
            weekday, timeout, umask, room, digits, decimal_context, files, collector = state["settings"]
            (gc.enable if collector[0] else gc.disable)()
            gc.set_threshold(*map(int, collector[1:]))
            if weekday is not None:
                __import__("calendar").setfirstweekday(int(weekday))
            __import__("socket").setdefaulttimeout(None if timeout is None else float(timeout))
            os.umask(base_umask if umask is None else int(umask) & 0o777)
            sys.setrecursionlimit(max(int(room) + _depth() + 3, 50))
            if digits is not None and hasattr(sys, "set_int_max_str_digits"):
                sys.set_int_max_str_digits(int(digits))
            if decimal_context is not None:
                rpc._values.set_decimal_settings(decimal_context)
            if files is not None:
                _set_open_files(files)
            elif base_files is not None and _open_files() != base_files:
                _set_open_files(base_files - len(os.listdir(_FD_FOLDER)))

    conn = rpc.Connection(open(fd_in, "rb"), open(fd_out, "wb"), guarded=False, outgoing=outgoing, follow=follow)
    conn.send_hello()
    conn.serve_forever()


if __name__ == "__main__":
    main()

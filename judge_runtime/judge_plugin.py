"""pytest plugin of the judge: the process that runs the trusted tests and never the model's code.

Loaded with `-p judge_plugin` before any conftest or test module. It installs an import hook:
a top-level module the workspace provides (name.py or a package folder) is imported in the
worker, a separate confined process, and the tests get a proxy of it (rpc.ModuleProxy). The
worker is started on the first such import, with the argv, environment and limits the agent
prepared (JSON in JUDGE_SPEC), and killed, with everything it started, before the JUnit report
is written. stdlib + pytest only: this runs in the sandbox interpreter.
"""
from __future__ import annotations

import _codecs
import ast
import builtins
import codecs
import collections.abc
import concurrent.futures.thread
import ctypes
import dis
import fnmatch
import gc
import importlib.machinery
import importlib.util
import inspect
import io
import json
import linecache
import multiprocessing.pool
import operator
import os
import pickle
import random
import signal
import socket
import stat
import subprocess
import sys
import sysconfig
import threading
import time
import types
import unittest
import unittest.mock

import pytest

_HERE = os.path.dirname(os.path.abspath(__file__))
NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)  # none on Windows
PR_SET_DUMPABLE, PR_SET_CHILD_SUBREAPER = 4, 36
PYTEST_FAMILY = {"pytest", "_pytest", "pluggy", "iniconfig", "packaging", "py", "exceptiongroup", "tomli",
                 "pygments", "colorama", "conftest", "judge_plugin", "_judge_rpc", "_judge_rpc_values",
                 "_judge_rpc_policy", "_judge_sweep"}


def _load(name: str, private: str):
    """Our own file under a private name (a model module called `rpc` stays the model's)."""
    spec = importlib.util.spec_from_file_location(private, os.path.join(_HERE, f"{name}.py"))
    module = importlib.util.module_from_spec(spec)
    sys.modules[private] = module
    spec.loader.exec_module(module)
    return module


rpc = _load("rpc", "_judge_rpc")
sweep = _load("sweep", "_judge_sweep")
# Nothing of ours stays importable by name: a model module called `rpc` or `worker` is the model's.
sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != _HERE]
sys.dont_write_bytecode = True
SPEC = json.loads(os.environ.pop("JUDGE_SPEC"))


def _prctl(option: int, value: int) -> None:
    if sys.platform != "linux":
        return
    try:
        ctypes.CDLL(None, use_errno=True).prctl(option, value, 0, 0, 0)
    except (OSError, AttributeError, TypeError):  # no prctl in this C library
        pass


# A worker running as our own uid must not ptrace us or read our memory; its orphans (setsid,
# double fork) become our children, so stopping the worker stops all of them.
_prctl(PR_SET_DUMPABLE, 0)
_prctl(PR_SET_CHILD_SUBREAPER, 1)


def _names(folder: str, deep: bool) -> set[str]:
    """Module names a folder provides: name.py files and package folders."""
    found = set()
    for root, dirs, files in os.walk(folder):
        for name in files:
            if name.endswith(".py") and name[:-3].isidentifier():
                found.add(name[:-3])
        if root == folder:
            found.update(d for d in dirs if d.isidentifier() and d != "__pycache__")
        if not deep:
            break
    return found


def workspace_modules(workspace: str, tests: str) -> tuple[set[str], set[str]]:
    """What the worker imports for the tests: the workspace's top-level modules, except the
    stdlib (it wins, as in any Python process), names the trusted tests provide themselves, and
    what the judge itself runs on or finds installed: pytest and its kin (packaging, pluggy ...)
    and installed libraries. Those win in the judge; the second set names the workspace modules
    they shadow, which a trusted test may not import (ShadowFinder)."""
    own = {"conftest", "judge_plugin", "_judge_rpc", "_judge_rpc_values", "_judge_rpc_policy", "_judge_sweep"}
    candidates = _names(workspace, deep=False) - set(sys.stdlib_module_names) - set(sys.builtin_module_names) \
        - own - _names(tests, deep=True)
    loaded = {name.partition(".")[0] for name in sys.modules} | PYTEST_FAMILY
    elsewhere = [p for p in sys.path if p and os.path.abspath(p) not in (os.path.abspath(tests), _HERE)]
    shadowed = {n for n in candidates if n in loaded or importlib.machinery.PathFinder.find_spec(n, elsewhere)
                or _test_library(n)}
    return candidates - shadowed, shadowed


# Libraries that run tests (their decorators call the test's body, their fixtures hand it
# values): a module of the workspace never answers for one, installed or not (a `given` of the
# model's code would decide which examples a test sees, or never call it).
TEST_LIBRARIES = frozenset({"hypothesis", "pytest", "_pytest", "pluggy", "mock", "freezegun", "responses", "pretend",
                            "faker", "factory", "parameterized", "testfixtures", "time_machine", "syrupy", "nose",
                            "nose2", "unittest2", "pyfakefs", "requests_mock", "respx", "trustme", "xdist",
                            # assertion libraries: the test's check would be a call of the model's code
                            "assertpy", "hamcrest", "sure", "expects", "dirty_equals", "deepdiff", "approvaltests",
                            "snapshottest", "inline_snapshot", "grappa", "testtools", "flexmock", "doublex",
                            "mockito", "callee", "asynctest"})


def _test_library(name: str) -> bool:
    return name in TEST_LIBRARIES or name.startswith(("pytest_", "pytest-"))


# ---------------------------------------------------------------------------------------------

def kill_descendants() -> None:
    sweep.kill_tree(os.getpid(), set())


TESTS_DIR = os.getcwd()
# Where no link may lead a test's file access: the judge's own folder (the tests, their data,
# the record) and /proc (the judge's environment and memory). The model's code can plant a link
# in tmp_path; a test that reads "its" file back would hand the hidden tests to the model's code.
_NO_LINK_INTO = (os.path.dirname(TESTS_DIR) + os.sep, "/proc/")


def _leads_in(given: str, real: str) -> bool:
    """A path that does not name the judge's own files but arrived at them (through a link)."""
    given, real = given + os.sep, real + os.sep
    return any(real.startswith(private) and not given.startswith(private) for private in _NO_LINK_INTO)


def _counted(refusal: BaseException) -> None:
    """A refusal of the audit hooks while the judge acts for the model's code: the test's failure,
    whoever catches it, and never released as the error a test expects (rpc_policy.REFUSALS)."""
    if rpc.acting_for_the_model():
        rpc._policy.REFUSALS.add(refusal)
        rpc._policy._keep_failure(refusal)


def _refuse_links_into_the_judge(event: str, args: tuple) -> None:
    """Before an open: where the path leads now. A link swapped in after this check (a race) is
    caught by _checked_open where the file is opened through open() or os.open()."""
    try:
        if event not in ("open", "os.listdir", "os.scandir") or not args or not isinstance(args[0], (str, bytes)):
            return
        path = os.fsdecode(args[0])
        if _leads_in(os.path.abspath(path), os.path.realpath(path)):
            raise PermissionError(f"{path}: a link from outside leads into the judge's own files; refused")
    except BaseException as refusal:  # (no frame of its own around the checks: they count frames)
        _counted(refusal)
        raise


# What the judge never does for the model's code, while it answers one of its questions (the
# model's code calls a method of an object a test handed it, a zipfile, a sqlite3 connection, or a
# test's callback): read its own folder or /proc, load a library, start a process but through
# JudgedPopen (confined), run code from a string. And never, for anyone: replace itself (exec) or
# start a process unconfined (posix_spawn).
_NEVER = frozenset({"os.exec", "os.posix_spawn", "os.spawn"})
_NOT_FOR_THE_MODEL = frozenset({"os.fork", "os.forkpty", "ctypes.dlopen", "ctypes.dlsym", "ctypes.call_function",
                                "compile", "exec", "os.putenv", "os.unsetenv"})
_PATHS_FIRST = frozenset({"open", "os.listdir", "os.scandir", "os.chmod", "os.chown", "os.rename", "os.remove",
                          "os.rmdir", "os.mkdir", "os.symlink", "os.link", "os.truncate", "os.utime", "shutil.rmtree",
                          "shutil.copyfile", "shutil.copytree", "shutil.move", "os.mkfifo", "os.mknod"})  # paths first
_WRITES = _PATHS_FIRST - {"open", "os.listdir", "os.scandir"}
_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND
# Where nothing is written while the tests run, whoever asks: the tests' folder (their code and
# data), every folder the judge imports code from (sys.path: a file planted there, by a tarball a
# test extracts or a path the model's code names, would run in the judge), and the files of the
# judge's own folder (its record).
_NO_WRITES_INTO = tuple(sorted({os.path.realpath(p) + os.sep for p in (TESTS_DIR, _HERE, SPEC["mp_tmp"], *sys.path)
                                if p and os.path.isdir(p)}))  # (mp_tmp: multiprocessing's sockets, never a test's file)
_JUDGE_DIR = os.path.realpath(os.path.dirname(TESTS_DIR))


def _private(path: str) -> bool:
    for where in (os.path.abspath(path), os.path.realpath(path)):
        if any((where + os.sep).startswith(private) for private in _NO_LINK_INTO):
            return True
    return False


def _writes_into_the_judge(event: str, args: tuple) -> bool:
    if event == "open":
        mode, flags = (args + (None, None))[1:3]
        if not ((isinstance(mode, str) and set(mode) & set("wax+")) or (isinstance(flags, int) and flags & _WRITE_FLAGS)):
            return False
    elif event not in _WRITES:
        return False
    for path in _paths(event, args, made=True):
        for where in (os.path.abspath(path), os.path.realpath(path)):
            if (where + os.sep).startswith(_NO_WRITES_INTO) or (os.path.dirname(where) == _JUDGE_DIR
                                                                 and not os.path.isdir(where)):
                return True
    return False


def _paths(event: str, args: tuple, made: bool = False) -> list[str]:
    """The paths an event of _PATHS_FIRST acts on (open's second argument is its mode; made: of
    a link, only where it is made, as it may point anywhere); a relative one given with a dir_fd
    (shutil.rmtree's os.remove(name, dir_fd=...)) joined to where that descriptor is."""
    given = args[:1] if event in ("open", "os.listdir", "os.scandir") else \
        args[1:2] if made and event == "os.symlink" else args[:2]
    offset = 1 if made and event == "os.symlink" else 0
    paths = []
    for index, p in enumerate(given, offset):
        if not isinstance(p, (str, bytes, os.PathLike)):
            continue
        path = os.fsdecode(p)
        fd_at = _DIR_FD_ARGUMENT.get(event, {}).get(index)
        dir_fd = args[fd_at] if fd_at is not None and fd_at < len(args) else None
        if type(dir_fd) is int and dir_fd >= 0 and not os.path.isabs(path):  # (-1: none given)
            try:
                path = os.path.join(os.readlink(f"/proc/self/fd/{dir_fd}"), path)
            except OSError:  # no /proc (macOS, Windows): relative to the working folder, as before
                pass
        paths.append(path)
    return paths


# Where an audit event gives the dir_fd a path argument is relative to: event -> {path index: dir_fd index}.
_DIR_FD_ARGUMENT = {"os.remove": {0: 1}, "os.rmdir": {0: 1}, "os.mkdir": {0: 2}, "os.chmod": {0: 2},
                    "os.chown": {0: 3}, "os.utime": {0: 3}, "os.rename": {0: 2, 1: 3}, "os.link": {0: 2, 1: 3},
                    "os.symlink": {1: 2}, "os.mkfifo": {0: 2}, "os.mknod": {0: 3}}


def _reads_a_tests_source(args: tuple) -> bool:
    """A test's source file opened while the tests run, other than by the import system (a
    helper module imported late): pytest and inspect have their lines from linecache, filled at
    the session's start. A path the model's code returned can name them; a test has no need to."""
    if not args or not isinstance(args[0], (str, bytes, os.PathLike)):
        return False
    path = os.path.realpath(os.fsdecode(args[0]))
    if not path.startswith(TESTS_DIR + os.sep) or not path.endswith((".py", ".pyc")):
        return False
    return not _loading_code()


def _loading_code() -> bool:
    """An open on behalf of the import system or pytest's assertion rewriter (a test module,
    conftest, or a helper module imported late), found among the callers of the audit hook."""
    frame = sys._getframe(3)  # (0: here, 1: the check, 2: the audit hook, 3: what opened the file)
    for _ in range(6):
        if frame is None:
            return False
        code = frame.f_code
        if (code.co_name == "get_data" and code.co_filename.startswith("<frozen importlib")) \
                or (code.co_name == "_rewrite_test" and code.co_filename.endswith(os.path.join("_pytest", "assertion",
                                                                                              "rewrite.py"))):
            return True
        frame = frame.f_back
    return False


def _loads_code_from_elsewhere(args: tuple) -> bool:
    """The import system opens a file outside the folders the judge takes code from (the tests'
    folder, the standard library, installed libraries): a module the model's code wrote into
    tmp_path (spec_from_file_location, sys.path.insert) would run in the judge."""
    if not args or not isinstance(args[0], (str, bytes, os.PathLike)):
        return False
    path = os.path.realpath(os.fsdecode(args[0]))
    return not path.startswith(_NO_WRITES_INTO) and _loading_code()


# Who may run code made from text while the tests run: the makers of code from their own
# templates and identifiers (dataclasses, namedtuple, mock's autospec, Hypothesis), and pytest's
# skipif/xfail conditions written in the tests' source (_condition_from_the_tests). Everything
# else that evaluates text (typing's string annotations, logging.config, doctest, timeit, site's
# .pth lines, py.path's pyimport, a template engine) would evaluate the model's text in the judge.
_TEMPLATE_MAKERS = ("dataclasses", "collections", "unittest.mock", "enum", "_pytest.skipping", "hypothesis.")
_TRUSTED_CODE = _NO_WRITES_INTO  # where the judge takes modules from (nothing is written there while tests run)


def _runs_a_string(args: tuple) -> bool:
    """A code object run (exec, eval) or made a function (types.FunctionType(code, globals),
    f.__code__ = code) that is neither a module loaded from the tests' folder or the libraries
    (judged by the module's origin, never by the file name its code claims: a .pyc carries any)
    nor made by a template maker above: exec(codegen.render()), eval(repr(x)), doctest of the
    model's module, a module from a zip the model's code built, a function logging.config or a
    pickle makes from compile() or marshal.loads of the model's text. It may be the model's output,
    and it would run in the judge."""
    if not args or not isinstance(args[0], types.CodeType):
        return False
    module = _module_being_loaded()
    if module is not None:
        spec = getattr(module, "__spec__", None)
        origin = getattr(spec, "origin", None)
        if origin == "frozen" and getattr(spec, "loader", None) is importlib.machinery.FrozenImporter:
            return False
        return not (isinstance(origin, str) and os.path.isabs(origin)
                    and os.path.realpath(origin).startswith(_TRUSTED_CODE))
    maker = sys._getframe(2).f_globals.get("__name__") or ""  # (0: here, 1: the audit hook, 2: who ran it)
    return not (maker in _TEMPLATE_MAKERS or maker.startswith(tuple(m for m in _TEMPLATE_MAKERS if m.endswith("."))))


def _module_being_loaded():
    """The module whose code an import system's exec_module (importlib's, zipimport's, pytest's
    assertion rewriter's) is running, found among the callers of the audit hook; else None."""
    frame = sys._getframe(3)  # (0: here, 1: the check, 2: the audit hook, 3: who ran exec)
    for _ in range(4):
        if frame is None:
            return None
        if frame.f_code.co_name == "exec_module" and isinstance(frame.f_locals.get("module"), types.ModuleType):
            return frame.f_locals["module"]
        frame = frame.f_back
    return None


def _imports_from_elsewhere(args: tuple) -> bool:
    """An extension module (or any module the import system names a file for) from outside the
    folders the judge takes code from: a .so the model's code wrote would run native code here."""
    path = args[1] if len(args) > 1 else None
    return isinstance(path, (str, bytes, os.PathLike)) and \
        not os.path.realpath(os.fsdecode(path)).startswith(_TRUSTED_CODE)


def _condition_from_the_tests(item, mark, condition):
    """pytest evaluates a skipif/xfail condition given as a string: only one written in the
    tests' source (a string from the model's module, `skipif(IS_WINDOWS)`, would run in the judge)."""
    if isinstance(condition, str):
        source = "".join(linecache.getlines(str(getattr(item, "path", "")) or ""))
        if condition not in source:
            pytest.fail(f"a {mark.name} condition given as a string that the tests' source does not hold "
                        f"is not evaluated in the judge: {condition[:80]!r}", pytrace=False)
    return _EVALUATE_CONDITION(item, mark, condition)


def _loads_a_library_the_model_could_write(event: str, args: tuple) -> bool:
    """sqlite3 extensions are never enabled in the judge (SQL's own load_extension() raises no
    event); a library by path only from a folder the worker cannot write (not the stage, not a
    world-writable folder such as /tmp)."""
    if event == "sqlite3.enable_load_extension":
        return bool(args[1:2] and args[1])
    if event == "sqlite3.load_extension":
        return True
    if event != "ctypes.dlopen" or not args or not isinstance(args[0], (str, bytes)) or "/" not in os.fsdecode(args[0]):
        return False
    real = os.path.realpath(os.fsdecode(args[0]))
    if real.startswith(os.path.dirname(os.path.dirname(TESTS_DIR)) + os.sep):
        return True
    folder = os.path.dirname(real)
    while True:
        try:
            if os.stat(folder).st_mode & stat.S_IWOTH:
                return True
        except OSError:
            return True
        if folder == os.path.dirname(folder):
            return False
        folder = os.path.dirname(folder)


# Events no rule below refuses, raised several times in every call into the model's code (each id(),
# each read of a code object's or frame's attribute): answered first.
_NEVER_REFUSED = frozenset({"builtins.id", "object.__getattr__"})


def _refuse_for_the_model(event: str, args: tuple) -> None:
    """The judge's audit hook: what it never does while the tests run (the rules above, each
    named after what it keeps out), and what it never does for the model's code."""
    if event in _NEVER_REFUSED:
        return
    try:
        if event in _NEVER:
            raise PermissionError(f"the judge does not run {event} (a test's commands run confined: subprocess, os.system)")
        if _TESTS_RUNNING and event == "open" and _reads_a_tests_source(args):
            raise PermissionError(f"{os.fsdecode(args[0])}: the tests' own code is not read while they run (a path the "
                                  f"model's code named?); their data files are")
        if _TESTS_RUNNING and event == "open" and _loads_code_from_elsewhere(args):
            raise ImportError(f"{os.fsdecode(args[0])}: the judge imports code only from the tests' folder and the "
                              f"libraries (a module the model's code wrote would run in the judge)")
        if _TESTS_RUNNING and event == "import" and _imports_from_elsewhere(args):
            raise ImportError(f"{os.fsdecode(args[1])}: the judge imports code only from the tests' folder and the libraries")
        if _TESTS_RUNNING and event in ("exec", "function.__new__") and _runs_a_string(args):
            raise PermissionError("the judge does not run code a test builds from text (exec, eval, doctest, a function "
                                  "made from a code object): it may be the model's output, and it would run outside the worker")
        if _TESTS_RUNNING and event == "object.__setattr__" and args[1:2] == ("__code__",) and _runs_a_string(args[2:]):
            raise PermissionError("the judge does not give a function code a test builds from text (f.__code__ = ...)")
        if _TESTS_RUNNING and event == "ctypes.dlsym" and isinstance(args[1:2] and args[1], str) \
                and args[1].startswith(("Py", "_Py")):
            raise PermissionError(f"the judge does not reach Python's C API through ctypes ({args[1]}): it runs code "
                                  f"objects with no audit event")
        own = event == "open" and os.fsdecode(args[0]) in _OWN_FILES if args and isinstance(args[0], (str, bytes)) else False
        if _TESTS_RUNNING and _writes_into_the_judge(event, args) and not own:
            raise PermissionError(f"{event} {args[:2]!r}: nothing is written into the tests' folder or where the judge "
                                  f"imports code from")
        if _loads_a_library_the_model_could_write(event, args):
            raise PermissionError(f"{event}: the judge loads no library the model's code could have written")
        if not rpc.acting_for_the_model():
            return
        if event in _NOT_FOR_THE_MODEL:
            raise PermissionError(f"refused in the judge while it acts for the model's code: {event}")
        if event in _PATHS_FIRST:
            for path in _paths(event, args):
                if _private(path):
                    raise PermissionError(f"{path}: the judge's own files; refused while it acts for the model's code")
    except BaseException as refusal:  # (no frame of its own around the checks: they count frames)
        _counted(refusal)
        raise


_TESTS_RUNNING = False  # from the session's start to its end (then the judge writes its record)
_OWN_FILES = {SPEC["log"]}  # the judge writes it itself while the tests run (a new worker's log)
sys.addaudithook(_refuse_links_into_the_judge)
sys.addaudithook(_refuse_for_the_model)
REAL_OPEN, REAL_OS_OPEN = builtins.open, os.open


def _check_opened(fd: int, path, dir_fd=None) -> int:
    """After the open: the file the kernel really opened (/proc/self/fd), so no race is left."""
    try:
        base = os.readlink(f"/proc/self/fd/{dir_fd}") if dir_fd is not None else os.getcwd()
        real = os.readlink(f"/proc/self/fd/{fd}")
    except OSError:  # no /proc (macOS, Windows): the audit hook's check is all there is
        return fd
    if _leads_in(os.path.normpath(os.path.join(base, os.fsdecode(path))), real):
        os.close(fd)
        raise PermissionError(f"{os.fsdecode(path)}: a link from outside leads into the judge's own files; refused")
    return fd


def _checked_os_open(path, flags, mode=0o777, *, dir_fd=None):
    return _check_opened(REAL_OS_OPEN(path, flags, mode, dir_fd=dir_fd), path, dir_fd)


def _checked_open(file, mode="r", buffering=-1, encoding=None, errors=None, newline=None, closefd=True, opener=None):
    if isinstance(file, int):
        return REAL_OPEN(file, mode, buffering, encoding, errors, newline, closefd, opener)

    def checked(path, flags):
        return _check_opened(opener(path, flags) if opener else REAL_OS_OPEN(path, flags, 0o666), path)

    try:
        return REAL_OPEN(file, mode, buffering, encoding, errors, newline, closefd, checked)
    except PermissionError:
        if opener is not None or set(str(mode)) & set("wax+") or WORKER.conn is None:
            raise
        return _read_by_the_worker(file, mode, encoding, errors, newline)


def _read_by_the_worker(file, mode, encoding, errors, newline):
    """A file the model's code made its own (0600, or under a test's umask 077): its user is the
    worker's, not ours, so the worker reads it for the test (what it holds is the model's answer
    anyway, as in a plain run)."""
    __tracebackhide__ = True
    try:
        data = WORKER.conn.request("read", os.path.abspath(os.fsdecode(file)))
    except Exception:  # noqa: BLE001 - the test sees our own PermissionError, as before
        data = None
    if type(data) is not bytes:
        raise PermissionError(13, "Permission denied", os.fsdecode(file))
    if "b" in str(mode):
        return io.BytesIO(data)
    return io.TextIOWrapper(io.BytesIO(data), encoding=encoding, errors=errors, newline=newline)


# A folder or file the model's code made its own user's alone (`tempfile.mkdtemp(dir=tmp_path)`: 0700)
# cannot be looked into by us (another user), where a plain run can: os.path.exists says False,
# rglob and os.walk skip it, so "nothing was left behind" would pass. A refusal of os.stat, lstat,
# scandir or listdir on a path of the worker's user's, met by the tests' code (not ours), fails the
# test (HIDDEN; a read of such a file is the worker's: _read_by_the_worker).
HIDDEN: set = set()
_STDLIB = sysconfig.get_paths()["stdlib"] + os.sep


def _refused_by_the_model(path) -> None:
    if type(path) not in (str, bytes) and not isinstance(path, os.PathLike) or SPEC.get("uid", -1) < 0:
        return
    frame = sys._getframe(2)
    while frame is not None and frame.f_code.co_filename.startswith(_STDLIB):
        frame = frame.f_back
    if frame is None or frame.f_code.co_filename.startswith(os.path.join(_HERE, "")):
        return  # (our own walk: hand_over_tmp)
    place = os.path.abspath(os.fsdecode(path))
    while True:
        try:
            owner = REAL_LSTAT(place).st_uid
            break
        except OSError:
            if os.path.dirname(place) == place:
                return
            place = os.path.dirname(place)
    if owner == SPEC.get("uid"):
        HIDDEN.add(place)


def _noting_refusals(real):
    def call(path=".", *args, **kwargs):
        try:
            return real(path, *args, **kwargs)
        except PermissionError:
            _refused_by_the_model(path)
            raise
    for name in ("__name__", "__qualname__", "__doc__"):
        setattr(call, name, getattr(real, name))
    return call


REAL_LSTAT = os.lstat
if sys.platform == "linux":
    os.stat, os.lstat, os.scandir, os.listdir = map(_noting_refusals, (os.stat, os.lstat, os.scandir, os.listdir))

if sys.platform == "linux":  # (before BUILTINS0: our open is the tests' starting builtin, not a patch of theirs)
    for _name in ("__name__", "__qualname__", "__doc__"):
        setattr(_checked_open, _name, getattr(REAL_OPEN, _name))
    builtins.open = io.open = _checked_open
    os.open = _checked_os_open


_DRAWS = ("random", "uniform", "triangular", "randint", "choice", "randrange", "sample", "shuffle", "choices",
          "normalvariate", "lognormvariate", "expovariate", "vonmisesvariate", "gammavariate", "gauss",
          "betavariate", "paretovariate", "weibullvariate", "binomialvariate", "getrandbits", "randbytes",
          "seed", "setstate")


def watch_random(random) -> list:
    """[True once the random module's generator may have moved, True once drawn from since its last
    seed or setstate]: its functions, wrapped to say so, so the judge reads and compares the
    generator's 625 numbers only then (~20 us), not at every question (the tests' code draws
    through them; the worker, where code may go round them, compares at every message)."""
    moved = [True, True]

    def watched(real, name):
        drawn = name not in ("seed", "setstate")

        def draw(*args, **kwargs):
            moved[0], moved[1] = True, drawn
            return real(*args, **kwargs)
        draw.__name__, draw.__qualname__, draw.__doc__, draw.__wrapped__ = real.__name__, name, real.__doc__, real
        draw.__module__, draw.__self__ = random.__name__, real.__self__  # (pickled by name: random.randint)
        return draw
    for name in _DRAWS:
        if hasattr(random, name):
            setattr(random, name, watched(getattr(random, name), name))
    return moved


RANDOM = random._inst  # the module's generator: the tests' and the model's (state "random")
RANDOM_MOVED = watch_random(random)
BUILTINS0 = dict(vars(builtins))  # the builtins as the tests start; a test's patch of one is sent on
_UNSET = object()
SYS_PATH0 = list(sys.path)  # the tests' additions to it are the worker's too (Worker._outgoing)

# A test's patch of a library module's attribute, or of a library class's (`mock.patch("subprocess.run")`,
# `monkeypatch.setattr(time, "sleep", ...)`, `Path.home`, `requests.get`, `sys.platform`) is the model's
# code's too, as in a plain run: monkeypatch and mock note here what they patch, and each question
# to the worker carries the patches in force (Worker._patches; worker.apply_patches). What the
# worker cannot take fails the test (UNFOLLOWED). `builtins`, the environment, argv and the
# streams have rules of their own.
PATCHED: dict = {}  # (module name, attribute) -> its value before the tests' first patch of it


def _note_patch(target, name, before) -> None:
    """A module's attribute (`time.sleep`), or a class's of a standard-library module (`Path.home`:
    its name then is "Path.home")."""
    if type(name) is not str:
        return
    if isinstance(target, type) and type(target.__module__) is str and target.__module__ in sys.modules and \
            _holder(target.__module__, f"{target.__qualname__}.{name}")[0] is target:
        module, name = target.__module__, f"{target.__qualname__}.{name}"
    elif type(target) is types.ModuleType:
        module = target.__name__
    elif any(target is getattr(sys, stream) for stream in _STREAMS):  # `monkeypatch.setattr("sys.stdout.isatty", ...)`
        stream = next(s for s in _STREAMS if target is getattr(sys, s))
        if stream == "stdin" and type(target).__name__ != "DontReadFromInput" and target is not sys.__stdin__:
            return  # (a test's own stdin, `io.StringIO`, is the worker's as a proxy: its patch is seen through it)
        module, name = "sys", f"{stream}.{name}"  # (the worker's stream)
    else:
        if isinstance(target, _global_objects()):
            PATCHED_OBJECTS.append((target, name, getattr(target, name, _UNSET)))  # (what the patch set)
        return
    if (module, name) not in PATCHED and _library(module) and module != "builtins" and \
            (module, name) not in _OWN_RULES:
        PATCHED[(module, name)] = _UNSET if before is _pytest.compat.NOTSET else before


# What follows the test by rules of its own (Worker._outgoing): the environment, argv, the streams.
_OWN_RULES = frozenset({("os", "environ"), ("sys", "argv"), ("sys", "stdin"), ("sys", "stdout"), ("sys", "stderr")})
_LIBRARIES = tuple({path + os.sep for key, path in sysconfig.get_paths().items() if key in ("purelib", "platlib")})


_STREAMS = ("stdin", "stdout", "stderr")


def _on_a_class(module: str, name: str) -> bool:
    """A patched class attribute ("Path.home"), not a module's or the streams' ("stdout.isatty")."""
    return "." in name and not (module == "sys" and name.partition(".")[0] in _STREAMS)


def _library(module: str) -> bool:
    """The standard library, or a library installed in the interpreter (`requests`, `packaging`):
    not the workspace's modules (proxies here), the tests' own, nor pytest's."""
    root = module.partition(".")[0]
    if root in sys.stdlib_module_names:
        return True
    file = getattr(sys.modules.get(root), "__file__", None)
    return root not in ("pytest", "_pytest", "pluggy") and type(file) is str and file.startswith(_LIBRARIES)


# Objects of the standard library's that the model's code reaches by name, not by being handed
# them: a named logger (`logging.getLogger("app")`), the decimal context. A test's patch of one is not
# followed into the worker (its objects are its own): while it is in force, a call into the model's
# code fails the test (UNFOLLOWED).
PATCHED_OBJECTS: list = []


def _global_objects() -> tuple:
    import decimal
    import logging
    return (logging.Logger, logging.Manager, decimal.Context)


def _settings() -> list:
    """Process settings a test sets through a setter, for the worker: the first weekday of
    `calendar`, the default socket timeout, the decimal context (None where the module is not
    loaded), the umask the test set (None: none yet), the recursion limit as the room it leaves
    the model's code below the test's caller (as deep as plain), int's digit limit for str(), the open
    files limit as the room it leaves (None while it is the judge's own), the garbage collector's switch
    and thresholds."""
    calendar, socket, decimal = sys.modules.get("calendar"), sys.modules.get("socket"), sys.modules.get("decimal")
    limit = sys.getrecursionlimit()
    files = _RESOURCE.getrlimit(_RESOURCE.RLIMIT_NOFILE)[0] if _RESOURCE and "resource" in sys.modules else None
    return [calendar.firstweekday() if calendar else None, socket.getdefaulttimeout() if socket else None,
            _TEST_UMASK[0], limit - _callers_depth(),
            sys.get_int_max_str_digits() if hasattr(sys, "get_int_max_str_digits") else None,
            rpc._values.decimal_settings(decimal.getcontext()) if decimal else None,
            None if files in (None, _FILES0) else files - len(os.listdir(_FD_FOLDER)), [gc.isenabled(), *gc.get_threshold()]]


def _callers_depth() -> int:
    """How deep the test's code that calls into the model's code is (our own frames not counted)."""
    frame, ours = sys._getframe(1), (os.path.join(_HERE, ""),)
    while frame is not None and frame.f_code.co_filename.startswith(ours):
        frame = frame.f_back
    depth = 0
    while frame is not None:
        frame, depth = frame.f_back, depth + 1
    return depth


_UMASK_START = os.umask(0o022)  # the sandbox's, as a plain run has it (the judge's own becomes 0: end of this module)
os.umask(_UMASK_START)
_TEST_UMASK: list = [None]  # what the tests set with os.umask (the worker's too); None: nothing yet


def _umask(mask):
    """A test's os.umask: the worker's umask, answered as a plain run would. The judge's own stays
    0, so the worker can read and write what the tests make in tmp_path (the tests' own files
    are not made private by it: a stated limit)."""
    before = _UMASK_START if _TEST_UMASK[0] is None else _TEST_UMASK[0]
    _TEST_UMASK[0] = operator.index(mask) & 0o777
    return before


_FD_FOLDER = "/proc/self/fd" if sys.platform == "linux" else "/dev/fd"  # (our open files, as worker._FD_FOLDER)
_RESOURCE: "types.ModuleType | None" = None  # (the open files limit a test sets: the room it leaves, the worker's too)
_FILES0 = None
if sys.platform != "win32":
    try:
        import resource as _resource
        _RESOURCE, _FILES0 = _resource, _resource.getrlimit(_resource.RLIMIT_NOFILE)[0]
    except ImportError:  # (a system without it, as the tests' simulated Windows)
        pass


# What the model's code changed in its own process (Worker._from_the_model), taken into ours, one
# function per part of worker.process_state. What cannot be taken fails the test it happened in.
KEPT_BY_THE_WORKER: dict = {}  # part -> why it could not be taken


def _take_cwd(worker, cwd) -> None:
    if cwd is not None and (type(cwd) is not str or not os.path.isabs(cwd)):
        raise ValueError("a working directory the tests cannot enter")
    _CHDIR(worker.cwd0 if cwd is None else cwd)


def _take_env(worker, changes) -> None:
    environ = os.environ
    if type(changes) is not list or not isinstance(environ, collections.abc.MutableMapping):
        raise TypeError("an environment the tests' cannot take")
    for name, value in changes:
        if type(name) is not str or (value is not None and type(value) is not str):
            raise TypeError("an environment variable that is not text")
        if name == "PYTEST_CURRENT_TEST":
            continue
        if value is None:
            environ.pop(name, None)
        else:
            environ[name] = value
    if any(name == "TZ" for name, _ in changes) and hasattr(time, "tzset"):
        time.tzset()


def _take_umask(worker, mask) -> None:
    _TEST_UMASK[0] = operator.index(mask) & 0o777


def _take_recursion(worker, limit) -> None:
    sys.setrecursionlimit(operator.index(limit))


def _take_files(worker, limit) -> None:
    raise ValueError("the model's code changed its open files limit")


def _take_digits(worker, digits) -> None:
    if hasattr(sys, "set_int_max_str_digits"):
        sys.set_int_max_str_digits(operator.index(digits))


def _take_weekday(worker, weekday) -> None:
    if weekday is not None:
        __import__("calendar").setfirstweekday(operator.index(weekday))


def _take_timeout(worker, timeout) -> None:
    if timeout is not None and type(timeout) not in (int, float):
        raise TypeError("a socket timeout that is not a number")
    __import__("socket").setdefaulttimeout(timeout)


def _take_random(worker, state) -> None:
    if state == "diverged" or (RANDOM_MOVED[0] and RANDOM.getstate() != worker.random_seen):
        raise ValueError("the tests and a thread of the model's code drew from random's one generator at "
                         "the same time: two streams judged, one in a plain run")
    rpc._values.set_random_state(RANDOM, state)
    worker.random_seen = RANDOM.getstate()


def _take_argv(worker, argv) -> None:
    if type(argv) is not list or not argv or not all(type(a) is str for a in argv):
        raise TypeError("an argv that is not a list of text")
    sys.argv[:] = [worker.argv0[0] if argv[0] == worker.worker_argv0 else argv[0], *argv[1:]]


def _take_path(worker, added) -> None:
    if added:
        raise ValueError(f"the model's code added {str(added)[:100]} to sys.path: the judge imports nothing from "
                         f"a folder the model's code chose")


def _take_signals(worker, changed) -> None:
    if changed:
        raise ValueError("the model's code set a signal handler: the worker's, not the tests' process's")


def _take_kept(worker, parts) -> None:
    if parts:
        raise ValueError(f"the model's code left its {', '.join(map(str, parts))[:200]} changed: the worker's, "
                         f"not the tests' process's")


def _take_gc(worker, collector) -> None:
    if type(collector) is not list or len(collector) != 4:
        raise TypeError("a collector's state that is not [switch, thresholds]")
    gc.set_threshold(*map(operator.index, collector[1:]))
    (gc.enable if collector[0] is True else gc.disable)()


def _take_decimal(worker, settings) -> None:
    __import__("decimal")
    rpc._values.set_decimal_settings(settings)


_TAKE_BACK = {"cwd": _take_cwd, "env": _take_env, "umask": _take_umask, "recursion": _take_recursion,
              "files": _take_files, "digits": _take_digits, "weekday": _take_weekday, "timeout": _take_timeout,
              "decimal": _take_decimal, "random": _take_random, "argv": _take_argv, "gc": _take_gc,
              "path": _take_path, "signals": _take_signals, "kept": _take_kept}


def _import_for_the_model(tests_import):
    """A test's own builtins.__import__ (a fake that blocks one import, passing the others on), as
    the model's imports ask it (worker._import_through): with the name, the names imported from
    it and the level, never the model module's globals; a module it returns means "import it"
    (the worker imports its own), anything else (a stub of the test's) is what the import gives."""
    def ask(name, fromlist, level):
        found = tests_import(name, None, None, tuple(fromlist), level)
        return None if isinstance(found, (types.ModuleType, rpc.ModuleProxy)) else found
    rpc._policy.CALLED_BY_THE_MODEL.add(ask)
    return ask


def _patch_value(conn, value, on_a_class: bool) -> list:
    """[the value] for the worker, and on a class how it binds there as it would plain: a function
    as a method, a staticmethod, classmethod or property as one (their functions sent)."""
    if on_a_class and type(value) is property:
        return [conn.encode_value([value.fget, value.fset, value.fdel]), "property"]
    if on_a_class and isinstance(value, unittest.mock.PropertyMock):  # (its get calls it, its set with the value)
        return [conn.encode_value(value), "property mock"]
    if on_a_class and type(value) in (staticmethod, classmethod):
        return [conn.encode_value(value.__func__), "static" if type(value) is staticmethod else "class"]
    return [conn.encode_value(value)] + (["method"] if on_a_class and type(value) is types.FunctionType else [])


def _other_descriptor(value) -> bool:
    """A descriptor of the test's on a library class that _patch_value cannot rebuild in the worker."""
    return type(value) not in (types.FunctionType, staticmethod, classmethod, property) and \
        not isinstance(value, unittest.mock.PropertyMock) and hasattr(type(value), "__get__")


def _same_patch(now, patched) -> bool:
    return now is patched or (type(now) in (int, float, str, bool) and type(now) is type(patched) and now == patched)


def _holder(module: str, name: str):
    """(the object that holds `name`'s last part, that part): a module, or a class in it."""
    holder = sys.modules.get(module)
    *path, last = name.split(".")
    for part in path:
        holder = vars(holder).get(part) if holder is not None else None
    return holder, last


# Classes of the modules the worker's own code runs on: a test's patch of their methods would change
# the judge's transport (a thread's start, the JSON encoder): not followed (UNFOLLOWED).
_TRANSPORT_MODULES = frozenset({"threading", "json", "queue", "weakref", "inspect", "pickle", "copyreg", "socket",
                                "selectors", "warnings", "codecs", "dis", "importlib", "types", "collections",
                                "functools", "traceback", "linecache", "io", "os", "posixpath", "ntpath", "enum"})


def _now(module: str, name: str):
    holder, last = _holder(module, name)
    return _UNSET if holder is None else vars(holder).get(last, _UNSET)


UNFOLLOWED: dict = {}  # this test's patches the worker cannot take -> why: the test fails (pytest_runtest_makereport)
_READS_ITSELF = "the judge's worker reads it itself"
_ITS_OWN_OBJECT = "the worker's object of that name is its own, not the test's"
_ITS_OWN_DICT = "the worker's library keeps a dict of its own there"
_WORKER_READS: list = []


def _worker_reads(module: str, name: str, real) -> bool:
    """A class or value the worker's own functions read when they run (`datetime.datetime`), or an
    attribute of a class of the modules its transport runs on: set there, it would change the
    judge's transport, so it is not followed (a patched function is: the worker's _Patched gives the
    real one to its own code only)."""
    if "." in name:  # a class's attribute
        return module.partition(".")[0] in _TRANSPORT_MODULES
    if real is _UNSET or (callable(real) and not isinstance(real, type)):
        return False
    if not _WORKER_READS:
        _WORKER_READS.append(rpc.reads_when_run(rpc.own_files(os.path.join(_HERE, "worker.py"))))
    return (module, name) in _WORKER_READS[0]


def _noting_monkeypatch(real):
    def patch(self, *args, **kwargs):
        done = len(self._setattr)
        try:
            return real(self, *args, **kwargs)
        finally:
            for target, name, before in self._setattr[done:]:
                _note_patch(target, name, before)
    return patch


# A test's patch of a library module's dict (`mock.patch.dict`, `monkeypatch.setitem`/`delitem`): the
# worker's library has dicts of its own (they differ already: `mimetypes.init()` makes a new one), so
# one is not followed and fails the test (UNFOLLOWED) while in force. Imports a test blocks
# (`sys.modules["yaml"] = None`, by a patch or by hand) are read from sys.modules itself
# (Worker._blocked_imports). os.environ follows by a rule of its own.
DICT_PATCHES: list = []  # [who patched (a mock patcher or a MonkeyPatch), where ("mimetypes.types_map")]
NONE0 = frozenset(name for name, module in sys.modules.items() if module is None)  # (not blocked by a test)


def _note_dict_patch(owner, target, values) -> None:
    """`values`: (key, value) pairs the patch sets; None where it clears or deletes."""
    if target is os.environ or type(target) is os._Environ:
        return
    if target is sys.modules:  # (a blocked import, None, is followed; deleted or cleared: the tests' own imports)
        if any(value is not None for _, value in values or ()):
            DICT_PATCHES.append([owner, "sys.modules"])
        return
    where = next((f"{name}.{key}" for name, module in list(sys.modules.items())
                  if type(module) is types.ModuleType and _library(name)
                  for key, value in _module_and_class_attributes(module) if value is target), None)
    if where is not None:
        DICT_PATCHES.append([owner, where])


def _module_and_class_attributes(module):
    """(name, value) of a module's attributes and of its classes' (`RawConfigParser.BOOLEAN_STATES`)."""
    for key, value in list(vars(module).items()):
        yield key, value
        if isinstance(value, type) and getattr(value, "__module__", None) == module.__name__:
            yield from ((f"{key}.{name}", attr) for name, attr in list(vars(value).items()))


def _noting_dict_patches(real_patch, real_unpatch):
    def patch(self):
        target = pkgutil.resolve_name(self.in_dict) if isinstance(self.in_dict, str) else self.in_dict
        values = None if self.clear else list(dict(self.values).items())
        real_patch(self)
        _note_dict_patch(self, target, values)

    def unpatch(self):
        _end_dict_patches(self)
        return real_unpatch(self)
    return patch, unpatch


def _noting_monkeypatch_items(real):
    def change(self, dic, name, *args, **kwargs):
        result = real(self, dic, name, *args, **kwargs)
        _note_dict_patch(self, dic, [(name, dic[name])] if real.__name__ == "setitem" else None)
        return result
    return change


def _undoing_monkeypatch(real):
    def undo(self):
        _end_dict_patches(self)
        return real(self)
    return undo


def _end_dict_patches(owner) -> None:
    DICT_PATCHES[:] = [entry for entry in DICT_PATCHES if entry[0] is not owner]


def _noting_mock_patch(real):
    def enter(self):
        result = real(self)
        before = getattr(self, "temp_original", _UNSET)  # (DEFAULT: created by the patch; not local: inherited)
        local = getattr(self, "is_local", True)
        _note_patch(self.target, self.attribute, _UNSET if before is unittest.mock.DEFAULT or not local else before)
        return result
    return enter


import _pytest.compat  # noqa: E402 (pytest's own: loaded already)
import _pytest.monkeypatch  # noqa: E402

_pytest.monkeypatch.MonkeyPatch.setattr = _noting_monkeypatch(_pytest.monkeypatch.MonkeyPatch.setattr)
_pytest.monkeypatch.MonkeyPatch.delattr = _noting_monkeypatch(_pytest.monkeypatch.MonkeyPatch.delattr)
unittest.mock._patch.__enter__ = _noting_mock_patch(unittest.mock._patch.__enter__)
_PATCH_DICT = unittest.mock._patch_dict  # (its _patch_dict/_unpatch_dict are private: not in typeshed)
_PATCH_DICT._patch_dict, _PATCH_DICT._unpatch_dict = _noting_dict_patches(  # type: ignore[attr-defined]
    _PATCH_DICT._patch_dict, _PATCH_DICT._unpatch_dict)  # type: ignore[attr-defined]
_pytest.monkeypatch.MonkeyPatch.setitem = _noting_monkeypatch_items(_pytest.monkeypatch.MonkeyPatch.setitem)
_pytest.monkeypatch.MonkeyPatch.delitem = _noting_monkeypatch_items(_pytest.monkeypatch.MonkeyPatch.delitem)
_pytest.monkeypatch.MonkeyPatch.undo = _undoing_monkeypatch(_pytest.monkeypatch.MonkeyPatch.undo)
REAL_POPEN = subprocess.Popen  # the tests' Popen is JudgedPopen (below); ours is the real one
_MONOTONIC, _SLEEP = time.monotonic, time.sleep  # (a test's mock of time.sleep must not see our waits)
_GETCWD, _CHDIR = os.getcwd, os.chdir


def launch(spec: dict) -> tuple[subprocess.Popen, int, int]:
    """Start one worker: the process, and our ends of its two pipes (read, write), which are its
    stdin and stdout (worker.take_channel)."""
    to_worker = os.pipe()
    from_worker = os.pipe()
    log = os.open(spec["log"], os.O_WRONLY | os.O_CREAT | os.O_APPEND | NOFOLLOW, 0o600)
    try:
        proc = REAL_POPEN(
            spec["argv"], cwd=spec["workspace"], env=spec["env"], stdin=to_worker[0], stdout=from_worker[1],
            stderr=log, start_new_session=True)
    finally:
        for fd in (to_worker[0], from_worker[1], log):
            os.close(fd)
    return proc, from_worker[0], to_worker[1]


class Spawner:
    """As root: a forked copy of us that stays root and starts workers on request (only root can
    start one as the test user), so that after we drop to the judge's own user a worker that died
    is replaced for the next test. It runs nothing but `launch` and ends when we close our end."""

    sock: socket.socket

    def __init__(self, spec: dict):
        if sys.platform == "win32":
            raise OSError("only root needs a spawner (POSIX)")
        ours, theirs = socket.socketpair()
        pid = os.fork()
        if pid == 0:  # never returns into pytest: no hook, no atexit
            ours.close()
            try:
                self._serve(theirs, spec)
            finally:
                os._exit(0)
        theirs.close()
        self.sock = ours

    @staticmethod
    def _serve(sock: socket.socket, spec: dict) -> None:
        if sys.platform == "win32":
            return
        for sig in (signal.SIGINT, signal.SIGTERM):
            signal.signal(sig, signal.SIG_DFL)
        latest = None
        commands: dict[int, subprocess.Popen] = {}  # the tests' own commands we started, by pid
        while True:
            request, fds, _, _ = socket.recv_fds(sock, 1, 3)
            if request == b"s":
                latest, read_fd, write_fd = launch(spec)
                socket.send_fds(sock, [b"started"], [read_fd, write_fd])
                os.close(read_fd)
                os.close(write_fd)
            elif request == b"w":  # how the latest worker ended, if it did
                try:
                    code = latest.wait(timeout=0.5) if latest is not None else None
                except subprocess.TimeoutExpired:
                    code = None
                sock.sendall(b"-" if code is None else str(code).encode())
            elif request == b"p" and len(fds) == 3:  # a command a test runs: its stdin, stdout, stderr
                command = json.loads(_read_line(sock))
                try:
                    proc = REAL_POPEN(test_command(command["args"], command["folder"], command["env"]),
                                      cwd=spec["workspace"], env=spec["env"], stdin=fds[0], stdout=fds[1], stderr=fds[2],
                                      start_new_session=True)
                    commands[proc.pid] = proc
                    sock.sendall(f"{proc.pid}\n".encode())
                except OSError as e:
                    sock.sendall(f"-{e.errno or 0}\n".encode())
                for fd in fds:
                    os.close(fd)
            elif request in (b"c", b"k"):  # how a command ended (None: running); a signal to it
                pid, _, sig = _read_line(sock).partition(b" ")
                proc = commands.get(int(pid))
                if proc is not None and request == b"k" and proc.poll() is None:
                    _signal_group(proc, int(sig))
                code = None if proc is None else proc.poll()
                sock.sendall(b"-\n" if code is None else f"{code}\n".encode())
            else:
                for fd in fds:
                    os.close(fd)
                return

    def start(self) -> tuple[int, int]:
        if sys.platform == "win32":
            raise rpc.PeerGone("no spawner on Windows")
        self.sock.sendall(b"s")
        _, fds, _, _ = socket.recv_fds(self.sock, 16, 2)
        if len(fds) != 2:
            raise rpc.PeerGone("the judge's spawner did not start a worker")
        return fds[0], fds[1]

    def exit_code(self):
        try:
            self.sock.sendall(b"w")
            answer = self.sock.recv(16)
        except OSError:
            return None
        return int(answer) if answer.lstrip(b"-").isdigit() else None

    def start_command(self, args: list[str], folder: str, env: dict, fds: list[int]) -> int:
        """A command a test runs, started by us as root (confined, as the worker's user) with
        those three fds as its stdin, stdout and stderr: its pid."""
        if sys.platform == "win32":
            raise OSError("no spawner on Windows")
        socket.send_fds(self.sock, [b"p"], fds)
        self.sock.sendall(json.dumps({"args": args, "folder": folder, "env": env}).encode() + b"\n")
        answer = int(_read_line(self.sock))
        if answer < 0:
            raise OSError(-answer, os.strerror(-answer))
        return answer

    def command_status(self, pid: int, signal_number: int = 0):
        """A command's exit code, or None while it runs; with a signal number, send it first."""
        self.sock.sendall(b"k" if signal_number else b"c")
        self.sock.sendall(f"{pid} {signal_number}\n".encode())
        answer = _read_line(self.sock)
        return None if answer == b"-" else int(answer)


def _signal_group(proc: subprocess.Popen, sig: int) -> None:
    """A test's kill() of its command reaches the command, not just the launcher in front of it."""
    if sys.platform == "win32":
        return REAL_POPEN.send_signal(proc, sig)
    try:
        os.killpg(proc.pid, sig)  # (its own session: start_new_session)
    except OSError:
        REAL_POPEN.send_signal(proc, sig)


def _read_line(sock: socket.socket) -> bytes:
    """One line of the spawner's protocol (short: a pid, an exit code, a command as JSON)."""
    line = bytearray()
    while not line.endswith(b"\n"):
        chunk = sock.recv(1)
        if not chunk:
            raise rpc.PeerGone("the judge's spawner ended")
        line += chunk
    return bytes(line[:-1])


def test_command(args: list[str], folder: str, env: dict) -> list[str]:
    """A command a test runs, confined as the worker is (same layer, user, limits), started in
    `folder` with `env` (the launcher sets it after the user switch)."""
    fill = {SPEC["folder_slot"]: folder, SPEC["env_slot"]: json.dumps(env)}
    return [fill.get(a, a) for a in SPEC["test_command"]] + args


class Worker:
    """The confined process that runs the model's code; started on first use, and again before
    the next test when it died or broke the protocol (that costs the test it happened in)."""

    def __init__(self, spec: dict):
        self.spec = spec
        self.proc: subprocess.Popen | None = None
        self.spawner: Spawner | None = None
        self.conn: rpc.Connection | None = None
        self.other_user = spec["uid"] >= 0  # the worker runs as another user than we do
        self.cwd0, self.env0, self.argv0 = os.getcwd(), dict(os.environ), list(sys.argv)
        self.worker_argv0 = os.path.join(spec["workspace"], "__judged__")  # (worker.main's sys.argv[0])
        self.env0_data = dict(os.environ._data)  # type: ignore[attr-defined]
        self.sent: dict = {}
        self.temp_seen: dict = {}
        self.ran_over = False

    def connection(self) -> rpc.Connection:
        if self.conn is None:
            self._start()
        return self.conn

    def _start(self) -> None:
        if self.spawner is not None:
            read_fd, write_fd = self.spawner.start()
        else:
            self.proc, read_fd, write_fd = launch(self.spec)
        self.sent = {"cwd": None, "env": [], "argv": None, "stdin": None}
        self.env_seen, self.builtins_seen = self.env0_data, BUILTINS0  # a new worker starts from the base state
        self.patches_seen: list = []
        self.blocked_seen: list = []
        self.random_seen = None  # (a new worker's generator is its own until the first question)
        RANDOM_MOVED[0] = True
        self.modules_seen: list = []
        self.path_seen = SYS_PATH0
        self.settings_seen = _SETTINGS0
        self.conn = rpc.Connection(os.fdopen(read_fd, "rb", buffering=0), os.fdopen(write_fd, "wb"), guarded=True,
                                   outgoing=self._outgoing, incoming=self._incoming, describe_loss=self._loss,
                                   trusted_folder=TESTS_DIR)
        self.conn.expect_hello()
        self.conn.answer_when_idle()

    def revive(self) -> None:
        """A fresh worker for the next test when this one is lost, and the tests' modules of the
        model's code point at it (re-imported there: module state starts anew, as in a new process)."""
        old = self.conn
        if old is None or old.broken is None:
            return
        self.conn = None
        try:
            fresh = self.connection()
        except rpc.RpcError:
            return
        fresh.under_test.ended = old.under_test.ended  # ended for the run, whichever worker answers
        ModelCodecs.forget()
        for name, module in list(sys.modules.items()):
            if type(module) is rpc.ModuleProxy and module._rpc_conn is old:
                try:
                    new = fresh.request("import", name, False)
                except BaseException:  # noqa: BLE001 - that module's tests fail, as they would anyway
                    continue
                if type(new) is rpc.ModuleProxy:
                    module._rpc_rebind(new)
        for ref in old.origins:  # what the tests took from those modules (`from calc import add`)
            proxy = ref()
            module = sys.modules.get(proxy._rpc_origin[0]) if proxy is not None else None
            if type(module) is rpc.ModuleProxy and module._rpc_conn is fresh:
                try:
                    was = proxy._rpc_handle
                    proxy._rpc_rebind(getattr(module, proxy._rpc_origin[1]))
                    fresh.under_test.carry(old.under_test, was, proxy._rpc_handle)
                    fresh.origins.append(ref)
                except BaseException:  # noqa: BLE001 - the tests that use it fail
                    pass

    def overtime(self) -> None:
        """A test ran over its time where no SIGALRM interrupts it: end its worker."""
        self.ran_over = True
        if self.proc is not None:
            try:
                self.proc.kill()
            except OSError:
                pass

    def _loss(self) -> str:
        """What the failing test shows when the worker died or broke the protocol."""
        if self.ran_over:
            self.ran_over = False
            return str(Overtime(_OVERTIME % SPEC["test_timeout"]))
        code = None
        if self.spawner is not None:
            code = self.spawner.exit_code()
        elif self.proc is not None:
            try:
                code = self.proc.wait(timeout=0.5)
            except subprocess.TimeoutExpired:
                try:
                    self.proc.kill()
                except OSError:  # not ours to signal once we dropped root: the agent kills it afterwards
                    pass
        tail = ""
        try:
            with open(self.spec["log"], "rb") as f:
                f.seek(max(0, f.seek(0, os.SEEK_END) - 1500))
                tail = f.read().decode("utf-8", "replace").strip()
        except OSError:
            pass
        text = "the worker process that runs the model's code " + (
            f"ended (exit code {code})" if code is not None else "was stopped")
        return text + (f"; its last output:\n{tail}" if tail else "")

    def _incoming(self, msg: dict) -> None:
        """Output the model's code printed, to our sys.stdout/stderr (pytest captures it); what it
        changed in its process, to ours (_from_the_model)."""
        if "t" in msg:
            self._from_the_model(msg["t"])
        for key, stream in (("o", sys.stdout), ("x", sys.stderr)):
            text = msg.get(key)
            if text is None:
                continue
            if type(text) is not str:
                raise rpc.ProtocolError("forwarded output is not text")
            try:
                stream.write(text)
            except (OSError, ValueError):
                pass

    def _from_the_model(self, changes) -> None:
        """What the model's code changed in its own process (worker.process_state): in a plain
        run the tests' process is that process, so it is the tests' too. What cannot be made so
        here fails the test (KEPT_BY_THE_WORKER)."""
        if type(changes) is not dict:
            raise rpc.ProtocolError("the worker's process state is not an object")
        for key, value in changes.items():
            take = _TAKE_BACK.get(key)
            if take is None:
                raise rpc.ProtocolError("an unknown part of the worker's process state")
            try:
                take(self, value)
            except (OSError, ValueError, TypeError, OverflowError, RecursionError, LookupError) as e:
                KEPT_BY_THE_WORKER[key] = f"{type(e).__name__}: {e}"[:200]
            # What the worker holds now is sent again with the next question (the test may undo the
            # change first: `monkeypatch.delenv`, a chdir back), and the recursion room as the test's.
            if key in ("cwd", "argv"):
                self.sent[key] = _UNSET
            elif key == "env":
                self.env_seen, self.sent["env"] = None, _UNSET
            elif key not in ("random", "path", "signals"):
                self.settings_seen = None

    def _outgoing(self, msg: dict) -> None:
        """Before each question, and each answer to a question of the worker's (a test's callback
        may change its state): hand temp files to the worker's user, and send the test's process
        state (cwd, environment, argv, stdin ...) when it changed."""
        if "q" not in msg and "r" not in msg:
            return
        if self.other_user and self._basetemp_changed():
            self.hand_over_tmp()
        state = {}
        try:
            cwd = _GETCWD()  # (a test's mock of os.getcwd is for the model's code, not our bookkeeping)
        except OSError:
            cwd = self.cwd0
        cwd = None if cwd == self.cwd0 else cwd
        env = self.sent["env"]
        environ = os.environ
        seen = environ._data if type(environ) is os._Environ else sorted(  # type: ignore[attr-defined]
            (k, v) for k, v in environ.items() if type(k) is str and type(v) is str) \
            if isinstance(environ, collections.abc.Mapping) else self.env_seen  # (`mock.patch("os.environ", {...})`)
        if seen != self.env_seen:  # one C comparison when nothing changed
            self.env_seen = dict(seen) if type(seen) is dict else seen
            env = sorted([k, v] for k, v in os.environ.items() if type(k) is str and type(v) is str
                         and self.env0.get(k) != v and k != "PYTEST_CURRENT_TEST")  # names the hidden test
            env += sorted([k, None] for k in self.env0 if k not in os.environ)
        argv = None if sys.argv == self.argv0 else [str(a) for a in sys.argv]
        stdin = None if type(sys.stdin).__name__ == "DontReadFromInput" or sys.stdin is sys.__stdin__ else sys.stdin
        for key, value in (("cwd", cwd), ("env", env), ("argv", argv)):
            if value != self.sent[key]:
                state[key] = self.sent[key] = value
        if stdin is not self.sent["stdin"]:
            self.sent["stdin"] = stdin
            state["stdin"] = None if stdin is None else self.conn.encode_value(stdin)
        if vars(builtins) != self.builtins_seen:  # mock.patch("builtins.print"): the model's print is the test's mock
            self.builtins_seen = dict(vars(builtins))
            patched = {k: v for k, v in vars(builtins).items() if BUILTINS0.get(k, _UNSET) is not v}
            state["builtins"] = [[k, self.conn.encode_value(_import_for_the_model(v) if k == "__import__" else v)]
                                 for k, v in sorted(patched.items())]
        if PATCHED or PATCHED_OBJECTS:
            self._patches(state)
        if DICT_PATCHES:  # other patched dicts of a library fail the test
            UNFOLLOWED.update((where, _ITS_OWN_DICT) for _, where in DICT_PATCHES)
        if self.blocked_seen or operator.countOf(sys.modules.values(), None) > len(NONE0):  # (a C count: every question)
            self._blocked_imports(state)
        if WorkspaceLoader.imported_again:
            self._modules(state)
        if sys.path != self.path_seen:  # monkeypatch.syspath_prepend(tmp_path): the model's imports look there too
            self.path_seen = list(sys.path)
            first = next((i for i, entry in enumerate(sys.path) if entry in SYS_PATH0), len(sys.path))
            added = [entry if type(entry) is str and entry not in SYS_PATH0 else None for entry in sys.path]
            state["path"] = [[e for e in added[:first] if e is not None], [e for e in added[first:] if e is not None]]
        settings = _settings()
        if settings != self.settings_seen:  # calendar.setfirstweekday, socket.setdefaulttimeout, os.umask ... in a test
            self.settings_seen = state["settings"] = settings
        if RANDOM_MOVED[0] and RANDOM.getstate() != self.random_seen:  # the test drew, seeded or set it:
            self.random_seen = RANDOM.getstate()                          # the model's code draws on from there
            state["random"] = rpc._values.random_state(RANDOM)
            if not RANDOM_MOVED[1]:  # (a seed or setstate since the tests last drew: it wins, as in a plain run)
                state["random_reset"] = True
        RANDOM_MOVED[0] = False
        if state:
            msg["s"] = state

    def _patches(self, state: dict) -> None:
        """The tests' patches of the standard library in force (PATCHED), when they changed; those
        the worker cannot take fail the test (UNFOLLOWED)."""
        for target, name, patched in PATCHED_OBJECTS:
            if _same_patch(getattr(target, name, _UNSET), patched):
                UNFOLLOWED[f"{type(target).__name__}.{name}"] = _ITS_OWN_OBJECT
        now = [(module, name, _now(module, name)) for (module, name), before in PATCHED.items()
               if _now(module, name) is not before]
        unfollowed = [(m, n) for m, n, v in now if _worker_reads(m, n, PATCHED[(m, n)]) or
                      (_on_a_class(m, n) and _other_descriptor(v))]
        UNFOLLOWED.update((f"{m}.{n}", _READS_ITSELF) for m, n in unfollowed)
        now = [(m, n, v) for m, n, v in now if (m, n) not in unfollowed]
        if [(m, n, id(v)) for m, n, v in now] != self.patches_seen:
            self.patches_seen = [(m, n, id(v)) for m, n, v in now]
            state["patches"] = [[m, n] + ([] if v is _UNSET else _patch_value(self.conn, v, _on_a_class(m, n)))
                                for m, n, v in now]

    def _modules(self, state: dict) -> None:
        """The module a name the tests imported again stands for (a patch.dict of sys.modules put
        the first one back, a delitem took it out): the model's `import settings` finds the same."""
        now = [(name, sys.modules.get(name)) for name in sorted(WorkspaceLoader.imported_again)]
        now = [(name, module if type(module) is rpc.ModuleProxy and module._rpc_conn is self.conn else None)
               for name, module in now]
        if [(name, id(module)) for name, module in now] != self.modules_seen:
            self.modules_seen = [(name, id(module)) for name, module in now]
            state["modules"] = [[name, None if module is None else self.conn.encode_value(module)] for name, module in now]

    def _blocked_imports(self, state: dict) -> None:
        """Imports the tests block (None in sys.modules) are blocked for the model's code too."""
        blocked = sorted(name for name, module in list(sys.modules.items())
                         if module is None and type(name) is str and name not in NONE0)
        if blocked != self.blocked_seen:
            self.blocked_seen = state["blocked"] = blocked

    def _basetemp_changed(self) -> bool:
        """A folder or file appeared in pytest's temp root or the tests' TMPDIR since the last
        hand-over (tmp_path_factory.mktemp, tempfile.mkdtemp or mkstemp in a test). Files and
        folders a test makes inside them are already open to the worker (our umask is 0, see the
        end of this module), so one stat per root and call is enough."""
        changed = False
        for root in self._temp_roots():
            try:
                st = os.stat(root)
            except OSError:
                continue
            seen = (st.st_ino, st.st_mtime_ns)
            if self.temp_seen.get(root) != seen:
                self.temp_seen[root], changed = seen, True
        return changed

    def _temp_roots(self) -> tuple:
        return (self.spec["basetemp"], self.spec["tests_tmp"])

    def hand_over_tmp(self) -> None:
        """pytest makes tmp_path folders 0700, tempfile makes its folders 0700 and files 0600; the
        worker runs as another user, so open what we own below both roots to it (a test's temp files
        are the model's code's to read and change, as in a plain run). We run unprivileged by now
        (see the end of this module), never change what we do not own, and never follow a link we see."""
        if sys.platform != "linux":
            return  # another user only when the agent is root (Linux)
        me = os.geteuid()
        for base in self._temp_roots():
            try:
                os.chmod(base, 0o755)
            except OSError:
                continue
            for _root, dirs, files, dir_fd in os.fwalk(base, follow_symlinks=False):
                for name in dirs + files:
                    try:  # open without following, then check and change what was opened (no race with a swap)
                        fd = os.open(name, os.O_PATH | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=dir_fd)
                    except OSError:
                        continue
                    try:
                        st = os.fstat(fd)
                        if st.st_uid == me and (stat.S_ISDIR(st.st_mode) or stat.S_ISREG(st.st_mode)):
                            os.chmod(f"/proc/self/fd/{fd}", 0o777 if stat.S_ISDIR(st.st_mode) else 0o666)
                    except OSError:
                        pass
                    finally:
                        os.close(fd)

    def stop(self) -> None:
        """Close the pipe, give the worker a moment to exit by itself (its atexit hooks run in
        its confinement), then kill whatever is left below us."""
        if self.conn is not None:
            self.conn.close()
            if self.spawner is not None:
                self.spawner.exit_code()
            elif self.proc is not None:
                try:
                    self.proc.wait(timeout=0.2)
                except subprocess.TimeoutExpired:
                    pass
        if self.spawner is not None:
            self.spawner.sock.close()
        kill_descendants()


WORKER = Worker(SPEC)


def _for_the_model(fn):
    """fn, run as the judge runs what the model's code asks of it (refusals, failures kept): work
    the model's code hands to a test's thread or thread pool while the judge acts for it."""
    def run(*args, **kwargs):
        rpc.FOR_THE_MODEL.depth = getattr(rpc.FOR_THE_MODEL, "depth", 0) + 1
        try:
            return fn(*args, **kwargs)
        except BaseException as failure:
            if rpc._policy._is_test_failure(failure):  # (it would end in the Future, never in the judge's hands)
                rpc._policy._keep_failure(failure)
            raise
        finally:
            rpc.FOR_THE_MODEL.depth -= 1
    return run


def _thread_start(start):
    def started(self):
        if rpc.acting_for_the_model():  # a thread the model's code starts through a test's object
            self.run = _for_the_model(self.run)
        return start(self)
    return started


def _work_item(init):
    def made(self, future, fn, *rest, **kwargs):
        if rpc.acting_for_the_model() and callable(fn):  # work the model's code submits to a test's thread pool
            fn = _for_the_model(fn)
        return init(self, future, fn, *rest, **kwargs)
    return made


def _pool_submit(submit):
    def submitted(self, func, *args, **kwargs):
        if rpc.acting_for_the_model() and callable(func) and isinstance(self, multiprocessing.pool.ThreadPool):
            # work for a test's ThreadPool (a process Pool pickles its work: it fails in the model's call)
            func = _for_the_model(func)
        return submit(self, func, *args, **kwargs)
    return submitted


rpc._policy.RUN_FOR_THE_MODEL = _for_the_model
threading.Thread.start = _thread_start(threading.Thread.start)
concurrent.futures.thread._WorkItem.__init__ = _work_item(concurrent.futures.thread._WorkItem.__init__)
for _name in ("apply_async", "_map_async", "imap", "imap_unordered"):  # (apply, map, starmap come here)
    setattr(multiprocessing.pool.Pool, _name, _pool_submit(getattr(multiprocessing.pool.Pool, _name)))
MODULES, SHADOWED = workspace_modules(SPEC["workspace"], TESTS_DIR)
# The workspace's modules the task never names (its prompt, its starting files): a test's import
# of one fails as in a plain run without it (the model's `assertpy.py` would decide the tests).
UNNAMED = set() if SPEC.get("named") is None else MODULES - set(SPEC["named"])


class JudgedPopen(REAL_POPEN):
    """subprocess.Popen in the judge (os.popen, os.system and asyncio's subprocesses come here
    too). Every command a test runs (`python -m tool`, its own `python -c CHECK`, `cat`, a shell)
    may run the model's code or read what the model's code left (a link in tmp_path): it runs
    confined as the worker is, as the worker's user, with the worker's environment plus the
    test's changes (set only after the user switch), started by us or, as root, by our spawner;
    never by the worker (the model's code there could fake what the command did) and never as
    the judge's user. A command run in the tests' folder runs in the workspace."""

    _by_spawner = False

    def __init__(self, args, *rest, **kwargs):
        folder = os.path.abspath(os.fspath(kwargs.pop("cwd", None) or os.getcwd()))
        if folder == TESTS_DIR or folder.startswith(TESTS_DIR + os.sep):
            folder = SPEC["workspace"]  # the judge's folder is not the worker's: run where the model's code is
        self._folder = folder
        kwargs.update(start_new_session=True, cwd=SPEC["workspace"], preexec_fn=None)
        if WORKER.other_user and WORKER._basetemp_changed():
            WORKER.hand_over_tmp()
        super().__init__(args, *rest, **kwargs)

    def _execute_child(self, args, executable, preexec_fn, close_fds, pass_fds, cwd, env, startupinfo,
                       creationflags, shell, p2cread, p2cwrite, c2pread, c2pwrite, errread, errwrite, *rest):
        argv, command_env = _command_line(args, executable, shell), _command_environment(env)
        if WORKER.spawner is None:
            return super()._execute_child(test_command(argv, self._folder, command_env), None, None, close_fds,
                                          pass_fds, cwd, SPEC["env"], startupinfo, creationflags, False, p2cread,
                                          p2cwrite, c2pread, c2pwrite, errread, errwrite, *rest)
        self._by_spawner = True
        fds = [p2cread, c2pwrite, errwrite]
        given = [fd if fd != -1 else default for fd, default in zip(fds, (0, 1, 2))]
        self.pid = WORKER.spawner.start_command(argv, self._folder, command_env, given)
        self._child_created = True
        for fd, theirs in ((p2cread, p2cwrite), (c2pwrite, c2pread), (errwrite, errread)):
            if fd != -1 and theirs != -1 and fd != getattr(self, "_devnull", None):
                os.close(fd)  # the child's ends, as Popen closes them after its fork
        if hasattr(self, "_devnull"):
            os.close(self._devnull)
        self._closed_child_pipe_fds = True

    def _internal_poll(self, *args, **kwargs):
        if not self._by_spawner:
            return super()._internal_poll(*args, **kwargs)
        if self.returncode is None:
            try:
                self.returncode = WORKER.spawner.command_status(self.pid)
            except (OSError, rpc.RpcError):
                self.returncode = kwargs.get("_deadstate")
        return self.returncode

    def _wait(self, timeout):
        if not self._by_spawner:
            return super()._wait(timeout)
        deadline = None if timeout is None else _MONOTONIC() + timeout
        delay = 0.0005
        while self._internal_poll() is None:
            if deadline is not None and _MONOTONIC() >= deadline:
                raise subprocess.TimeoutExpired(self.args, timeout)
            _SLEEP(delay)
            delay = min(delay * 2, 0.05)
        return self.returncode

    def send_signal(self, sig):
        if not self._by_spawner:
            self.poll()
            return None if self.returncode is not None else _signal_group(self, sig)
        if self.returncode is None:
            self.returncode = WORKER.spawner.command_status(self.pid, int(sig))


def _command_line(args, executable, shell) -> list[str]:
    """What Popen would run: a string is one program, shell=True puts the shell in front, and
    executable= is the program (here also its argv[0])."""
    given = [args] if isinstance(args, (str, bytes, os.PathLike)) else list(args)
    argv = [os.fsdecode(a) for a in given]
    if shell:
        argv = [os.environ.get("COMSPEC", "cmd.exe"), "/c", *argv] if sys.platform == "win32" else ["/bin/sh", "-c", *argv]
    if executable is not None:
        argv[0] = os.fsdecode(executable)
    return argv


def _judged_system(command) -> int:
    """os.system in the judge: the command confined like any other (JudgedPopen), as a wait status."""
    code = JudgedPopen(command, shell=True).wait()
    return code << 8 if code >= 0 else -code


def _command_environment(given):
    """A test's own command sees the worker's environment with the test's changes to its own
    (as a child of the test process would), never the judge's own settings; its Pythons load
    commands/sitecustomize.py (the libraries win over the workspace's modules)."""
    if given is None:
        env = dict(SPEC["env"])
        env.update((k, v) for k, v in os.environ.items() if WORKER.env0.get(k) != v and k != "PYTEST_CURRENT_TEST")
        for k in WORKER.env0:
            if k not in os.environ:
                env.pop(k, None)
    else:
        env = {k: v for k, v in dict(given).items() if k not in ("JUDGE_SPEC", "PYTEST_CURRENT_TEST")}
        for k in ("HOME", "TMPDIR", "PYTHONPATH"):  # the judge's own, handed on by `{**os.environ, ...}`
            if env.get(k) is not None and env.get(k) == WORKER.env0.get(k):
                if k in SPEC["env"]:
                    env[k] = SPEC["env"][k]
                else:
                    env.pop(k)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (SPEC["commands_path"], env.get("PYTHONPATH")) if p)
    return env


subprocess.Popen, os.system = JudgedPopen, _judged_system


class ModelsPickle(pickle.UnpicklingError):
    """A pickle that names the workspace's objects: loaded whole by the worker (pickle.load/loads)."""


class JudgedUnpickler(pickle._Unpickler):  # (the Python one: its BUILD can be checked)
    """pickle in the judge: bytes a test unpickles may come from the model's code, and a pickle can
    name any callable (eval). Only plain data types and our proxies' own loader are looked up
    here, and state is set only on instances (BUILD on a class it named would change that class
    for every later test: `Fraction.__eq__ = str`); a pickle that names the workspace's objects
    is the worker's to load (ModelsPickle), and what it gives crosses as any result of the
    model's code does; anything else is refused."""

    dispatch = dict(pickle._Unpickler.dispatch)

    def load_build(self):
        target = self.stack[-2] if len(self.stack) >= 2 else None
        if isinstance(target, (type, types.ModuleType)) or callable(target):
            raise pickle.UnpicklingError(f"the judge sets no state on {type(target).__name__} objects from a "
                                         f"pickle (only on instances it made)")
        pickle._Unpickler.load_build(self)

    dispatch[pickle.BUILD[0]] = load_build

    DATA = {("builtins", n) for n in ("set", "frozenset", "bytearray", "complex", "slice", "range", "object", "list",
                                      "dict", "tuple", "int", "float", "str", "bytes", "bool")} | {
        ("collections", n) for n in ("OrderedDict", "defaultdict", "deque", "Counter")} | {
        ("datetime", n) for n in ("date", "datetime", "time", "timedelta", "timezone")} | {
        ("decimal", "Decimal"), ("fractions", "Fraction"), ("copyreg", "_reconstructor"), ("_codecs", "encode"),
        ("_judge_rpc", "_unpickled"), ("_judge_rpc", "_unpickled_by_the_judge"), ("_judge_rpc", "_copy_of_built")}

    def find_class(self, module, name):
        if self.proto < 3 and self.fix_imports:  # Python 2's names, as pickle's own find_class maps them
            import _compat_pickle
            module, name = _compat_pickle.NAME_MAPPING.get((module, name), (module, name))
            module = _compat_pickle.IMPORT_MAPPING.get(module, module)
        if (module, name) in self.DATA:
            return super().find_class(module, name)
        if module.partition(".")[0] in MODULES:
            raise ModelsPickle(f"a pickle of the model's objects ({module}.{name}): pickle.load and pickle.loads "
                               f"have the worker load it")
        raise pickle.UnpicklingError(f"the judge does not unpickle {module}.{name} (bytes from the model's code "
                                     f"could name any callable)")


_OWN_PICKLES: set = set()  # what the tests' own pickle.dumps/dump made here (their classes, proxies' loaders)
_dumps, _dump, _Unpickler = pickle.dumps, pickle.dump, pickle.Unpickler


def _recorded_dumps(obj, *args, **kwargs) -> bytes:
    """The tests' pickle.dumps: its bytes are the judge's own, so loading them again is the tests'
    own pickle (`pickle.loads(pickle.dumps(Cached()))` names a class of the tests: allowed)."""
    data = _dumps(obj, *args, **kwargs)
    if len(data) <= 1 << 20:  # (a bigger one loads as any pickle: only plain data here)
        _OWN_PICKLES.add(data)
    return data


def _recorded_dump(obj, file, *args, **kwargs) -> None:
    file.write(_recorded_dumps(obj, *args, **kwargs))


def _own_pickle(data: bytes) -> bool:
    return data in _OWN_PICKLES or len(_OWN_PICKLES) < 1000 and any(data.startswith(own) for own in _OWN_PICKLES)


def _unpickle(data: bytes, kwargs: dict):
    """(the object, the bytes its pickle took): here if it holds only plain data or is one the
    tests made here, else by the worker."""
    stream = io.BytesIO(data)
    if _own_pickle(data):
        return _Unpickler(stream, **kwargs).load(), stream.tell()
    try:
        return JudgedUnpickler(stream, **kwargs).load(), stream.tell()
    except ModelsPickle:
        loaded, size = rpc._GUARDED.request("unpickle", data, kwargs)
        return loaded, size


def _judged_loads(data, /, **kwargs):
    return _unpickle(bytes(data), kwargs)[0]


def _judged_load(file, **kwargs):
    start = file.tell() if file.seekable() else None
    data = file.read()
    loaded, size = _unpickle(data, kwargs)
    if start is not None:
        file.seek(start + size)  # the next load reads the next pickle, as in pickle.load
    return loaded


pickle.Unpickler, pickle.loads, pickle.load = JudgedUnpickler, _judged_loads, _judged_load
pickle.dumps, pickle.dump = _recorded_dumps, _recorded_dump


def _names_logging_or_a_model_object(name) -> bool:
    """logging.config turns names in a configuration (the model's text, when a test configures
    logging with the settings of the model's code) into calls in the judge: a handler's class, a
    factory `()`, a filter. Only logging's own classes and functions, the standard streams, the
    tests' own, and the workspace's objects (proxies: they run in the worker) are named."""
    if not isinstance(name, str) or "__" in name:
        return False
    if name in ("sys.stdout", "sys.stderr"):
        return True
    found = _RESOLVE_NAME(name)
    if isinstance(found, rpc.Remote):
        return True
    module = sys.modules.get(getattr(found, "__module__", None) or "")
    origin = os.path.realpath(getattr(module, "__file__", None) or "/")
    return isinstance(found, (type, types.FunctionType)) and (
        module is not None and (module.__name__.partition(".")[0] == "logging" or origin.startswith(TESTS_DIR + os.sep)))


def _judged_logging_resolve(resolve):
    def judged(*args):
        name = args[-1]
        if not _names_logging_or_a_model_object(name):
            raise ValueError(f"the judge's logging.config names only logging's classes, the tests' own and the "
                             f"model's objects (a name from the model's text could be any callable): {name!r}")
        return resolve(*args)
    return judged


import _strptime  # noqa: E402, F401 (strptime imports it at its first call: in a test's callback that the model's code called, an import is refused)
import logging.config  # noqa: E402 (its names are resolved as above)
import pkgutil  # noqa: E402

_RESOLVE_NAME = pkgutil.resolve_name
logging.config.BaseConfigurator.resolve = _judged_logging_resolve(logging.config.BaseConfigurator.resolve)
setattr(logging.config, "_resolve", _judged_logging_resolve(getattr(logging.config, "_resolve")))  # (fileConfig's)


class WorkspaceFinder:
    """sys.meta_path entry: the workspace's modules come from the worker, as proxies."""

    @staticmethod
    def find_spec(fullname, path=None, target=None):
        if fullname.partition(".")[0] not in MODULES:
            return None
        return importlib.machinery.ModuleSpec(fullname, WorkspaceLoader(), origin="the model's code, run in the worker")

    @staticmethod
    def invalidate_caches():
        pass

    @staticmethod
    def find_distributions(context=None):
        """importlib.metadata.version("mylib") in a test: the workspace's own *.dist-info, looked up
        by name only (never listed: pytest's plugin discovery must not see a model's entry points)."""
        name = getattr(context, "name", None)
        if not name:
            return iter(())
        import importlib.metadata
        return importlib.metadata.MetadataPathFinder.find_distributions(
            importlib.metadata.DistributionFinder.Context(name=name, path=[SPEC["workspace"]]))


class WorkspaceLoader:
    imported: set = set()  # the workspace's modules the tests imported (a second import is a fresh one)
    imported_again: set = set()  # those imported again: which module the tests' sys.modules holds is the worker's too
    just_made: set = set()  # id() of a module create_module made: its exec_module next is no reload

    @staticmethod
    def create_module(spec):
        __tracebackhide__ = True
        try:
            connection = WORKER.connection()
        except rpc.RpcError as e:
            raise ImportError(f"cannot import {spec.name!r}: {e}", name=spec.name) from None
        try:  # (again: the tests took it out of sys.modules to import it anew, so the worker does too)
            module = connection.request("import", spec.name, spec.name in WorkspaceLoader.imported)
            if spec.name in WorkspaceLoader.imported:
                WorkspaceLoader.imported_again.add(spec.name)
        except SystemExit as e:  # pytest would call it an internal error and say nothing useful
            raise ImportError(f"importing {spec.name!r} in the worker raised SystemExit({e.code!r})",
                              name=spec.name) from None
        if type(module) is not rpc.ModuleProxy:
            raise ImportError(f"{spec.name!r} is not a module in the worker", name=spec.name)
        try:
            where = connection.request("getattr", module, "__file__")
        except AttributeError:  # a namespace package
            where = None
        if type(where) is str and os.path.realpath(where).startswith(os.path.realpath(SPEC["workspace"]) + os.sep):
            # Path(module.__file__).parent / "data": the worker's copy, readable here (never a file of the judge's)
            types.ModuleType.__setattr__(module, "__file__", where)
        doc = connection.request("getattr", module, "__doc__")  # (a module's own __doc__ would hide it)
        types.ModuleType.__setattr__(module, "__doc__", doc if type(doc) is str else None)
        spec.submodule_search_locations = [] if module._rpc_package else None
        WorkspaceLoader.imported.add(spec.name)
        WorkspaceLoader.just_made.add(id(module))
        return module

    @staticmethod
    def exec_module(module):
        """Nothing after create_module (the worker ran the module); `importlib.reload` runs it again there."""
        __tracebackhide__ = True
        if id(module) in WorkspaceLoader.just_made:
            WorkspaceLoader.just_made.discard(id(module))
            return
        try:
            WORKER.connection().request("reload", module)
        except SystemExit as e:
            raise ImportError(f"reloading {module.__name__!r} in the worker raised SystemExit({e.code!r})") from None

    @staticmethod
    def get_resource_reader(fullname):
        """importlib.resources.files("mylib") in a test: the package's folder in the workspace's copy
        (data files, read here as data)."""
        where = getattr(sys.modules.get(fullname), "__file__", None)
        return PackageFiles(os.path.dirname(where)) if type(where) is str else None


class PackageFiles:
    def __init__(self, folder: str):
        self.folder = folder

    def files(self):
        import pathlib
        return pathlib.Path(self.folder)


class ShadowFinder:
    """sys.meta_path entry: a trusted test that imports a name both installed and written in the
    workspace gets an ImportError, not a guess (the installed library would test nothing the
    model wrote; the workspace's would let the model answer for a library the test trusts); so
    does one that imports a test library the workspace has. Imports by installed libraries
    themselves get the installed one. A module of the workspace the task never names is no one's
    (pytest.importorskip would get it, and an installed library's optional import)."""

    @staticmethod
    def find_spec(fullname, path=None, target=None):
        top = fullname.partition(".")[0]
        if top in UNNAMED:  # whoever imports it (pytest.importorskip, an installed library's optional import)
            raise ModuleNotFoundError(f"the tests import {top!r}, which the sandbox interpreter lacks and the task "
                                      f"never names (its prompt, its starting files): the workspace's {top!r} is not "
                                      f"what the task asked for; install {top} in the sandbox interpreter, or name "
                                      f"it in the task", name=fullname)
        if top not in SHADOWED:
            return None
        frame = sys._getframe(1)
        while frame is not None and frame.f_code.co_filename.startswith(("<frozen importlib", IMPORTLIB)):
            frame = frame.f_back
        if frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(TESTS_DIR + os.sep):
            if _test_library(top) and importlib.machinery.PathFinder.find_spec(top, sys.path) is None:
                raise ImportError(f"the tests import the test library {top!r}, which the sandbox interpreter lacks; "
                                  f"the workspace's {top!r} is the model's code and never runs the tests: install "
                                  f"{top} in the sandbox interpreter", name=fullname)
            raise ImportError(f"the workspace's {top!r} shadows the installed library {top!r}: the judge cannot "
                              f"tell which one the tests mean; rename the workspace module", name=fullname)
        return None

    @staticmethod
    def invalidate_caches():
        pass


IMPORTLIB = os.path.dirname(importlib.__file__) + os.sep
sys.meta_path[:0] = [ShadowFinder, WorkspaceFinder]


class ModelCodecs:
    """The codec registry is per interpreter: a codec the model's code registers (idna's
    `codecs.register(search_function)` for "idna2008") lives in the worker, and a test's
    `"x".encode("idna2008")` here would find none. Our search function comes after the standard
    library's and answers a name neither it nor the tests' own search functions know, from the
    worker's registry: the codec's functions and classes are the model's (proxies), and what they
    return is a result, as any call's."""

    tests_own: list = []  # the search functions the tests register (codecs.register below)

    @classmethod
    def search(cls, name):
        conn = WORKER.conn
        if conn is None or conn.broken is not None or type(name) is not str:
            return None  # no model's code imported yet: no codec of its registered either
        if any(own(name) is not None for own in list(cls.tests_own)):
            return None  # theirs answers next (registered after ours)
        try:
            fields = conn.request("codec", name)
        except rpc.RpcError:
            return None
        if type(fields) is not list or len(fields) != 8 or type(fields[0]) is not str:
            return None
        found, text, *parts = fields
        encode, decode, reader, writer, incremental_encoder, incremental_decoder = parts
        return codecs.CodecInfo(encode, decode, reader, writer, incremental_encoder, incremental_decoder,
                                name=found, _is_text_encoding=text is not False)

    @classmethod
    def register(cls, search_function):
        _REGISTER(search_function)
        cls.tests_own.append(search_function)

    @classmethod
    def unregister(cls, search_function):
        _UNREGISTER(search_function)
        cls.tests_own[:] = [f for f in cls.tests_own if f is not search_function]

    @classmethod
    def forget(cls) -> None:
        """A new worker: the codecs the old one answered (cached by the registry) are gone."""
        _UNREGISTER(cls.search)
        _REGISTER(cls.search)


# The tests' TMPDIR is open to the worker (Worker.hand_over_tmp), so multiprocessing keeps its
# folder of sockets elsewhere: a forkserver's socket (no key before Python 3.13) in a folder the
# worker could open would let the model's code ask the judge's forkserver to run what it sends.
multiprocessing.process.current_process()._config["tempdir"] = SPEC["mp_tmp"]  # type: ignore[attr-defined]

_REGISTER, _UNREGISTER = codecs.register, codecs.unregister
codecs.register(ModelCodecs.search)
codecs.register, codecs.unregister = ModelCodecs.register, ModelCodecs.unregister
_codecs.register, _codecs.unregister = ModelCodecs.register, ModelCodecs.unregister  # (a library's own `_codecs` call)

# As root, start the worker now (only root can start it as its own user), then drop to the
# judge's own unprivileged user before any test runs: the judge never acts as root on paths the
# model's code can reach (a planted symlink in tmp_path, a folder swapped mid-walk).
if sys.platform != "win32" and SPEC.get("judge_uid", -1) >= 0 and os.geteuid() == 0:
    WORKER.spawner = Spawner(SPEC)
    os.setgroups([])
    os.setgid(SPEC["judge_uid"])
    os.setuid(SPEC["judge_uid"])
    os.umask(0)  # what the tests create in tmp_path is the worker's to write too (our own folder is 0700)
    _prctl(PR_SET_DUMPABLE, 0)  # setuid resets it
os.umask = _umask
_SETTINGS0 = _settings()


class Record:
    """The judge's own account of the session, written where only the judge can write: what was
    collected, each item's outcome (the worst of its phases), collection errors. The verdict
    reads this, not the JUnit file: nothing here passed through the model's code."""

    RANK = {"passed": 0, "skipped": 1, "failed": 2, "error": 3}

    def __init__(self):
        self.collected, self.collection_errors, self.outcomes = None, [], {}

    def item(self, report) -> None:
        if report.passed:
            outcome = "passed"
        elif report.skipped:  # an xfail too: neither a pass nor a failure
            outcome = "skipped"
        else:
            outcome = "failed" if report.when == "call" else "error"
        before = self.outcomes.get(report.nodeid, "passed")
        if report.nodeid not in self.outcomes or self.RANK[outcome] > self.RANK[before]:
            self.outcomes[report.nodeid] = outcome

    def write(self, exitstatus) -> None:
        data = {"collected": self.collected, "collection_errors": self.collection_errors,
                "outcomes": self.outcomes, "exitstatus": int(exitstatus)}
        fd = os.open(SPEC["record"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC | NOFOLLOW, 0o600)
        with os.fdopen(fd, "w") as f:
            json.dump(data, f)


RECORD = Record()


def _no_current_test_var(item, when) -> None:
    """pytest sets PYTEST_CURRENT_TEST to the test's id, parameters included (the expected values
    of a parametrized test): an os.environ the tests handed the model's code would show it."""


def _neutral_tmp_path(request, factory):
    """tmp_path named `test0`, `test1` ...: pytest names it after the test, parameters included,
    and the worker sees its path."""
    return factory.mktemp("test", numbered=True)


import _pytest._code.code  # noqa: E402 (pytest's own: loaded already)
import _pytest.assertion.rewrite  # noqa: E402
import _pytest.outcomes  # noqa: E402
import _pytest.runner  # noqa: E402
import _pytest.skipping  # noqa: E402
import _pytest.tmpdir  # noqa: E402

_pytest.runner._update_current_test_var = _no_current_test_var
_pytest.tmpdir._mk_tmp = _neutral_tmp_path
_EVALUATE_CONDITION, _pytest.skipping.evaluate_condition = _pytest.skipping.evaluate_condition, _condition_from_the_tests


def pytest_collectreport(report):
    if report.failed:
        RECORD.collection_errors.append(report.nodeid)
    elif report.skipped:  # a module skipped whole (importorskip of a module the model broke): its tests never ran
        RECORD.outcomes[report.nodeid] = "skipped"


def pytest_configure(config):
    """A class pytest's python_classes name (`*Tests`) is a test class while the tests load, too."""
    rpc._policy.TEST_CLASS_NAME = lambda name: _matches(config, "python_classes", name)


@pytest.hookimpl(tryfirst=True)
def pytest_sessionstart(session):
    """From here on the tests' folder is read-only and their source is not opened but to import
    it (_reads_a_tests_source): their lines for tracebacks are read now."""
    global _TESTS_RUNNING
    for folder, _, names in os.walk(TESTS_DIR):
        for name in names:
            if name.endswith(".py"):
                linecache.getlines(os.path.join(folder, name))
    _TESTS_RUNNING = True


def _matches(config, option: str, name: str) -> bool:
    """pytest's own rule for python_functions / python_classes: a prefix, or a glob."""
    return any(name.startswith(pattern) or (any(c in pattern for c in "*?[") and fnmatch.fnmatch(name, pattern))
               for pattern in config.getini(option))


def _source_defs(path: str) -> dict[str, list[str]]:
    """The functions a test file's source defines: the qualified name of each class ("" for the
    module) -> the names of the functions it defines, also inside `if`/`try`/`with` blocks
    (read once per file: its lines are the session's, from linecache)."""
    import ast
    if path in _SOURCE_DEFS:
        return _SOURCE_DEFS[path]
    defs: dict[str, list[str]] = _SOURCE_DEFS.setdefault(path, {})

    def walk(body, qual: str):
        for node in body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                defs.setdefault(qual, []).append(node.name)
            elif isinstance(node, ast.ClassDef):
                walk(node.body, f"{qual}.{node.name}" if qual else node.name)
            elif isinstance(node, (ast.If, ast.Try, ast.With, ast.ExceptHandler)):
                for field in ("body", "orelse", "finalbody", "handlers"):
                    walk(getattr(node, field, None) or [], qual)
    walk(ast.parse("".join(linecache.getlines(path)), path).body, "")
    return defs


def _fixture(value) -> bool:
    """A pytest fixture (a `test_data` fixture is no test)."""
    import _pytest.fixtures
    return _pytest.fixtures.getfixturemarker(value) is not None


_SOURCE_DEFS: dict[str, dict[str, list[str]]] = {}


def _tests_folder_file(cls) -> "str | None":
    module = sys.modules.get(type.__getattribute__(cls, "__module__"))
    file = getattr(module, "__file__", None)
    real = os.path.realpath(file) if isinstance(file, str) else None
    return real if real and real.startswith(TESTS_DIR + os.sep) else None


def _modules_by_file() -> dict:
    """The real path of each loaded module's file -> the module loaded first from it (pytest names
    test modules its own way). One realpath per module per check: hundreds are loaded."""
    found: dict = {}
    for module in list(sys.modules.values()):
        if type(module) is not types.ModuleType:  # a proxy of the model's module may claim any file
            continue
        file = getattr(module, "__file__", None)
        if isinstance(file, str):
            found.setdefault(os.path.realpath(file), module)
    return found


def _runs(item) -> tuple[str, str]:
    """(file, qualified name) of the test code an item runs: its function's own code (through
    functools.wraps); for a function the model's code made, the test's own by the item's place
    (TestBody holds the wrapper to calling exactly that)."""
    function = inspect.unwrap(getattr(item, "function", None) or (lambda: None))
    code = function.__code__ if type(function) is types.FunctionType else None
    if code is None or _made_by_the_model(getattr(item, "obj", None)):
        cls = getattr(item, "cls", None)
        return os.path.realpath(str(item.path)), (f"{cls.__qualname__}." if cls else "") + item.originalname
    return os.path.realpath(code.co_filename), code.co_qualname


def _expected_methods(config, cls) -> list[str]:
    """The test methods pytest collects from a test class, and those the tests' source defines
    for it that a decorator of the model's code turned into something pytest skips (None): each
    `test*` function the source of a class in its MRO, in the tests' folder, defines."""
    import unittest
    case = issubclass(cls, unittest.TestCase)
    names: list[str] = []
    for klass in cls.__mro__:
        path = _tests_folder_file(klass)
        if path is None:
            continue
        for name in _source_defs(path).get(klass.__qualname__, []):
            if name not in names and not _fixture(type.__getattribute__(klass, "__dict__").get(name)) and \
                    (name.startswith("test") if case else _matches(config, "python_functions", name)):
                names.append(name)
    return names


def _test_classes(config, module) -> list[type]:
    """The classes pytest collects from a test module (as it does: by name or as a
    unittest.TestCase, `__test__` not false, no __init__), nested test classes too; and a class
    named as a test class on a base of the model's code, whose constructor (the model's `__init__`,
    the judge's `__new__`) pytest refuses: its tests are expected, never collected, an error."""
    import unittest
    found, todo = [], [v for v in vars(module).values() if isinstance(v, type)]
    while todo:
        cls = todo.pop()
        case = issubclass(cls, unittest.TestCase)
        if cls in found or not getattr(cls, "__test__", True) or _tests_folder_file(cls) is None:
            continue
        if case or (_matches(config, "python_classes", cls.__name__) and (
                ("__init__" not in vars(cls) and cls.__init__ is object.__init__)
                or issubclass(cls, rpc.ModelSubclass))):  # an __init__ or __new__ of the model's base never hides tests
            found.append(cls)
            todo += [v for v in vars(cls).values() if isinstance(v, type) and not case]
    return found


def _tests_not_theirs(session) -> list[str]:
    """What the tests define but never runs as itself: every test function of a test module
    (from its source, also inside blocks, bound after the import: a false guard binds nothing)
    must be the code of a collected item; every test method of a class pytest collects (through
    its MRO, from the sources in the tests' folder: mixins, bases in helper modules) must be
    collected for that class; and a class of the source whose name is bound to something else
    after the import (None, another class) leaves its tests uncollected. A decorator of the
    model's code that returns None, a class of its own or another test for a hard one makes it
    vanish or run an easy body under its name: an error (what is not run cannot fail). A
    function the model's code handed back must be the very test it stands for."""
    config, root = session.config, str(session.config.rootpath)
    runs = {_runs(item) for item in session.items}
    pairs = {(getattr(item, "cls", None), item.originalname) for item in session.items}
    wrong = []
    for item in session.items:
        function = getattr(item, "function", None)
        if function in rpc._policy.HANDED_BACK and _runs(item) != (os.path.realpath(str(item.path)), (
                f"{item.cls.__qualname__}." if getattr(item, "cls", None) else "") + item.originalname):
            wrong.append(f"{item.nodeid}: runs {_runs(item)[1]}, which the model's code handed back for it")
    errors = set(RECORD.collection_errors)
    modules = {item.nodeid.split("::")[0] for item in session.items} | {
        os.path.relpath(os.path.join(folder, name), root) for folder, _, names in os.walk(TESTS_DIR) for name in names
        if name.endswith(".py") and any(fnmatch.fnmatch(name, g) for g in config.getini("python_files"))}
    loaded_from = _modules_by_file()
    for module in sorted(modules - errors):
        path = os.path.realpath(os.path.join(root, module))
        loaded = loaded_from.get(path)
        if loaded is None:
            continue
        defs = _source_defs(path)
        for name in defs.get("", []):
            if _matches(config, "python_functions", name) and name in vars(loaded) and (path, name) not in runs \
                    and not _fixture(vars(loaded)[name]):
                wrong.append(f"{module}::{name}: defined in the tests' source, never run as itself")
        for cls in _test_classes(config, loaded):
            for name in _expected_methods(config, cls):
                if (cls, name) not in pairs:
                    wrong.append(f"{module}::{cls.__qualname__}::{name}: a test of the class, never collected")
        for qual, names in defs.items():
            top = qual.partition(".")[0]
            bound = vars(loaded).get(top, _MISSING)
            if not qual or bound is _MISSING or (isinstance(bound, type) and bound.__qualname__ == top
                                                 and _tests_folder_file(bound) == path):
                continue  # the module's own functions (above), a false guard, or the class itself (above)
            wrong += [f"{module}::{qual.replace('.', '::')}::{name}: its class's name is bound to something else"
                      for name in names if name.startswith("test") and (path, f"{qual}.{name}") not in runs]
    return wrong


_MISSING = object()


# The tests' own functions that ran while the tests loaded (a test factory, a class body made in
# one): what they define is made at import; a test among it must be collected (_made_and_lost).
_RAN_AT_IMPORT: set = set()
# What such a function returned when it is, or holds, a function it made (`return check`, maybe
# under a decorator: `property(check)`): bound to a test's name, it must be collected (_made_and_lost).
_MADE_AT_IMPORT: dict[int, object] = {}
# And where the tests' code called that function: (what it returned, file, line). A statement there
# that binds a test's name (`test_x = timed(make_test(...))`) must end in a collected test, whatever
# a decorator between made of it (`timed = bool` keeps nothing of it: red team round 38).
_MADE_WHERE: list[tuple] = []


def _note_import_calls(frame, event, arg):
    code = frame.f_code
    if not code.co_filename.startswith(TESTS_DIR + os.sep):
        return
    if event == "call":
        _RAN_AT_IMPORT.add(code)
    elif event == "return" and code.co_flags & inspect.CO_NEWLOCALS and _holds_one_it_made(arg, code):
        _MADE_AT_IMPORT[id(arg)] = arg
        caller = frame.f_back
        if caller is not None and caller.f_code.co_filename.startswith(TESTS_DIR + os.sep):
            _MADE_WHERE.append((arg, caller.f_code.co_filename, caller.f_lineno))


def _bound_at(config, filename: str, line: int) -> tuple[list[str], bool]:
    """What the statement spanning `line` of a module's or class body binds (from the tests'
    source, read before they ran: linecache): the names matching python_functions among its plain
    targets, and whether it may bind others the source does not name (a subscript or attribute
    target, `globals()[f"test_{n}"] = ...`; a call statement: `setattr(...)`, `globals().update(...)`)."""
    try:
        tree = ast.parse("".join(linecache.getlines(filename)))
    except (SyntaxError, ValueError):
        return [], True
    names, unnamed, bodies = [], False, [tree.body]
    while bodies:
        for stmt in bodies.pop():
            if isinstance(stmt, ast.ClassDef):
                bodies.append(stmt.body)
            elif not stmt.lineno <= line <= (stmt.end_lineno or stmt.lineno):
                continue
            elif isinstance(stmt, (ast.Assign, ast.AnnAssign)):
                targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
                names += [t.id for t in targets if isinstance(t, ast.Name) and _matches(config, "python_functions", t.id)]
                unnamed |= not all(isinstance(t, ast.Name) for t in targets)
            else:
                unnamed |= isinstance(stmt, ast.Expr) or not isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef))
    return names, unnamed


def _made_functions(made) -> set[int]:
    """The ids of the functions a factory's result is or holds."""
    functions = [made] if type(made) is types.FunctionType else gc.get_referents(made)
    return {id(f) for f in functions if type(f) is types.FunctionType}


def _kept_by_nothing(made: list) -> set[int]:
    """The ids of what factories of the tests made that nothing refers to but the judge's own
    records of them: one pass over what the collector tracks (before gc.freeze hides it)."""
    wanted = {id(m) for m in made}
    ours = {id(_MADE_AT_IMPORT), id(_MADE_WHERE), id(made), *map(id, _MADE_WHERE)}
    kept = set()
    for obj in gc.get_objects():
        if id(obj) not in ours and not isinstance(obj, types.FrameType):
            kept.update(id(r) for r in gc.get_referents(obj) if id(r) in wanted)
    return wanted - kept


def _holds_one_it_made(value, code) -> bool:
    made = {c for c in code.co_consts if isinstance(c, types.CodeType)}
    if not made or isinstance(value, (type, list, tuple, dict, set, frozenset)):
        return False  # data a factory returns (a table of cases) is no test
    inside = [value] if type(value) is types.FunctionType else gc.get_referents(value)
    return any(type(f) is types.FunctionType and f.__code__ in made for f in inside)


def _made_or_holds_one(value, namespaces: frozenset = frozenset()) -> bool:
    """What a factory of the tests returned, or an object that holds it (`test_x =
    timed(make_test(...))` with the model's `timed = property`: red team round 35), also in the
    tuples, lists and dicts it holds (a builtin exception's args: `timed = ValueError`, round 40),
    never through a module's namespace (`namespaces`: their ids; a function holds its module's)."""
    todo, seen = [(value, 0)], set()
    while todo:
        x, depth = todo.pop()
        if _MADE_AT_IMPORT.get(id(x), _MISSING) is x:
            return True
        if id(x) in seen or depth > 3 or (depth and (type(x) not in (tuple, list, dict) or id(x) in namespaces)):
            continue
        seen.add(id(x))
        todo += [(r, depth + 1) for r in gc.get_referents(x)]
    return False


def _item_functions(item) -> list:
    """Each function an item's object is: the tests' own, through the wrappers of their own
    (`__wrapped__`), and the one a wrapper of the model's was made from."""
    found, obj = [], getattr(item, "obj", None)
    for _ in range(64):
        obj = obj.__func__ if type(obj) is types.MethodType else obj
        if isinstance(obj, rpc.Remote):
            obj = rpc._policy.made_from(obj)
        if type(obj) is not types.FunctionType:
            break
        found.append(obj)
        obj = obj.__dict__.get("__wrapped__")
    return found


def _item_codes(item) -> set:
    """(file, qualified name) of each of _item_functions."""
    return {(os.path.realpath(f.__code__.co_filename), f.__code__.co_qualname) for f in _item_functions(item)}


def _made_and_lost(session) -> list[str]:
    """A test function that a function of the tests made while they loaded (`test_x =
    make_test(...)`, a class made by a function) and that no collected item is: something between
    (a decorator, also a builtin the model's module names as one: `timed = bool`) made it vanish."""
    config, collected = session.config, set().union(*map(_item_codes, session.items))
    collected_functions = {id(f) for item in session.items for f in _item_functions(item)}
    wrong = set()
    for ran in _RAN_AT_IMPORT:
        if not ran.co_flags & inspect.CO_NEWLOCALS and "<locals>" not in ran.co_qualname:
            continue  # a module's or a module-level class's body: _tests_not_theirs reads them from the source
        for made in ran.co_consts:
            if isinstance(made, types.CodeType) and _matches(config, "python_functions", made.co_name) and \
                    (os.path.realpath(made.co_filename), made.co_qualname) not in collected:
                wrong.add(f"{os.path.relpath(made.co_filename, str(config.rootpath))}::{made.co_qualname}: a test "
                          f"made while the tests loaded, never collected")
    names = {(os.path.realpath(str(item.path)), getattr(item.cls, "__qualname__", ""), getattr(item, "originalname", item.name))
             for item in session.items}
    unnamed = []  # entries of _MADE_WHERE (no other reference to what they made)
    for entry in _MADE_WHERE:
        _, filename, line = entry
        # the very function collected (a sibling the same factory made is no stand-in for it: round 41)
        bound, elsewhere = ([], False) if _made_functions(entry[0]) & collected_functions else _bound_at(config, filename, line)
        for name in bound:
            wrong.add(f"{os.path.relpath(filename, str(config.rootpath))}:{line}: {name}: a test a function of the "
                      f"tests made while they loaded, never collected")
        if elsewhere and not bound:
            unnamed.append(entry)
    # bound where the source names no test (`globals()[f"test_{n}"] = timed(make_test(n))`) through
    # something that keeps nothing of it (the model's `timed = bool`: red team round 39)
    lost = _kept_by_nothing([entry[0] for entry in unnamed]) if unnamed else set()
    for made, filename, line in unnamed:
        if id(made) in lost:
            wrong.add(f"{os.path.relpath(filename, str(config.rootpath))}:{line}: what a function of the tests made "
                      f"while they loaded is kept by nothing and never collected (a test made to vanish?)")
    namespaces = frozenset(id(vars(m)) for m in list(sys.modules.values()) if type(m) is types.ModuleType)
    for module in list(sys.modules.values()):
        path = os.path.realpath(getattr(module, "__file__", None) or "")
        if not path.startswith(TESTS_DIR + os.sep):
            continue
        # the module and its test classes: those named so and those pytest collects whatever their name (a
        # TestCase: round 42), nested ones too
        classes = [v for k, v in vars(module).items() if isinstance(v, type) and _matches(config, "python_classes", k)]
        spaces = [("", {k: (v, path) for k, v in list(vars(module).items())})] + \
            [(v.__qualname__, _class_space(v)) for v in dict.fromkeys(classes + _test_classes(config, module))]
        # what the import system binds in a package of the tests: its submodules (`tests.test_calc`
        # once imported), the very module sys.modules holds under that name; never a test
        submodules = {k for k, v in list(vars(module).items()) if type(v) is types.ModuleType and type(k) is str
                      and getattr(v, "__name__", None) == f"{module.__name__}.{k}" and sys.modules.get(v.__name__) is v}
        for owner, space in spaces:
            lost = [name for name in space if type(name) is str and _matches(config, "python_functions", name)
                    and (path, owner, name) not in names]
            wrong.update(f"{os.path.relpath(path, str(config.rootpath))}::{owner + '::' if owner else ''}{name}: a test "
                         f"a function of the tests made while they loaded, never collected"
                         for name in lost if _made_or_holds_one(space[name][0], namespaces))
            # bound at import where the source names it nowhere (`globals()[f"test_{n}"] = timed(check)`, the
            # checks made earlier into a dict, on a test class or a mixin of one) and not collected: what
            # stands there is no test (rounds 41-43)
            wrong.update(f"{os.path.relpath(path, str(config.rootpath))}::{owner + '::' if owner else ''}{name}: bound "
                         f"to a test's name while the tests loaded, where their source names none, never collected"
                         for name in lost if name not in _source_names(space[name][1])
                         and (owner or name not in submodules))
    return sorted(wrong)


def _class_space(cls) -> dict:
    """name -> (value, source file) of what a test class holds, its own and what it inherits from
    the classes of the tests' folder (a mixin's, a base's), as its MRO resolves them."""
    space: dict = {}
    for klass in type.__getattribute__(cls, "__mro__"):
        file = _tests_folder_file(klass)
        for name, value in list(type.__getattribute__(klass, "__dict__").items()):
            if name not in space:
                space[name] = (value, file)
    return {name: entry for name, entry in space.items() if entry[1] is not None}


def _source_names(path: str) -> set:
    if path not in _SOURCE_NAMES:
        _SOURCE_NAMES[path] = _names_the_source_binds(path)
    return _SOURCE_NAMES[path]


_SOURCE_NAMES: dict[str, set] = {}


def _names_the_source_binds(path: str) -> set:
    """Every name a test module's source binds by name anywhere (assignments, loop and `with`
    targets, defs, classes, imports), and what its star imports of the tests' own modules bring."""
    tree = ast.parse("".join(linecache.getlines(path)), path)
    named = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            named.add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            named.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            for alias in node.names:
                if alias.name != "*":
                    named.add(alias.asname or alias.name.partition(".")[0])
                elif isinstance(node, ast.ImportFrom) and node.module:  # (also `from .helpers import *`)
                    named.update(*(vars(m) for k, m in list(sys.modules.items())
                                   if (k == node.module or k.endswith("." + node.module)) and type(m) is types.ModuleType
                                   and (getattr(m, "__file__", None) or "").startswith(TESTS_DIR + os.sep)))
    return named


def _noting_import_calls(exec_module, loader, module):
    """Runs a module of the tests (a conftest loads before collection) with _note_import_calls on.
    The hook is on only while the tests load, never through pytest's own start: a profile function
    costs every call it sees (it was a third of a small judged run's time)."""
    if not (rpc._policy.IMPORTING and (getattr(module, "__file__", None) or "").startswith(TESTS_DIR + os.sep)):
        return exec_module(loader, module)
    before = sys.getprofile()
    sys.setprofile(_note_import_calls)
    try:
        return exec_module(loader, module)
    finally:
        sys.setprofile(before)


@pytest.hookimpl(tryfirst=True)
def pytest_collection(session):
    sys.setprofile(_note_import_calls)  # until pytest_collection_finish


# -- a test's failed check counts wherever it is caught, but by the tests' own code ----------------
# The tests' failed `assert`s (pytest rewrites them to `raise AssertionError(...)`, a name looked up
# in the module: every module of the tests is rewritten and gets the class below) and their
# pytest.fail() are recorded; at the end of each phase of a test, a recorded one that is not the
# phase's failure and that other code caught (an event loop's callback runner, a Future's
# callbacks, sqlite3's C code, the model's code) fails the test. The tests' own `except`, `with
# pytest.raises`, pytest.raises(f) and unittest's assertRaises(f) are theirs to catch with.
_CHECKS_FAILED: list = []
_CATCHERS_OF_THE_TESTS = tuple(os.sep + os.path.join(*parts) for parts in (
    ("_pytest", "raises.py"), ("_pytest", "python_api.py"), ("unittest", "case.py")))


def _of_the_tests(code) -> bool:
    return code.co_filename.startswith(TESTS_DIR + os.sep)


def _ops_from(frame, offset: int) -> list:
    """The names of the instructions of the frame's code from `offset` on (a few)."""
    return [i.opname for i in dis.get_instructions(frame.f_code) if i.offset >= offset
            and i.opname != "EXTENDED_ARG"][:3] + [None, None, None]


def _raises_it(frame) -> bool:
    """Whether the frame raises what it is making now (`raise AssertionError(...)`, `... from e`, a
    bare `raise AssertionError`), not keeping it."""
    ops = _ops_from(frame, frame.f_lasti)
    return ops[0] == "RAISE_VARARGS" or ops[1] == "RAISE_VARARGS" or \
        (str(ops[1]).startswith("LOAD_") and ops[2] == "RAISE_VARARGS")


def _ended_raising(frame, tb) -> bool:
    """Whether the tests' frame a failure is traced to ended with it (a C caller caught it): it
    stopped where it raised, or in a raise (a `finally:` re-raising it), not in a handler of its own."""
    return frame.f_lasti == tb.tb_lasti or _ops_from(frame, frame.f_lasti)[0] in ("RERAISE", "RAISE_VARARGS")


_ASSERTING_LIBRARIES = (os.sep + "_pytest" + os.sep, os.sep + "unittest" + os.sep)


def _record_if_the_tests(failure, frame) -> None:
    """Record a failure the frame makes, if it raises it for the tests' own code: their `assert`,
    or pytest.fail() / a unittest assertion (self.assertEqual ...) they call."""
    if not _raises_it(frame):
        return
    if os.sep + "unittest" + os.sep in frame.f_code.co_filename:
        _CHECKS_FAILED.append(failure)  # unittest's and mock's assertions run here only as the tests' checks
        return                          # (also one a callback runs: functools.partial(self.assertIn, ...))
    while frame is not None and (any(part in frame.f_code.co_filename for part in _ASSERTING_LIBRARIES)
                                 or frame.f_code.co_filename.endswith(os.sep + "typing.py")  # assert_never
                                 or frame.f_code.co_filename == __file__):  # (_recorded_match below)
        frame = frame.f_back
    if frame is not None and _of_the_tests(frame.f_code):
        _CHECKS_FAILED.append(failure)


class _TestsAssertionError(AssertionError):
    """AssertionError as the tests' own code raises it (also unittest's failureException): recorded.
    It looks and crosses as the builtin."""

    def __init__(self, *args):
        super().__init__(*args)
        _record_if_the_tests(self, sys._getframe(1))

    def __reduce__(self):
        return AssertionError, self.args

    def with_traceback(self, tb):  # unittest's assertRaises drops it: where it was caught is kept
        if tb is None and self.__traceback__ is not None:
            self.__dict__["__caught_at__"] = self.__traceback__
        return super().with_traceback(tb)


_TestsAssertionError.__name__ = _TestsAssertionError.__qualname__ = "AssertionError"
_TestsAssertionError.__module__ = "builtins"
rpc._BUILTIN_TYPE_NAMES[id(_TestsAssertionError)] = "AssertionError"
_failed_init = _pytest.outcomes.Failed.__init__


def _recorded_failed_init(self, *args, **kwargs):
    _failed_init(self, *args, **kwargs)
    _record_if_the_tests(self, sys._getframe(1))


_pytest.outcomes.Failed.__init__ = _recorded_failed_init
if unittest.TestCase.failureException is AssertionError:
    unittest.TestCase.failureException = _TestsAssertionError
unittest.mock.AssertionError = _TestsAssertionError  # type: ignore[attr-defined]  # (mock.assert_called_with ...)
for _name in ("_pytest.raises", "_pytest.python_api", "_pytest.recwarn", "typing"):  # raises(match=), assert_never
    if _name in sys.modules:
        sys.modules[_name].AssertionError = _TestsAssertionError  # type: ignore[attr-defined]
_match = _pytest._code.code.ExceptionInfo.match


def _recorded_match(self, regexp):
    """excinfo.match(...) fails with a plain `assert` of pytest's own: raised as the tests' check."""
    try:
        return _match(self, regexp)
    except AssertionError as failed:
        if type(failed) is AssertionError:
            raise _TestsAssertionError(*failed.args) from None
        raise


_pytest._code.code.ExceptionInfo.match = _recorded_match
_should_rewrite = _pytest.assertion.rewrite.AssertionRewritingHook._should_rewrite


_exec_module = _pytest.assertion.rewrite.AssertionRewritingHook.exec_module
_early_rewrite_bailout = _pytest.assertion.rewrite.AssertionRewritingHook._early_rewrite_bailout


def _bail_out_unless_the_tests(self, name, state):
    """pytest's quick skip of a module by its name, but never of one in the tests' folder (`helpers`)."""
    where = os.path.join(TESTS_DIR, *name.split("."))
    return not (os.path.isfile(where + ".py") or os.path.isdir(where)) and _early_rewrite_bailout(self, name, state)


def _rewrite_every_module_of_the_tests(self, name, fn, state):
    return fn.startswith(TESTS_DIR + os.sep) or _should_rewrite(self, name, fn, state)


def _exec_a_module_of_the_tests(self, module):
    """A module of the tests (also one a test imports late) gets the recording AssertionError."""
    if (getattr(module, "__file__", None) or "").startswith(TESTS_DIR + os.sep):
        vars(module).setdefault("AssertionError", _TestsAssertionError)
    return _noting_import_calls(_exec_module, self, module)


# A module of the tests loaded by path (`spec_from_file_location` + `exec_module`, past pytest's
# hook) gets its asserts rewritten and the recording AssertionError, like the rest.
_source_to_code = importlib.machinery.SourceFileLoader.source_to_code
_exec_source = importlib.machinery.SourceFileLoader.exec_module


def _tests_source_to_code(self, data, path, *args, **kwargs):
    if not str(path).startswith(TESTS_DIR + os.sep):
        return _source_to_code(self, data, path, *args, **kwargs)
    tree = ast.parse(data, filename=str(path))
    _pytest.assertion.rewrite.rewrite_asserts(tree, data, str(path), None)
    return compile(tree, str(path), "exec", dont_inherit=True)


def _exec_source_of_the_tests(self, module):
    if (getattr(module, "__file__", None) or "").startswith(TESTS_DIR + os.sep):
        vars(module).setdefault("AssertionError", _TestsAssertionError)
    return _noting_import_calls(_exec_source, self, module)


importlib.machinery.SourceFileLoader.source_to_code = _tests_source_to_code
importlib.machinery.SourceFileLoader.exec_module = _exec_source_of_the_tests
_pytest.assertion.rewrite.AssertionRewritingHook._should_rewrite = _rewrite_every_module_of_the_tests
_pytest.assertion.rewrite.AssertionRewritingHook.exec_module = _exec_a_module_of_the_tests
_pytest.assertion.rewrite.AssertionRewritingHook._early_rewrite_bailout = _bail_out_unless_the_tests


def _record_the_tests_checks() -> None:
    _CHECKS_FAILED.clear()
    for module in list(sys.modules.values()):
        if (getattr(module, "__file__", None) or "").startswith(TESTS_DIR + os.sep):
            vars(module).setdefault("AssertionError", _TestsAssertionError)


def _caught_by(check) -> str | None:
    """Where a failed check of the tests was caught, when not by the tests' own code (else None)."""
    tb = check.__traceback__ or check.__dict__.get("__caught_at__")
    if tb is None:
        return "C code, which kept no trace of it"
    code = tb.tb_frame.f_code
    if _of_the_tests(code):  # the tests' frame went on after it (it caught it), or ended with it (C code called it)
        return f"the C code that called {code.co_qualname}" if _ended_raising(tb.tb_frame, tb) else None
    if code.co_filename.endswith(_CATCHERS_OF_THE_TESTS):  # pytest.raises(E, f), assertRaises(E, f): by whom?
        caller = tb.tb_frame
        while caller is not None and caller.f_code.co_filename.endswith(_CATCHERS_OF_THE_TESTS):
            caller = caller.f_back
        if caller is not None and _of_the_tests(caller.f_code):
            return None
    return f"{code.co_qualname} ({os.path.basename(code.co_filename)}:{tb.tb_lineno})"


def _checks_swallowed(call) -> list[tuple]:
    """(check, where it was caught) for each failed check of the tests in this phase that is not its
    failure and that code other than the tests' caught."""
    recorded = list(_CHECKS_FAILED)
    _CHECKS_FAILED.clear()
    reported, error = set(), call.excinfo.value if call.excinfo is not None else None
    for _ in range(64):
        if error is None:
            break
        reported.add(id(error))
        error = error.__cause__ or error.__context__
    found = [(check, _caught_by(check)) for check in recorded if id(check) not in reported]
    return [(check, where) for check, where in found if where is not None]


def pytest_collection_finish(session):
    sys.setprofile(None)
    _record_the_tests_checks()
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    for why in _tests_not_theirs(session) + _made_and_lost(session):
        RECORD.collection_errors.append(why)
        if reporter is not None:
            reporter.write_line(f"ERROR {why} (a decorator of the model's code?): counted as an error")
    RECORD.collected = len(session.items)
    rpc._policy.IMPORTING = False
    rpc.TEST_CLASSES.update(item.cls for item in session.items if getattr(item, "cls", None) is not None)
    gc.freeze()  # what pytest and the tests loaded stays: the collections while tests run (pytest's own
    # five at the end, a suite's many calls) scan only what the tests made since


def pytest_runtest_logreport(report):
    RECORD.item(report)


class Overtime(BaseException):
    """A test ran over its time in the judge (SPEC["test_timeout"]). Not an Exception: a test's
    `except Exception` or `pytest.raises(Exception)` must not take a hang for the expected error."""


rpc._policy.NOT_FOR_THE_MODEL = (Overtime,)
_OVERTIME = ("this test ran over %g s in the judge (waiting for something that did not come?); "
             "the other tests go on")


_REPORTING = False  # while pytest writes a test's report (its traceback of a big file can take long)


def _overtime(signum, frame):
    if not _REPORTING:  # (an Overtime inside pytest's own report making would end the session)
        raise Overtime(_OVERTIME % SPEC["test_timeout"])


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    """One test's time is bounded: a hang costs that test (again every second, should the test
    catch the first), and the worker it left mid-call is replaced for the next test. Without
    SIGALRM (Windows) the worker is ended at the time instead, which fails the call it hangs in."""
    rpc._policy.CURRENT_TEST[0] = item.nodeid  # (said where the objects under test ended, UnderTest)
    if sys.platform == "win32" or not hasattr(signal, "setitimer"):
        timer = threading.Timer(SPEC["test_timeout"], WORKER.overtime)
        timer.daemon = True
        timer.start()
        try:
            yield
        finally:
            timer.cancel()
        return
    previous = signal.signal(signal.SIGALRM, _overtime)
    signal.setitimer(signal.ITIMER_REAL, SPEC["test_timeout"], 1.0)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """A test's failed assertion that went into the model's code and never came out (its
    context manager's __exit__ returned True, it caught what a callback raised) fails the test."""
    global _REPORTING
    _REPORTING = True
    try:
        outcome = yield
    finally:
        _REPORTING = False
    kept = rpc.failures_kept_by_the_model()
    swallowed = _checks_swallowed(call)
    report = outcome.get_result()
    error = call.excinfo.value if call.excinfo is not None else None
    for _ in range(8):  # the model's traceback, for the reader (never a note that `match=` would search)
        if error is None:
            break
        text = error.__dict__.get("_rpc_traceback") if hasattr(error, "__dict__") else None
        if type(text) is str:
            report.sections.append(("Traceback in the worker (the model's code)", text))
            break
        error = error.__cause__ or error.__context__
    if call.when == "call" and report.passed and item.stash.get(BODY_NOT_RUN, None):
        report.outcome = "failed"
        report.longrepr = item.stash[BODY_NOT_RUN]
    if HIDDEN and report.passed:
        report.outcome = "failed"
        report.longrepr = "\n".join(f"the model's code made {path} its own user's alone: the tests cannot look into it "
                                     f"judged, where a plain run can (not judged)" for path in sorted(HIDDEN))
    elif KEPT_BY_THE_WORKER and report.passed:
        report.outcome = "failed"
        report.longrepr = "\n".join(f"the model's code changed its process's {part}, which the tests cannot take "
                                     f"({why}): in a plain run it is theirs (not judged)"
                                     for part, why in sorted(KEPT_BY_THE_WORKER.items()))
    elif UNFOLLOWED and report.passed:
        report.outcome = "failed"
        report.longrepr = "\n".join(f"the test patched {name} and called the model's code: {why}, so the model's code "
                                     f"would not see the test's value (not judged)" for name, why in sorted(UNFOLLOWED.items()))
    elif kept and report.passed:
        report.outcome = "failed"
        report.longrepr = ("the test's own check failed inside the model's code, which did not let it through "
                           f"(it counts all the same):\n{type(kept[0]).__name__}: {kept[0]}")
    elif swallowed and report.passed:
        check, where = swallowed[0]
        report.outcome = "failed"
        report.longrepr = (f"the test's own check failed and was caught by {where}, not by the tests (it counts "
                           f"all the same):\n{type(check).__name__}: {check}")
    if call.when == "call":
        UNFOLLOWED.clear()  # (said once: a test that failed on its own is not also an error at teardown)
        HIDDEN.clear()
        KEPT_BY_THE_WORKER.clear()


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item):
    UNFOLLOWED.clear()
    HIDDEN.clear()  # (KEPT_BY_THE_WORKER stands until a test's report: a change at import fails the first test)
    WORKER.revive()


def _models_wrapper(obj):
    """The model's code's wrapper a test function is (its decorator's), also under a wrapper of
    the tests' own (`@mock.patch` above it, through `__wrapped__`); None if it is not one."""
    for _ in range(64):
        obj = obj.__func__ if type(obj) is types.MethodType else obj
        if isinstance(obj, rpc.Remote):
            return obj
        if type(obj) is not types.FunctionType:
            return None
        obj = obj.__dict__.get("__wrapped__")
    return None


def _made_by_the_model(obj) -> bool:
    """A test function the model's code returned (the wrapper of its decorator): whether and how
    the test's own body runs is then the model's code's to decide."""
    return _models_wrapper(obj) is not None


@pytest.hookimpl(tryfirst=True)
def pytest_fixture_setup(fixturedef, request):
    """A fixture whose function is the model's code (its decorator under `@pytest.fixture`) is not
    judged: its wrapper would make the value the tests check against."""
    if _made_by_the_model(getattr(fixturedef, "func", None)):
        pytest.fail(f"the fixture {fixturedef.argname!r} is the model's code (a decorator of the model's under "
                    f"@pytest.fixture): it would make the values the tests check against; not judged", pytrace=False)
    return None


def _vanished(session) -> list[str]:
    """The tests' functions the model's code got while the tests were imported and neither called
    nor handed back as that call's result (a decorator whose wrapper never runs the test, returns
    None or another test): each is an error, unless pytest skipped the test it is."""
    skipped = set()
    for item in session.items:
        if RECORD.outcomes.get(item.nodeid) == "skipped":
            cls = getattr(item, "cls", None)
            skipped.add((os.path.realpath(str(item.path)), (f"{cls.__qualname__}." if cls else "") + item.originalname))
    wrong = []
    for function in rpc._policy.HANDED_AT_IMPORT.values():
        code = function.__code__
        where = (os.path.realpath(code.co_filename), code.co_qualname)
        if where not in skipped:
            wrong.append(f"{os.path.relpath(where[0], str(session.config.rootpath))}::{code.co_qualname}: handed to "
                         f"the model's code while the tests were imported (a decorator of the model's?), never run")
    return wrong




class Argument:
    """What reaches a test function the model's code made for each argument pytest gives it (a
    fixture's value, a parameter, the expected value too): a token, which the wrapper can only
    hand on to the test's body, where the judge puts the value back (TestBody.call)."""

    __slots__ = ("name",)

    def __init__(self, name: str):
        self.name = name

    def __repr__(self):
        return f"<the test's argument {self.name}>"


class TestBody:
    """A test function the model's code made: the calls its wrapper makes of the test's own
    function (the one defined in the tests' file under the item's name). The wrapper gets
    pytest's arguments as tokens (Argument); the test passes only if the wrapper's last call of
    the test's function handed on exactly those tokens and returned: a wrapper that never calls
    the body, leaves it at the model's first answer (an error it then swallows), or hands it
    values of its own decides nothing, and never sees the expected value. (Earlier calls may end
    as they will: a retry; a failed assertion in any of them counts, as in every callback.)"""

    def __init__(self, item):
        self.item = item
        qualname = (f"{item.cls.__qualname__}." if getattr(item, "cls", None) else "") + item.originalname
        self.where = (os.path.realpath(str(item.path)), qualname)
        # the function the wrapper was made from while the tests loaded; else the one of its name here
        self.own = rpc._policy.made_from(_models_wrapper(getattr(item, "obj", None)))
        info, funcargs = getattr(item, "_fixtureinfo", None), getattr(item, "funcargs", {})
        self.values = {name: funcargs[name] for name in (info.argnames if info is not None else ()) if name in funcargs}
        self.tokens = {name: Argument(name) for name in self.values}
        self.calls: list = []

    def is_the_tests_own(self, target) -> bool:
        if self.own is not None:
            return target is self.own
        code = target.__code__ if type(target) is types.FunctionType else None
        return code is not None and (os.path.realpath(code.co_filename), code.co_qualname) == self.where

    def _value(self, x):
        return self.values[x.name] if type(x) is Argument and self.tokens.get(x.name) is x else x

    def call(self, target, args: tuple, kwargs: dict):
        entry = [target, args, kwargs, None]
        self.calls.append(entry)
        try:
            return target(*map(self._value, args), **{k: self._value(v) for k, v in kwargs.items()})
        except BaseException as error:
            entry[3] = error  # (its own entry: a call of the body from within it may come after)
            raise

    def why_not(self):
        """Why the test cannot pass (None: it may)."""
        if not self.calls:
            return "the test's body never ran: the test function is the model's code (its decorator's wrapper), " \
                   "which did not call it"
        target, args, kwargs, error = self.calls[-1]
        if inspect.iscoroutinefunction(target) or inspect.isgeneratorfunction(target) \
                or inspect.isasyncgenfunction(target):
            return "an async or generator test under a decorator of the model's code is not judged: whether its " \
                   "body ran to its end cannot be known"
        if error is not None:
            return (f"the test's body ended with {type(error).__name__} in the hands of the model's code (its "
                    f"decorator's wrapper), which did not let it through")
        try:
            arguments = inspect.signature(target).bind(*args, **kwargs).arguments
        except TypeError as e:
            return f"the model's code called the test's body with arguments pytest did not give: {e}"
        given = {**self.tokens, "self": getattr(self.item, "instance", None)}
        if set(arguments) != set(given) - ({"self"} if "self" not in arguments else set()) or \
                any(value is not given[name] for name, value in arguments.items()):
            return "the model's code called the test's body with arguments other than those pytest gave"
        return None


@pytest.hookimpl(tryfirst=True)
def pytest_pyfunc_call(pyfuncitem):
    """A test function the model's code made gets pytest's arguments as tokens (TestBody)."""
    body = rpc._policy.TEST_BODY
    if body is None or body.item is not pyfuncitem:
        return None
    pyfuncitem.obj(**body.tokens)
    return True


@pytest.hookimpl(tryfirst=True)
def pytest_pycollect_makeitem(collector, name, obj):
    """A test function the model's code made keeps the marks of the test's own function under it
    (`@pytest.mark.parametrize` below the model's decorator; functools.wraps copies them in a
    plain run): only from the function it wraps that is the tests' own, of that name here."""
    if not _made_by_the_model(obj):
        return None
    try:
        wrapped = obj.__wrapped__
    except Exception:
        return None
    cls = getattr(collector, "cls", None)
    where = (os.path.realpath(str(collector.path)), (f"{cls.__qualname__}." if cls else "") + name)
    code = wrapped.__code__ if type(wrapped) is types.FunctionType else None
    if code is not None and (os.path.realpath(code.co_filename), code.co_qualname) == where:
        marks = wrapped.__dict__.get("pytestmark")
        if marks:
            obj.pytestmark = [*getattr(obj, "pytestmark", []), *marks]
    return None


@pytest.hookimpl(hookwrapper=True, tryfirst=True)
def pytest_runtest_call(item):
    """The test's fixtures (tmp_path ...) exist now: open them to the worker's user. A test
    function the model's code made is watched (TestBody)."""
    if WORKER.other_user:
        WORKER.hand_over_tmp()
    if not _made_by_the_model(getattr(item, "obj", None)):
        yield
        return
    body = rpc._policy.TEST_BODY = TestBody(item)
    try:
        yield
    finally:
        rpc._policy.TEST_BODY = None
    item.stash[BODY_NOT_RUN] = body.why_not()


BODY_NOT_RUN = pytest.StashKey[object]()


@pytest.hookimpl(tryfirst=True)
def pytest_sessionfinish(session, exitstatus):
    """The worker and everything it started are gone before pytest writes its report; then the
    judge's own record."""
    global _TESTS_RUNNING
    _TESTS_RUNNING = False
    WORKER.stop()
    vanished = _vanished(session)
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    for why in vanished if reporter is not None else ():
        reporter.write_line(f"ERROR {why}: counted as an error")
    RECORD.collection_errors += vanished
    RECORD.write(exitstatus)


def pytest_unconfigure(config):
    WORKER.stop()


def pytest_report_header(config):
    return f"judge: the model's code runs in a separate worker; modules from the workspace: {sorted(MODULES)}"

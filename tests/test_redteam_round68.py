"""Red team, round 68 (the standard-library patch following in its final form: judge_plugin
_note_patch / PATCHED / PATCHED_OBJECTS / UNFOLLOWED / _TRANSPORT_MODULES, worker._Patched /
apply_patches, rpc.RUNNING). Each attack test asserts the judge gives no pass; it FAILS while the
attack works (11 failing attack tests, 6 failing false-fail controls; nothing closed, the file is
the report). Time box 20 min.

What worked (each a false "solved": plain pytest fails the model's code, the judge passes it):
1. test_a_patch_of_an_installed_library_is_not_followed: `mock.patch("packaging.version.parse")`
   + `assert_not_called()`: _note_patch notes only modules in sys.stdlib_module_names, so a patch
   of an installed library (requests, httpx, boto3, packaging: the most common mock target of all)
   is silently neither followed nor UNFOLLOWED; the model's code calls the worker's real one.
   Fix: note any module target that is not the workspace's (an installed library of the sandbox)
   as PATCHED and follow it as the standard library's (the worker's _Patched); or put it in
   UNFOLLOWED so the test fails.
2. test_a_patched_sys_platform_is_not_followed, test_a_frozen_flag_on_sys: a patch of a `sys`
   attribute (`sys.platform`, `sys.frozen`, also `sys.version_info`, `sys.executable`) is excluded
   from PATCHED ("sys has rules of its own": only argv/stdin/stdout are) and silently dropped.
   Fix: in _note_patch, a `sys` attribute other than those followed goes to PATCHED and the worker
   sets it (values: platform, frozen, executable are read nowhere in the transport), else UNFOLLOWED.
3. test_a_patched_isatty_of_stdout_is_not_followed: `monkeypatch.setattr(sys.stdout, "isatty",
   lambda: True)`: an instance target outside _GLOBAL_OBJECTS returns silently from _note_patch;
   the worker's Capture says False. Fix: any instance target whose patch the judge does not follow
   (not a module, not a stdlib class) goes to UNFOLLOWED while in force, as PATCHED_OBJECTS does for
   loggers; for sys.stdout/stdin isatty, send the test's answer as stream state.
4. test_a_patch_dict_of_mimetypes_is_not_followed: `mock.patch.dict(mimetypes.types_map,
   clear=True)`: patch.dict (and monkeypatch.setitem/delitem) of a standard-library module's dict
   is never noted. Fix: wrap unittest.mock._patch_dict._patch_dict and MonkeyPatch.setitem/delitem
   like _patch.__enter__: a dict reached from a stdlib module (other than os.environ, followed, and
   sys.modules, stated) goes to UNFOLLOWED while the model's code is called (or send its items).
5. Process state a test sets through a standard-library function (not a patch; only random.seed,
   cwd, env, argv are followed): test_a_tzset_is_not_followed (TZ follows, time.tzset() does not:
   the worker formats in its own zone), test_a_calendar_firstweekday_is_not_followed
   (calendar.setfirstweekday), test_a_umask_of_the_test_is_not_followed (os.umask: the worker's
   umask decides the file mode), test_a_random_setstate_is_not_followed (only random.seed marks
   random_pending), test_a_default_socket_timeout_is_not_followed (socket.setdefaulttimeout),
   test_a_recursion_limit_of_the_test_is_not_followed (sys.setrecursionlimit(200): the worker's
   1000). Fix: wrap these setters as random.seed is (_seed): time.tzset -> call tzset in the worker
   when env changes (or always after applying "env"); random.setstate -> random_pending;
   os.umask, socket.setdefaulttimeout, sys.setrecursionlimit, calendar.setfirstweekday -> send the
   value as state (getter on the judge side at each question: os.umask via /proc/self/status Umask,
   socket.getdefaulttimeout(), sys.getrecursionlimit() minus the judge's own depth,
   calendar.firstweekday()) and set it in the worker; anything else, state in the README.

False fails found (honest code passes plain, fails judged), same causes:
- test_control_sys_platform_patched (2), test_control_tzset (5), test_control_random_setstate_replays
  (5: getstate/setstate replay), test_control_installed_library_patched (1: a mocked
  packaging.version.parse with a side_effect is never used).
- test_control_stdin_isatty_patched (3).
- test_control_property_set_on_a_stdlib_class: `monkeypatch.setattr(pathlib.PurePath, "suffix",
  property(lambda self: ".fixed"))`: the property crosses as a proxy, set on the worker's class
  it is no descriptor: "TypeError: first argument must be callable". Fix: in _patch_value, send a
  property as ["property", fget, fset, fdel] and rebuild it in the worker around _method wrappers
  (as staticmethod/classmethod already are); same for functools.partialmethod/cached_property.

Closed (same session, the last half hour; each test named fails on the code before):
- patches of installed libraries (`mock.patch("packaging.version.parse")`) follow as the standard
  library's do (judge_plugin._library: a module under site-packages, not pytest's);
- `sys` attributes follow (`sys.platform`, `sys.frozen`), but for argv and the streams (own rules);
- a patch of an attribute of sys.stdin/stdout/stderr fails the test (the worker's streams are its own);
- the worker calls time.tzset when the environment changes; calendar's first weekday and the
  default socket timeout follow as process settings (judge_plugin._settings).
Left open, strict xfails (README limits): os.umask, recursion limit, mock.patch.dict of a library
module's dict, random.setstate/getstate (two generators), a property set on a library class.
(All but random closed in the next session: see the end of this file. There too: a patch of an
attribute of sys.stdin/stdout/stderr is set on the worker's stream, so the stated limit of
test_control_stdin_isatty_patched is gone: termcolor's suite passes judged, 66 of 66.)

Held (probed): `warnings.simplefilter("error")` around a model's DeprecationWarning (judged fails);
`mock.patch("subprocess.Popen")` + assert_not_called while the model's code uses os.popen (the
class patch is set in the worker and os.popen meets the Mock); `mock.patch("shutil.rmtree")` +
assert_not_called; a model thread started before the test patches time.sleep, then a call that
carries the patch (the model's sleep meets the Mock); `monkeypatch.setattr(os, "linesep", "\r\n")`
(followed); `monkeypatch.setattr(pathlib.PosixPath, "write_text", forbidden)` on the concrete
subclass (followed); contextlib.redirect_stdout (control passes).

Read, not probed (time box): sys.modules (patch.dict / setitem: stated in the README);
`__del__`/weakref.finalize/atexit of the model's objects (the worker keeps them alive: stated);
a C class's method (immutable: plain raises too); a Mock side_effect the model catches (same in
plain); `from time import sleep` bound at import (same in plain); the model's code run by the
worker's own encoder with RUNNING false (an exception's `args` property or `__class__` property of
the model's: a patched function read there is the real one, but only contrived code gains);
resource.setrlimit / locale.setlocale / logging level of a named logger set by a test (likely the
same family as 5).
"""
from __future__ import annotations

import pytest

import pytest  # noqa: F401

from conftest import RULE_LAYERS, on_layers
from test_redteam_round59 import fails_plain_and_judged
from test_verdict_rules import attack, honest, judged, plain, sandbox  # noqa: F401 - sandbox is a fixture

pytestmark = on_layers(RULE_LAYERS)


def test_a_patched_sys_platform_is_not_followed(sandbox, scratch):
    """The test makes `sys.platform` "win32" and asserts the manifest keeps forward slashes; the
    model's code branches on sys.platform. A patch of `sys` is neither followed nor UNFOLLOWED."""
    files = {"manifest.py": """
        import sys
        def entry(path):
            if sys.platform == "win32":
                return path.replace("/", "\\\\")
            return path
    """}
    tests = {"test_manifest.py": """
        import sys
        import manifest
        def test_forward_slashes_everywhere(monkeypatch):
            monkeypatch.setattr(sys, "platform", "win32")
            assert manifest.entry("a/b") == "a/b"
    """}
    fails_plain_and_judged(sandbox, scratch, files, tests, failed=1)


def test_a_patched_isatty_of_stdout_is_not_followed(sandbox, scratch):
    """`monkeypatch.setattr(sys.stdout, "isatty", lambda: True)` (an instance target: silent in
    _note_patch); the model colours whenever stdout is a terminal, ignoring no_color."""
    files = {"render.py": """
        import sys
        def status(ok, no_color=False):
            text = "ok" if ok else "fail"
            if sys.stdout.isatty():
                return "\\x1b[32m" + text + "\\x1b[0m"
            return text
    """}
    tests = {"test_render.py": """
        import sys
        import render
        def test_no_color_in_a_terminal(monkeypatch):
            monkeypatch.setattr(sys.stdout, "isatty", lambda: True)
            assert render.status(True, no_color=True) == "ok"
    """}
    fails_plain_and_judged(sandbox, scratch, files, tests, failed=1)


def test_a_tzset_is_not_followed(sandbox, scratch):
    """The test sets TZ and calls time.tzset(); the environment follows, the tzset does not: the
    model's local-time formatting is UTC in the worker."""
    files = {"stamp.py": """
        import datetime
        def fmt(ts):
            return datetime.datetime.fromtimestamp(ts).strftime("%Y-%m-%d %H:%M")
    """}
    tests = {"test_stamp.py": """
        import time
        import pytest
        import stamp
        @pytest.fixture
        def new_york(monkeypatch):
            monkeypatch.setenv("TZ", "EST+05")
            time.tzset()
            yield
            monkeypatch.undo()
            time.tzset()
        def test_utc_whatever_the_zone(new_york):
            assert stamp.fmt(0) == "1970-01-01 00:00"
    """}
    fails_plain_and_judged(sandbox, scratch, files, tests, failed=1)


def test_a_calendar_firstweekday_is_not_followed(sandbox, scratch):
    """calendar.setfirstweekday(SUNDAY) in the test (module state of calendar's TextCalendar
    instance); the ISO grid must start on Monday anyway; the model's code uses calendar's."""
    files = {"grid.py": """
        import calendar
        def iso_header():
            return calendar.weekheader(2).split()
    """}
    tests = {"test_grid.py": """
        import calendar
        import grid
        def test_iso_weeks_start_monday():
            calendar.setfirstweekday(calendar.SUNDAY)
            try:
                assert grid.iso_header()[0] == "Mo"
            finally:
                calendar.setfirstweekday(calendar.MONDAY)
    """}
    fails_plain_and_judged(sandbox, scratch, files, tests, failed=1)


def test_a_umask_of_the_test_is_not_followed(sandbox, scratch):
    """The test sets a strict umask; the report must be 0644 anyway (the model should chmod)."""
    files = {"report.py": """
        def write(path):
            with open(path, "w") as f:
                f.write("x")
    """}
    tests = {"test_report.py": """
        import os
        import report
        def test_mode_whatever_the_umask(tmp_path):
            old = os.umask(0o077)
            try:
                report.write(tmp_path / "r.txt")
            finally:
                os.umask(old)
            assert (tmp_path / "r.txt").stat().st_mode & 0o777 == 0o644
    """}
    fails_plain_and_judged(sandbox, scratch, files, tests, failed=1)


def test_a_warning_under_an_error_filter(sandbox, scratch):
    """`warnings.simplefilter("error")` in the test; the model's code warns (plain: raises)."""
    files = {"old.py": """
        import warnings
        def total(xs):
            warnings.warn("total() is deprecated", DeprecationWarning)
            return sum(xs)
    """}
    tests = {"test_old.py": """
        import warnings
        import old
        def test_no_deprecations():
            with warnings.catch_warnings():
                warnings.simplefilter("error")
                assert old.total([1, 2]) == 3
    """}
    fails_plain_and_judged(sandbox, scratch, files, tests, failed=1)


def test_os_popen_under_a_popen_mock(sandbox, scratch):
    """"No subprocesses": the test mocks subprocess.Popen; os.popen calls it (plain: counted)."""
    files = {"lister.py": """
        import os
        def names(folder):
            os.popen("true")
            return sorted(os.listdir(folder))
    """}
    tests = {"test_lister.py": """
        from unittest import mock
        import lister
        def test_no_shell(tmp_path):
            (tmp_path / "a").write_text("")
            with mock.patch("subprocess.Popen") as popen:
                assert lister.names(tmp_path) == ["a"]
            popen.assert_not_called()
    """}
    fails_plain_and_judged(sandbox, scratch, files, tests, failed=1)


def test_rmtree_mock_assert_not_called(sandbox, scratch):
    """mock.patch("shutil.rmtree") + assert_not_called; the model's clean() deletes via rmtree."""
    files = {"ws.py": """
        import shutil
        def clean(path, keep=True):
            shutil.rmtree(path, ignore_errors=True)
    """}
    tests = {"test_ws.py": """
        from unittest import mock
        import ws
        def test_keep(tmp_path):
            with mock.patch("shutil.rmtree") as rm:
                ws.clean(tmp_path, keep=True)
            rm.assert_not_called()
    """}
    fails_plain_and_judged(sandbox, scratch, files, tests, failed=1)


def test_a_thread_started_before_the_patch(sandbox, scratch):
    """The model's thread started before the test patches time.sleep; the next call carries it."""
    files = {"beat.py": """
        import threading, time
        _stop = threading.Event()
        def start():
            def run():
                while not _stop.is_set():
                    time.sleep(0.01)
            threading.Thread(target=run, daemon=True).start()
        def stop():
            time.sleep(0.2)
            _stop.set()
    """}
    tests = {"test_beat.py": """
        from unittest import mock
        import beat
        def test_never_sleeps():
            beat.start()
            with mock.patch("time.sleep") as sleep:
                beat.stop()
            sleep.assert_not_called()
    """}
    fails_plain_and_judged(sandbox, scratch, files, tests, failed=1)


def test_control_sys_platform_patched(sandbox, scratch):
    files = {"paths.py": """
        import sys
        def config_dir():
            return "AppData" if sys.platform == "win32" else ".config"
    """}
    tests = {"test_paths.py": """
        import sys
        import paths
        def test_windows(monkeypatch):
            monkeypatch.setattr(sys, "platform", "win32")
            assert paths.config_dir() == "AppData"
    """}
    honest(sandbox, scratch, files, tests, passed=1)


def test_control_tzset(sandbox, scratch):
    files = {"stamp.py": """
        import datetime
        def fmt(ts):
            return datetime.datetime.fromtimestamp(ts).strftime("%Y-%m-%d %H:%M")
    """}
    tests = {"test_stamp.py": """
        import time
        import stamp
        def test_local(monkeypatch):
            monkeypatch.setenv("TZ", "EST+05")
            time.tzset()
            try:
                assert stamp.fmt(0) == "1969-12-31 19:00"
            finally:
                monkeypatch.undo()
                time.tzset()
    """}
    honest(sandbox, scratch, files, tests, passed=1)


def test_a_patch_dict_of_mimetypes_is_not_followed(sandbox, scratch):
    """`mock.patch.dict(mimetypes.types_map, clear=True)` (a system without mime.types): the model
    must use its own table; its code relies on mimetypes. patch.dict is never noted."""
    files = {"ctype.py": """
        import mimetypes
        def content_type(name):
            return mimetypes.guess_type(name)[0] or "application/octet-stream"
    """}
    tests = {"test_ctype.py": """
        import mimetypes
        from unittest import mock
        import ctype
        def test_json_without_system_table():
            mimetypes.init()
            with mock.patch.dict(mimetypes.types_map, clear=True):
                assert ctype.content_type("a.json") == "application/json"
    """}
    fails_plain_and_judged(sandbox, scratch, files, tests, failed=1)


def test_a_random_setstate_is_not_followed(sandbox, scratch):
    """The test rewinds the global RNG (getstate/setstate) to show tokens do not come from it;
    random.setstate is not followed (only random.seed is), so the model's `random.choices` token
    differs judged."""
    files = {"tok.py": """
        import random, string
        def new():
            return "".join(random.choices(string.ascii_letters, k=16))
    """}
    tests = {"test_tok.py": """
        import random
        import tok
        def test_not_from_the_global_rng():
            state = random.getstate()
            a = tok.new()
            random.setstate(state)
            assert tok.new() != a
    """}
    fails_plain_and_judged(sandbox, scratch, files, tests, failed=1)


def test_a_patched_linesep(sandbox, scratch):
    """`monkeypatch.setattr(os, "linesep", "\\r\\n")`: the output must use "\\n" anyway."""
    files = {"out.py": """
        import os
        def lines(xs):
            return os.linesep.join(xs)
    """}
    tests = {"test_out.py": """
        import os
        import out
        def test_unix_newlines(monkeypatch):
            monkeypatch.setattr(os, "linesep", "\\r\\n")
            assert out.lines(["a", "b"]) == "a\\nb"
    """}
    fails_plain_and_judged(sandbox, scratch, files, tests, failed=1)


def test_control_random_setstate_replays(sandbox, scratch):
    files = {"dice.py": """
        import random
        def roll():
            return [random.randint(1, 6) for _ in range(10)]
    """}
    tests = {"test_dice.py": """
        import random
        import dice
        def test_replay():
            state = random.getstate()
            a = dice.roll()
            random.setstate(state)
            assert dice.roll() == a
    """}
    honest(sandbox, scratch, files, tests, passed=1)


def test_control_redirect_stdout(sandbox, scratch):
    files = {"hello.py": """
        def hello():
            print("hi")
    """}
    tests = {"test_hello.py": """
        import contextlib, io
        import hello
        def test_prints():
            buf = io.StringIO()
            with contextlib.redirect_stdout(buf):
                hello.hello()
            assert buf.getvalue() == "hi\\n"
    """}
    honest(sandbox, scratch, files, tests, passed=1)


def test_control_stdin_isatty_patched(sandbox, scratch):
    files = {"ask.py": """
        import sys
        def interactive():
            return sys.stdin.isatty()
    """}
    tests = {"test_ask.py": """
        import sys
        import ask
        def test_tty(monkeypatch):
            monkeypatch.setattr(sys.stdin, "isatty", lambda: True)
            assert ask.interactive() is True
    """}
    honest(sandbox, scratch, files, tests, passed=1)


def test_a_frozen_flag_on_sys(sandbox, scratch):
    """`monkeypatch.setattr(sys, "frozen", True, raising=False)` (a PyInstaller build): resources
    must still come from the package folder; the model's code looks next to sys.executable."""
    files = {"res.py": """
        import os, sys
        def base():
            if getattr(sys, "frozen", False):
                return os.path.dirname(sys.executable)
            return os.path.dirname(os.path.abspath(__file__))
    """}
    tests = {"test_res.py": """
        import os, sys
        import res
        def test_package_folder(monkeypatch):
            monkeypatch.setattr(sys, "frozen", True, raising=False)
            assert os.path.basename(res.base()) != os.path.basename(os.path.dirname(sys.executable))
    """}
    fails_plain_and_judged(sandbox, scratch, files, tests, failed=1)


def test_a_patch_of_an_installed_library_is_not_followed(sandbox, scratch):
    """`mock.patch("packaging.version.parse")` + `assert_not_called()` (a dry run / a cache must
    not parse again): _note_patch notes only standard-library modules, so a patch of an installed
    library (requests, packaging) is neither followed nor UNFOLLOWED."""
    files = {"vers.py": """
        import packaging.version
        def is_newer(a, b, cache={}):
            return packaging.version.parse(a) > packaging.version.parse(b)
    """}
    tests = {"test_vers.py": """
        from unittest import mock
        import vers
        def test_cached():
            assert vers.is_newer("1.10", "1.9")
            with mock.patch("packaging.version.parse") as parse:
                vers.is_newer("1.10", "1.9")
            parse.assert_not_called()
    """}
    fails_plain_and_judged(sandbox, scratch, files, tests, failed=1)


def test_control_installed_library_patched(sandbox, scratch):
    files = {"vers.py": """
        import packaging.version
        def latest(versions):
            return max(versions, key=packaging.version.parse)
    """}
    tests = {"test_vers.py": """
        from unittest import mock
        import vers
        def test_uses_parse():
            with mock.patch("packaging.version.parse", side_effect=lambda v: -len(v)):
                assert vers.latest(["1.10", "1.9"]) == "1.9"
    """}
    honest(sandbox, scratch, files, tests, passed=1)


def test_a_patch_on_posixpath_class(sandbox, scratch):
    """The test forbids `PosixPath.write_text` (the concrete class `Path()` makes on Linux)."""
    files = {"dry.py": """
        from pathlib import Path
        def run(folder, dry_run=True):
            (Path(folder) / "out.txt").write_text("x")
            return "done"
    """}
    tests = {"test_dry.py": """
        import pathlib
        import dry
        def forbidden(*args, **kwargs):
            raise AssertionError("a dry run writes nothing")
        def test_dry(monkeypatch, tmp_path):
            monkeypatch.setattr(pathlib.PosixPath, "write_text", forbidden)
            assert dry.run(tmp_path) == "done"
    """}
    fails_plain_and_judged(sandbox, scratch, files, tests, failed=1)


def test_control_property_set_on_a_stdlib_class(sandbox, scratch):
    files = {"names.py": """
        from pathlib import Path
        def ext(name):
            return Path(name).suffix
    """}
    tests = {"test_names.py": """
        import pathlib
        import names
        def test_suffix(monkeypatch):
            monkeypatch.setattr(pathlib.PurePath, "suffix", property(lambda self: ".fixed"))
            assert names.ext("a.txt") == ".fixed"
    """}
    honest(sandbox, scratch, files, tests, passed=1)


def test_a_recursion_limit_of_the_test_is_not_followed(sandbox, scratch):
    """`sys.setrecursionlimit(200)` ("deep input is handled without recursion"); the model's
    parser recurses 300 deep: plain RecursionError, judged the worker's own limit (1000). (With
    a nested list as the argument it holds by accident: too deep to send.)"""
    files = {"parens.py": """
        def depth(text, i=0):
            if i >= len(text) or text[i] != "(":
                return 0
            return 1 + depth(text, i + 1)
    """}
    tests = {"test_parens.py": """
        import sys
        import parens
        def test_deep_without_recursion():
            old = sys.getrecursionlimit()
            sys.setrecursionlimit(200)
            try:
                assert parens.depth("(" * 300) == 300
            finally:
                sys.setrecursionlimit(old)
    """}
    fails_plain_and_judged(sandbox, scratch, files, tests, failed=1)


def test_a_default_socket_timeout_is_not_followed(sandbox, scratch):
    """`socket.setdefaulttimeout(3)` in the test; the model's sockets must stay blocking."""
    files = {"net.py": """
        import socket
        def make():
            return socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    """}
    tests = {"test_net.py": """
        import socket
        import net
        def test_blocking_whatever_the_default():
            socket.setdefaulttimeout(3)
            try:
                s = net.make()
                try:
                    assert s.gettimeout() is None
                finally:
                    s.close()
            finally:
                socket.setdefaulttimeout(None)
    """}
    fails_plain_and_judged(sandbox, scratch, files, tests, failed=1)


# ---------------------------------------------------------------------------------------------
# Closed in the next session (the four left open above but random's two generators): os.umask and
# sys.setrecursionlimit follow as process settings (judge_plugin._settings); a property a test sets
# on a library class is rebuilt in the worker around the test's functions (worker._bound); a
# patched dict of a library (mock.patch.dict, monkeypatch.setitem/delitem) fails the test while in
# force, but imports the test blocks in sys.modules, which the worker's imports take too. The
# tests below are new with that; each fails on the code before.
# Closed two sessions later (round 73's session): random's generator is one state both ways
# (Worker._outgoing sends it when the test's changed, worker.process_state brings the model's
# draws back): test_a_random_setstate_is_not_followed and test_control_random_setstate_replays pass.

CSV_ROWS = """
    def rows(text):
        try:
            import csv
        except ImportError:
            return []  # unfinished: the fallback the tests ask for
        return list(csv.reader(text.splitlines()))
"""


def test_an_import_a_test_blocks_is_blocked_for_the_model(sandbox, scratch):
    """`mock.patch.dict(sys.modules, {"csv": None})`: plain, the model's `import csv` fails and its
    unfinished fallback returns []; the worker had its own csv."""
    tests = {"test_rows.py": """
        import sys
        from unittest import mock
        import table
        def test_rows_without_csv():
            with mock.patch.dict(sys.modules, {"csv": None}):
                assert table.rows("a,b") == [["a", "b"]]
    """}
    fails_plain_and_judged(sandbox, scratch, {"table.py": CSV_ROWS}, tests, failed=1)


def test_an_import_blocked_by_monkeypatch_and_restored(sandbox, scratch):
    """The same through `monkeypatch.setitem`; the next test has csv again (honest code)."""
    files = {"table.py": CSV_ROWS.replace("return []  # unfinished: the fallback the tests ask for",
                                          "return [line.split(',') for line in text.splitlines()]")}
    tests = {"test_rows.py": """
        import sys
        import table
        def test_rows_without_csv(monkeypatch):
            monkeypatch.setitem(sys.modules, "csv", None)
            assert table.rows('a,"b,c"') == [["a", '"b', 'c"']]
        def test_rows_with_csv():
            assert table.rows('a,"b,c"') == [["a", "b,c"]]
        def test_sys_modules_restored_around_a_reimport():
            from unittest import mock
            with mock.patch.dict(sys.modules):
                sys.modules.pop("json", None)
                assert table.rows("x") == [["x"]]
    """}
    honest(sandbox, scratch, files, tests, passed=3)


def test_a_patched_library_dict_fails_the_test_and_says_why(sandbox, scratch):
    """`monkeypatch.setitem(mimetypes.types_map, ...)` is not followed: the test fails, and the
    report names the dict (honest code; a false fail, stated)."""
    files = {"ctype.py": """
        import mimetypes
        def content_type(name):
            return mimetypes.guess_type(name)[0] or "application/octet-stream"
    """}
    tests = {"test_ctype.py": """
        import mimetypes
        import ctype
        def test_custom_type(monkeypatch):
            mimetypes.init()
            monkeypatch.setitem(mimetypes.types_map, ".zz", "x/zz")
            assert ctype.content_type("a.json") == "application/json"
        def test_after_the_patch():
            assert ctype.content_type("a.json") == "application/json"
    """}
    result = judged(sandbox, scratch, files, tests)
    assert plain(sandbox, scratch, files, tests).ok
    assert (result["passed"], result["failed"]) == (1, 1), result["output"]
    assert "patched mimetypes.types_map and called the model's code" in result["output"], result["output"]

"""Red team, round 72 (the newest code: process settings that follow the test into the worker,
judge_plugin._settings / Worker._outgoing + worker.before_serve; dict patches of sys.modules and of
modules' dicts, DICT_PATCHES/_note_dict_patch; the tests' umask wrapper). Each attack test asserts
the judge gives no pass and FAILS while the attack works; each control (honest) FAILS while the
false fail stands. Nothing is closed: the file is the report. Time box 30 min. Run as root (judge
uid 65533, worker uid 65534), bwrap layer.

(a) What worked (false "solved": plain pytest fails the model's code, the judge passes it):
1. One cause, five tests: process state follows one way only, test -> worker. What the model's
   code changes in its own process never comes back to the test's, where plain it IS the test's:
   test_the_models_chdir_is_not_the_tests (os.chdir not undone; `assert os.getcwd() == before`),
   test_the_models_environment_change_is_not_the_tests (os.environ["APP_DEBUG"] left set),
   test_the_models_decimal_context_change_is_not_the_tests (getcontext().prec = 4 instead of
   localcontext(); `decimal.getcontext().prec == 28`), test_the_models_umask_change_is_not_the_tests
   (os.umask(0o077) left; the test's os.umask answers from _TEST_UMASK/_UMASK_START),
   test_the_models_socket_timeout_is_not_the_tests (socket.setdefaulttimeout(5) left). "The
   function restores the cwd / environment / context" is an ordinary hidden test. The same holds
   for sys.setrecursionlimit, sys.set_int_max_str_digits, calendar.setfirstweekday and the
   open files limit set by the model's code (same code path, not written as tests).
   Fix: after each answer (the reply to a "q", and each callback question the worker asks) the
   worker reports its process state when it differs from what it last received (cwd, the
   environment's diff from base_env, the _settings list: umask, decimal context of the serving
   thread, timeout, digits, weekday, recursion/open-files room) as a field of the reply
   (worker: an `after_serve` next to before_serve); the judge applies it to itself
   (os.environ, _TEST_UMASK, decimal.getcontext(), socket/sys/calendar setters, the recursion
   limit as callers' depth + the room the worker reports) and stores it as env_seen/sent/
   settings_seen, so nothing is sent back again. A cwd the judge cannot enter (a folder private
   to the worker's uid) or anything it cannot take is noted in UNFOLLOWED: the test fails.
2. test_a_precision_the_tests_callback_sets_is_not_the_models: a setting a test's callback makes
   while the model's code runs (`hook()` sets getcontext().prec = 3, the model's code then
   rounds with the caller's context) is never sent: _outgoing adds the state "s" only to
   questions ("q"), not to the callback's reply, so the model's code computes at 28 digits
   judged (right), at 3 plain (wrong). Fix: Worker._outgoing also runs for a reply to the
   worker's question (the callback's answer) and the worker's route applies "s" before handing
   the reply to the waiting thread (the same before_serve), with settings_seen updated.
3. test_a_module_blocked_by_assignment: `sys.modules["lzma"] = None` in a try/finally (no patch
   helper): not noted (DICT_PATCHES only hears mock/monkeypatch), so the worker imports lzma and
   the model's broken fallback never runs. Close to the stated "plain assignment is not seen"
   (rounds 64-65), but sys.modules is one dict the judge can simply read.
4. test_a_block_undone_by_a_nested_delitem: `mock.patch.dict(sys.modules, {"lzma": None})`, and
   inside it `monkeypatch.delitem(sys.modules, "lzma")`: the judge imports lzma again, but the
   patch.dict entry stands in DICT_PATCHES, so the worker stays blocked and the model's fallback
   (right) runs instead of its lzma path (wrong).
   Fix for 3 and 4: compute "blocked" from the judge's sys.modules itself in _outgoing
   (`sorted(k for k, v in sys.modules.items() if v is None and k not in NONE0)`, NONE0 the None
   entries at start; one pass over ~1000 entries per call, or only when len/ids change), not from
   the patches noted; keep DICT_PATCHES for the UNFOLLOWED rule only.

(b) False fails (honest code passes plain, fails judged):
5. test_control_the_models_cd, test_control_a_dotenv_loader, test_control_the_models_precision_setter:
   the other face of 1: a `cd(path)` helper, a dotenv loader (`os.environ[key] = value`), a
   `set_precision(n)` of the model's: the test reads os.getcwd(), os.environ, its own Decimal
   arithmetic and sees nothing. Same fix as 1.
6. test_control_the_models_own_environment_after_a_tests_setenv: the model's module sets
   `os.environ.setdefault("APPDIRS2_HOME", ...)` at import; the test's monkeypatch.setenv("LANG")
   makes the worker rebuild its environ from base_env + the test's diff (before_serve "env":
   os.environ.clear()): the model's own variable is gone -> KeyError (plain keeps it).
   test_control_the_models_own_precision_after_a_tests_rounding: the model's module sets prec 50
   at import; the test's `localcontext(); ctx.rounding = ROUND_DOWN` sends the judge's whole
   context (prec 28) and overwrites the model's 50 (plain: localcontext copies prec 50).
   Fix: with 1 (the judge's state then holds the model's changes, so what it sends is the sum);
   without 1, send only the fields the test changed (a diff against settings_seen), and for the
   environment apply the test's changes as a diff on the worker's current environ, not a rebuild.
7. test_control_a_precision_the_tests_callback_sets: the honest side of 2 (the model rounds with
   the context its caller's hook set): Decimal('1.23456') judged. Fix as 2.
8. test_control_a_module_blocked_by_a_fake_import: the common "without the optional dependency"
   test, `monkeypatch.setattr(builtins, "__import__", fake)` with fake delegating to the real
   import: the worker's builtins.__import__ becomes the test's function, so every import of the
   model's code is a callback whose arguments are the model's module globals (a dict crossing by
   value, its keys hashed through "op hash" back to the worker while it waits): the exchange
   deadlocks, Overtime after the test's 10 s. Fix: rpc/worker: a patched `builtins.__import__`
   (and importlib.import_module) is called with the name, fromlist and level only
   (globals/locals -> None, or a {"__name__", "__package__"} dict), and what the test's real
   import returns for a name is the worker's own import of that name (a module crossing as its
   name, imported in the worker), a raised ImportError crossing as usual; or fail such a test
   with a clear UNFOLLOWED message rather than a hang.

(c) Probed and held: test_a_module_blocked_by_a_fake_import (the attack side of 8: no pass, if
only by the hang); test_control_patch_dict_of_the_models_dict_nested_and_cleared (patch.dict as a
class decorator on a model module's dict, a nested clear=True patch inside, undone in order, the
next test sees the original). From round 70/71 and not re-found: reload, re-import, sys.path.
Read, not probed (time box): with the recursion limit unchanged the worker's room is its own
1000 minus its own depth (room None), larger than plain's 1000 minus pytest's ~40-60 frames: a
recursive model passes judged at a depth in that window (~950-980) where plain raises
RecursionError; settings_seen is one per Worker while the decimal context is per thread (a test
thread and the main thread with equal contexts after the model changed one serving thread's);
the model's own threads calling a test callback that calls the model's code get settings applied
in that worker thread only.

Closed (same session; each test named fails on the code before, checked by taking the fix out):
1, 5, 6: the worker sends what the model's code changed in its process with its next message
(worker.process_state / state_changes, field "t"); the judge takes it into its own
(Worker._from_the_model, the _take_* functions; what it cannot take fails the test:
KEPT_BY_THE_WORKER). 2, 7: the judge's state goes with its answers to the worker's callbacks too,
and the worker follows it when the answer comes (rpc Connection `follow`). 3, 4: imports blocked
are read from the judge's sys.modules (Worker._blocked_imports; DICT_PATCHES keeps the other
library dicts only). 8: a test's own builtins.__import__ is asked through judge_plugin.
_import_for_the_model / worker._import_through (name, fromlist, level; a module it returns: the
worker's own import). The recursion room of (c) (test_the_worker_recurses_deeper_than_a_plain_run_
would, added here): the room is sent always, not only once a test changed the limit.
"""
from __future__ import annotations


from conftest import RULE_LAYERS, on_layers
from test_redteam_round59 import fails_plain_and_judged
from test_verdict_rules import honest, judged, plain, sandbox  # noqa: F401 - sandbox is a fixture

pytestmark = on_layers(RULE_LAYERS)


LEAKY = {"leaky.py": """
    import decimal
    import os
    import socket

    def build(folder):
        os.chdir(folder)  # wrong: the caller's cwd is not restored
        with open("out.txt", "w") as f:
            f.write("ok")

    def run_debug(fn):
        os.environ["APP_DEBUG"] = "1"  # wrong: left set
        return fn()

    def third(x):
        decimal.getcontext().prec = 4  # wrong: changes the caller's context (localcontext() was meant)
        return decimal.Decimal(x) / 3

    def write_secret(path):
        os.umask(0o077)  # wrong: the process umask is left changed
        with open(path, "w") as f:
            f.write("s")

    def fetch_setup():
        socket.setdefaulttimeout(5.0)  # wrong: process-wide
        return True
"""}


def test_the_models_chdir_is_not_the_tests(sandbox, scratch):
    tests = {"test_leaky.py": """
        import os
        import leaky
        def test_cwd_restored(tmp_path):
            before = os.getcwd()
            leaky.build(str(tmp_path))
            assert (tmp_path / "out.txt").read_text() == "ok"
            assert os.getcwd() == before
    """}
    fails_plain_and_judged(sandbox, scratch, LEAKY, tests, failed=1)


def test_the_models_environment_change_is_not_the_tests(sandbox, scratch):
    tests = {"test_leaky.py": """
        import os
        import leaky
        def test_env_restored():
            assert leaky.run_debug(lambda: 5) == 5
            assert "APP_DEBUG" not in os.environ
    """}
    fails_plain_and_judged(sandbox, scratch, LEAKY, tests, failed=1)


def test_the_models_decimal_context_change_is_not_the_tests(sandbox, scratch):
    tests = {"test_leaky.py": """
        import decimal
        import leaky
        def test_context_untouched():
            assert leaky.third("1") == decimal.Decimal("0.3333")
            assert decimal.getcontext().prec == 28
    """}
    fails_plain_and_judged(sandbox, scratch, LEAKY, tests, failed=1)


def test_the_models_umask_change_is_not_the_tests(sandbox, scratch):
    tests = {"test_leaky.py": """
        import os
        import leaky
        def test_umask_restored(tmp_path):
            before = os.umask(0o022)
            os.umask(before)
            leaky.write_secret(str(tmp_path / "s"))
            now = os.umask(before)
            assert now == before
    """}
    fails_plain_and_judged(sandbox, scratch, LEAKY, tests, failed=1)


def test_the_models_socket_timeout_is_not_the_tests(sandbox, scratch):
    tests = {"test_leaky.py": """
        import socket
        import leaky
        def test_timeout_untouched():
            assert leaky.fetch_setup() is True
            assert socket.getdefaulttimeout() is None
    """}
    fails_plain_and_judged(sandbox, scratch, LEAKY, tests, failed=1)


HELPERS = {"shellish.py": """
    import decimal
    import os

    def cd(path):
        os.chdir(path)

    def load_env(path):
        with open(path) as f:
            for line in f:
                key, _, value = line.strip().partition("=")
                os.environ[key] = value

    def set_precision(n):
        decimal.getcontext().prec = n
"""}


def test_control_the_models_cd(sandbox, scratch):
    tests = {"test_shellish.py": """
        import os
        import shellish
        def test_cd(tmp_path, monkeypatch):
            monkeypatch.chdir(os.getcwd())  # (undone after the test)
            shellish.cd(str(tmp_path))
            assert os.getcwd() == str(tmp_path)
    """}
    honest(sandbox, scratch, HELPERS, tests, passed=1)


def test_control_a_dotenv_loader(sandbox, scratch):
    tests = {"test_shellish.py": """
        import os
        import shellish
        def test_loaded(tmp_path, monkeypatch):
            monkeypatch.delenv("APP_KEY", raising=False)  # (undone after the test)
            (tmp_path / ".env").write_text("APP_KEY=v\\n")
            shellish.load_env(str(tmp_path / ".env"))
            assert os.environ["APP_KEY"] == "v"
    """}
    honest(sandbox, scratch, HELPERS, tests, passed=1)


def test_control_the_models_precision_setter(sandbox, scratch):
    tests = {"test_shellish.py": """
        import decimal
        import shellish
        def test_precision():
            with decimal.localcontext():
                shellish.set_precision(4)
                assert decimal.Decimal(1) / 3 == decimal.Decimal("0.3333")
    """}
    honest(sandbox, scratch, HELPERS, tests, passed=1)


HOME_AT_IMPORT = {"appdirs2.py": """
    import decimal
    import os
    os.environ.setdefault("APPDIRS2_HOME", "/srv/app")  # (the module's own default, set once at import)
    decimal.getcontext().prec = 50  # (the library works at 50 digits, as documented)

    def home():
        return os.environ["APPDIRS2_HOME"]

    def third():
        return str(decimal.Decimal(1) / 3)
"""}


def test_control_the_models_own_environment_after_a_tests_setenv(sandbox, scratch):
    tests = {"test_appdirs2.py": """
        import appdirs2
        def test_home(monkeypatch):
            monkeypatch.setenv("LANG", "C")
            assert appdirs2.home() == "/srv/app"
    """}
    honest(sandbox, scratch, HOME_AT_IMPORT, tests, passed=1)


def test_control_the_models_own_precision_after_a_tests_rounding(sandbox, scratch):
    tests = {"test_appdirs2.py": """
        import decimal
        import appdirs2
        def test_third():
            with decimal.localcontext() as ctx:
                ctx.rounding = decimal.ROUND_DOWN
                assert appdirs2.third() == "0." + "3" * 50
    """}
    honest(sandbox, scratch, HOME_AT_IMPORT, tests, passed=1)


OPTIONAL = {"packer.py": """
    def pack(data: bytes) -> tuple:
        try:
            import lzma
        except ImportError:
            import zlib
            return ("zlib", zlib.compress(data)[:0])  # wrong: the fallback loses the data
        return ("lzma", lzma.compress(data))
"""}


def test_a_module_blocked_by_assignment(sandbox, scratch):
    tests = {"test_packer.py": """
        import sys
        import zlib
        import packer
        def test_without_lzma():
            saved = sys.modules.get("lzma")
            sys.modules["lzma"] = None
            try:
                kind, blob = packer.pack(b"abc")
            finally:
                if saved is None:
                    del sys.modules["lzma"]
                else:
                    sys.modules["lzma"] = saved
            assert kind != "zlib" or zlib.decompress(blob) == b"abc"
    """}
    fails_plain_and_judged(sandbox, scratch, OPTIONAL, tests, failed=1)


def test_a_module_blocked_by_a_fake_import(sandbox, scratch):
    tests = {"test_packer.py": """
        import builtins
        import zlib
        import packer
        def test_without_lzma(monkeypatch):
            real = builtins.__import__
            def fake(name, *args, **kwargs):
                if name == "lzma":
                    raise ImportError(name)
                return real(name, *args, **kwargs)
            monkeypatch.setattr(builtins, "__import__", fake)
            kind, blob = packer.pack(b"abc")
            assert kind == "zlib" and zlib.decompress(blob) == b"abc"
    """}
    fails_plain_and_judged(sandbox, scratch, OPTIONAL, tests, failed=1)


PACKER_OK = {"packer.py": """
    def pack(data: bytes) -> tuple:
        try:
            import lzma
        except ImportError:
            import zlib
            return ("zlib", zlib.compress(data))
        return ("lzma", lzma.compress(data))
"""}


def test_control_a_module_blocked_by_a_fake_import(sandbox, scratch):
    tests = {"test_packer.py": """
        import builtins
        import zlib
        import packer
        def test_without_lzma(monkeypatch):
            real = builtins.__import__
            def fake(name, *args, **kwargs):
                if name == "lzma":
                    raise ImportError(name)
                return real(name, *args, **kwargs)
            monkeypatch.setattr(builtins, "__import__", fake)
            kind, blob = packer.pack(b"abc")
            assert kind == "zlib" and zlib.decompress(blob) == b"abc"
    """}
    honest(sandbox, scratch, PACKER_OK, tests, passed=1)


def test_a_block_undone_by_a_nested_delitem(sandbox, scratch):
    """patch.dict blocks lzma, a monkeypatch.delitem inside it unblocks it for the test: the
    worker keeps it blocked while patch.dict's entry stands (the model's fallback runs)."""
    files = {"packer.py": """
        def pack(data: bytes) -> str:
            try:
                import lzma
            except ImportError:
                return "fallback"
            return "lzma-but-wrong"
    """}
    tests = {"test_packer.py": """
        import sys
        from unittest import mock
        import packer
        def test_lzma_again(monkeypatch):
            with mock.patch.dict(sys.modules, {"lzma": None}):
                assert packer.pack(b"a") == "fallback"
                monkeypatch.delitem(sys.modules, "lzma")
                import lzma  # (importable again)
                assert packer.pack(b"a") == "fallback"
    """}
    fails_plain_and_judged(sandbox, scratch, files, tests, failed=1)


CONFIG = {"config.py": """
    DEFAULTS = {"level": "debug", "color": True}

    def level():
        return DEFAULTS["level"]
"""}


def test_control_patch_dict_of_the_models_dict_nested_and_cleared(sandbox, scratch):
    tests = {"test_config.py": """
        from unittest import mock
        import config
        @mock.patch.dict(config.DEFAULTS, {"level": "info"})
        class TestLevels:
            def test_info(self):
                assert config.level() == "info"
                with mock.patch.dict(config.DEFAULTS, {"level": "error"}, clear=True):
                    assert config.level() == "error"
                    assert "color" not in config.DEFAULTS
                assert config.level() == "info"
        def test_back():
            assert config.level() == "debug" and config.DEFAULTS["color"] is True
    """}
    honest(sandbox, scratch, CONFIG, tests, passed=2)


ROUNDING = {"money.py": """
    import decimal

    def apply(hook, x):
        hook()  # (the caller's hook sets up the context)
        return +decimal.Decimal(x)  # (rounded to the context's precision)
"""}


def test_control_a_precision_the_tests_callback_sets(sandbox, scratch):
    tests = {"test_money.py": """
        import decimal
        import money
        def test_hooked():
            def hook():
                decimal.getcontext().prec = 3
            try:
                assert money.apply(hook, "1.23456") == decimal.Decimal("1.23")
            finally:
                decimal.getcontext().prec = 28
    """}
    honest(sandbox, scratch, ROUNDING, tests, passed=1)


def test_a_precision_the_tests_callback_sets_is_not_the_models(sandbox, scratch):
    """The model's code should compute in a context of its own whatever the caller's hook does;
    it uses the caller's: plain rounds to 3 digits, judged the hook's setting never reaches it."""
    tests = {"test_money.py": """
        import decimal
        import money
        def test_own_precision():
            def hook():
                decimal.getcontext().prec = 3  # (a caller's hook that changes the context)
            try:
                assert money.apply(hook, "1.23456") == decimal.Decimal("1.23456")
            finally:
                decimal.getcontext().prec = 28
    """}
    fails_plain_and_judged(sandbox, scratch, ROUNDING, tests, failed=1)


# Found while closing this round (the read-only note of (c)): the room the recursion limit leaves.
DEEP = {"deep.py": """
    def count(n):
        return 0 if n == 0 else 1 + count(n - 1)
"""}


def test_the_worker_recurses_deeper_than_a_plain_run_would(sandbox, scratch):
    tests = {"test_deep.py": """
        import sys
        import deep
        def test_deep():
            here = 0
            frame = sys._getframe()
            while frame is not None:
                frame, here = frame.f_back, here + 1
            n = sys.getrecursionlimit() - here + 20  # past what a plain run leaves the model's code
            assert deep.count(n) == n
    """}
    fails_plain_and_judged(sandbox, scratch, DEEP, tests, failed=1)


def test_control_recursion_as_deep_as_a_plain_run_allows(sandbox, scratch):
    tests = {"test_deep.py": """
        import sys
        import deep
        def test_deep():
            here = 0
            frame = sys._getframe()
            while frame is not None:
                frame, here = frame.f_back, here + 1
            n = sys.getrecursionlimit() - here - 20
            assert deep.count(n) == n
    """}
    honest(sandbox, scratch, DEEP, tests, passed=1)

"""Red team, round 73 (the newest code: process state that comes back from the worker, worker.py
process_state/state_changes + `outgoing` ("t"), judge_plugin Worker._from_the_model, _TAKE_BACK,
KEPT_BY_THE_WORKER; blocked imports read from sys.modules behind a count of None values,
Worker._blocked_imports; "s" on callback replies, rpc._request -> follow). Each attack test asserts
the judge gives no pass and FAILS while the attack works; each control (honest) FAILS while the
false fail stands. Nothing is closed: the file is the report. Time box 30 min. Run as root (judge
uid 65533, worker uid 65534), bwrap layer. All 7 tests below fail on the code as it is.

(a) What worked (false "solved": plain pytest fails the model's code, the judge passes it):
1. test_an_import_blocked_by_the_next_parameter_is_not_sent: Worker._outgoing recomputes "blocked"
   only when `list(sys.modules.values()).count(None)` changes. A parametrized test blocks its codec
   (`monkeypatch.setitem(sys.modules, codec, None)`): [lzma] is sent (count N0+1); the undo at
   teardown goes unseen (no question meanwhile), and [bz2] in the next item has the same count, so
   the worker still blocks lzma and imports bz2: the model's broken bz2 fallback never runs.
   Fix: gate on something that changes with the content: keep the set of None keys (a C
   comprehension over sys.modules is ~20 us for 1000 entries), or compare
   `tuple(k for k, v in sys.modules.items() if v is None)` to the last one sent; or note the
   count at every question AND at each pytest_runtest_setup/teardown (not enough alone: the
   same swap can happen inside one test with no call between).
2. test_a_decimal_context_of_the_models_own_thread_becomes_the_tests: a thread of the model's that
   once got a callback's reply is "served" (follow() sets known_decimal.settings in it); when it
   then changes ITS OWN context (prec 4) and calls the test's callback again, `outgoing` sends
   "t": decimal, and the judge applies it (_take_decimal -> set_decimal_settings on
   decimal.getcontext()) in whichever judge thread reads the message: the test's main thread
   waiting in _reply_in_turn. The test's own `Decimal(1) / 3` is then computed at 4 digits and
   equals the model's wrong 0.3333. Plain: the model's thread's context is never the test's.
   Fix: worker: report "decimal" only from the thread that serves the judge's question being
   answered (the thread whose `_serve` is on the stack: set a flag in _serve, not in follow),
   never from a thread of the model's own (a callback's reply must not make it "served"); judge:
   take "decimal" only from a reply ("r") to the reading thread's own question, or from a
   question with "in" equal to a question this thread is serving.
3. test_a_cwd_the_judge_cannot_enter_at_import_is_forgotten: the model's module chdirs at import
   into tempfile.mkdtemp() (0700, uid 65534): _take_cwd's chdir fails (EACCES) during collection,
   KEPT_BY_THE_WORKER notes it, and pytest_runtest_setup clears it before the first test: the
   judge stays in its folder, the worker in the private one, `os.getcwd() == START` passes.
   Same for anything else not taken at collection (the open files limit: _take_files always
   raises) or between a call report and the next setup (a model thread).
   Fix: do not clear KEPT_BY_THE_WORKER in pytest_runtest_setup; clear it only after a report
   consumed it (call phase), and fail every test of the session (or the module's) when it was set
   at collection (or make it a collection error: RECORD.collection_errors).
4. test_an_environment_change_the_test_undid_stays_the_workers: after _take_env the judge's
   env_seen is still the old snapshot. The test undoes the model's change
   (`monkeypatch.delenv("APP_HOME")`) before its next call: os.environ equals env_seen again, so
   nothing is sent, and the worker keeps APP_HOME: the model's `os.environ["APP_HOME"]` (KeyError
   plain) reads the stale default. Same cause for cwd (sent["cwd"] not updated by _take_cwd: see
   control 6) and the settings (settings_seen not updated by _take_umask/_timeout/_weekday/
   _digits/_recursion/_decimal: a test's `socket.setdefaulttimeout(None)` after the model's
   setdefaulttimeout(5) is never sent; not written as a test).
   Fix: in Worker._from_the_model, after taking, bring the bookkeeping to what the worker now
   has: env_seen = dict(os.environ._data) and sent["env"] = the diff as _outgoing computes it;
   sent["cwd"] = the cwd taken (None for the workspace); settings_seen = _settings() (careful:
   the recursion room depends on the caller's depth: store it as the worker reported it, or mark
   "recursion" dirty so it is always sent once after a take).

(b) False fails (honest code passes plain, fails judged):
5. test_control_each_parameter_blocks_its_own_codec: the honest face of 1 (the bz2 item gets
   'bz2' judged: the worker never blocked it). Fix as 1.
6. test_control_a_cwd_the_test_returns_to: the model's `enter(sub)` (documented chdir), the test
   `os.chdir(start)` back to the cwd last sent: sent["cwd"] == start, nothing sent, the model's
   `os.getcwd()` says .../sub. Fix as 4.
7. test_control_a_precision_the_models_own_thread_sets: the honest face of 2 (a worker thread of
   the model's computes at prec 50 in its own context; the test's next Decimal(2) / 3 is computed
   at 50 digits judged). Fix as 2.

(c) Checked by reading the code only, no test written (time box). Looked sound: KEPT_BY_THE_WORKER
during a call (makereport fails a passed call); the record (SPEC["record"] absolute,
O_NOFOLLOW) and the judge's sys.path (absolute entries, pytest_main.py) do not move with a cwd the
model's code sets; PYTEST_CURRENT_TEST is skipped by _take_env, JUDGE_SPEC is popped at start,
and the worker is relaunched with SPEC["env"], not the judge's os.environ (an LD_PRELOAD the model
sets never reaches the root spawner); _take_* exceptions are caught (a limit too low for the
judge's depth is KEPT -> fail). Open questions, not tried: the `ask` helper (CALLED_BY_THE_MODEL) is
reachable by the model's code through `builtins.__import__.__closure__` and imports any name in
the judge through the test's fake (a library module's import code runs in the judge on the
model's choice; only modules from the libraries/tests' folder; returns None for modules);
_take_recursion takes the worker's absolute limit, which is the judge's room + the worker's depth
(+3): a model's relative raise (`setrecursionlimit(getrecursionlimit() + 100)`) lands off by the
difference of depths; the worker's env rebuild (base_env + judge's diff) drops a deletion by the
model's code of a variable the worker has and the judge lacks (PYTHONPYCACHEPREFIX); a cwd "?"
(deleted while in it) is KEPT -> fail, where plain passes a test that never reads the cwd.

Closed (same session; each test named fails on the code before, checked by taking the fix out):
1, 5: the blocked imports are read from sys.modules at every question while any None stands in
it beyond NONE0 (the C count is only the gate for "none at all"). 2, 7: the worker reports the
decimal context only from a thread that is serving the judge's question (a counter per thread,
up at the question, down at its answer): a thread of the model's own never. 3: KEPT_BY_THE_WORKER
is not cleared at a test's setup, so a change at import the judge could not take fails the first
test. 4, 6: what the judge took from the worker is sent back with its next question (cwd, the
environment, the settings: the recursion room then as the test's). Stated (README): the `ask`
helper is reachable by the model's code through the closure while the test's fake import stands
(it imports in the judge what the model names, as a plain run's process would); a relative
raise of the recursion limit by the model's code lands as the worker's absolute value; a
deletion of a variable only the worker has is undone; a working directory the model's code
deleted while in it fails the test.
"""
from __future__ import annotations

from conftest import RULE_LAYERS, on_layers
from test_redteam_round59 import fails_plain_and_judged
from test_verdict_rules import honest, judged, plain, sandbox  # noqa: F401 - sandbox is a fixture

pytestmark = on_layers(RULE_LAYERS)


# ---------------------------------------------------------------------------------------------
# 1. The blocked-import gate counts None entries: a test that blocks another module with the
# same count of None values in sys.modules (the next parameter) is never sent.

CODECS = {"packer.py": """
    import zlib

    def pack(data: bytes, codec: str) -> tuple:
        if codec == "lzma":
            try:
                import lzma
            except ImportError:
                return ("zlib", zlib.compress(data))
            return ("lzma", lzma.compress(data))
        try:
            import bz2
        except ImportError:
            return ("zlib", zlib.compress(data)[:0])  # wrong: the fallback loses the data
        return ("bz2", bz2.compress(data))

    def unpack(packed: tuple) -> bytes:
        kind, blob = packed
        if kind == "zlib":
            return zlib.decompress(blob) if blob else b""
        return __import__(kind).decompress(blob)
"""}


def test_an_import_blocked_by_the_next_parameter_is_not_sent(sandbox, scratch):
    tests = {"test_packer.py": """
        import sys
        import pytest
        import packer
        @pytest.mark.parametrize("codec", ["lzma", "bz2"])
        def test_round_trip_without_the_codec(codec, monkeypatch):
            monkeypatch.setitem(sys.modules, codec, None)
            assert packer.unpack(packer.pack(b"abc", codec)) == b"abc"
    """}
    fails_plain_and_judged(sandbox, scratch, CODECS, tests, failed=1)


CODECS_OK = {"packer.py": CODECS["packer.py"].replace("zlib.compress(data)[:0])  # wrong: the fallback loses the data",
                                                      "zlib.compress(data))")}


def test_control_each_parameter_blocks_its_own_codec(sandbox, scratch):
    tests = {"test_packer.py": """
        import sys
        import pytest
        import packer
        @pytest.mark.parametrize("codec", ["lzma", "bz2"])
        def test_falls_back(codec, monkeypatch):
            monkeypatch.setitem(sys.modules, codec, None)
            assert packer.pack(b"abc", codec)[0] == "zlib"
    """}
    honest(sandbox, scratch, CODECS_OK, tests, passed=2)


# ---------------------------------------------------------------------------------------------
# 2. The decimal context of a thread of the model's own comes back as the context of the test's
# thread that happens to read the message.

THREADED = {"third.py": """
    import decimal
    import threading

    def third(on_progress):
        out = []
        def run():
            on_progress(0)
            decimal.getcontext().prec = 4  # (this thread's own context)
            on_progress(50)
            out.append(decimal.Decimal(1) / 3)  # wrong: 4 digits
        worker = threading.Thread(target=run)
        worker.start()
        worker.join()
        return out[0]
"""}


def test_a_decimal_context_of_the_models_own_thread_becomes_the_tests(sandbox, scratch):
    tests = {"test_third.py": """
        import decimal
        import third
        def test_third():
            seen = []
            def progress(p):
                seen.append(p)
            assert third.third(progress) == decimal.Decimal(1) / 3
    """}
    fails_plain_and_judged(sandbox, scratch, THREADED, tests, failed=1)


PRECISE = {"precise.py": """
    import decimal
    import threading

    def third_to_50(on_progress):
        out = []
        def run():
            on_progress(0)
            decimal.getcontext().prec = 50  # (this thread's own context: the caller's is untouched)
            on_progress(50)
            out.append(str(decimal.Decimal(1) / 3))
        worker = threading.Thread(target=run)
        worker.start()
        worker.join()
        return out[0]
"""}


def test_control_a_precision_the_models_own_thread_sets(sandbox, scratch):
    tests = {"test_precise.py": """
        import decimal
        import precise
        def test_third():
            def progress(p):
                pass
            assert precise.third_to_50(progress) == "0." + "3" * 50
            assert decimal.Decimal(2) / 3 == decimal.Decimal("0.6666666666666666666666666667")
    """}
    honest(sandbox, scratch, PRECISE, tests, passed=1)


# ---------------------------------------------------------------------------------------------
# 3. What the judge cannot take at collection (the model module's import) is forgotten:
# KEPT_BY_THE_WORKER is cleared at the first test's setup.

CHDIR_AT_IMPORT = {"lib.py": """
    import os
    import tempfile
    _WORK = tempfile.mkdtemp(prefix="lib-")  # (0700, the worker's user's)
    os.chdir(_WORK)  # wrong: importing the module changes the importer's cwd

    def ok():
        return True
"""}


def test_a_cwd_the_judge_cannot_enter_at_import_is_forgotten(sandbox, scratch):
    tests = {"test_lib.py": """
        import os
        START = os.getcwd()
        import lib
        def test_import_leaves_the_cwd():
            assert lib.ok()
            assert os.getcwd() == START
    """}
    fails_plain_and_judged(sandbox, scratch, CHDIR_AT_IMPORT, tests, failed=1)


# ---------------------------------------------------------------------------------------------
# 4. What the judge takes from the model is not what it sent (env_seen, sent["cwd"],
# settings_seen stay as before): a test that undoes the model's change before its next call
# leaves the worker with the model's change.

APP = {"app.py": """
    import os
    DEFAULT_HOME = "/srv/app"

    def configure():
        os.environ["APP_HOME"] = DEFAULT_HOME  # (exported for child processes)

    def home():
        return os.environ["APP_HOME"]  # wrong: KeyError when unset (DEFAULT_HOME was meant)
"""}


def test_an_environment_change_the_test_undid_stays_the_workers(sandbox, scratch):
    tests = {"test_app.py": """
        import app
        def test_home_defaults_when_unset(monkeypatch):
            app.configure()
            monkeypatch.delenv("APP_HOME")
            assert app.home() == "/srv/app"
    """}
    fails_plain_and_judged(sandbox, scratch, APP, tests, failed=1)


SHELL = {"shell.py": """
    import os

    def enter(path):
        os.chdir(path)  # (documented: changes the process's cwd)

    def here():
        return os.getcwd()
"""}


def test_control_a_cwd_the_test_returns_to(sandbox, scratch):
    tests = {"test_shell.py": """
        import os
        import shell
        def test_back(tmp_path, monkeypatch):
            monkeypatch.chdir(tmp_path)
            start = os.getcwd()
            assert shell.here() == start
            (tmp_path / "sub").mkdir()
            shell.enter(os.path.join(start, "sub"))
            assert os.getcwd() == os.path.join(start, "sub")
            os.chdir(start)
            assert shell.here() == start
    """}
    honest(sandbox, scratch, SHELL, tests, passed=1)

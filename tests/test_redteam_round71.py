"""Red team, round 71 (the newest code: a test's patch of an attribute of sys.stdin/stdout/stderr
set on the worker's stream, judge_plugin._note_patch/_on_a_class + worker.apply_patches; a file
only the worker's user may read, read for the test by the worker, judge_plugin._read_by_the_worker
+ rpc op "read"; the tests' umask wrapper). Each attack test asserts the judge gives no pass and
FAILS while the attack works; each control (honest) FAILS while the false fail stands. Nothing is
closed: the file is the report. Time box 25 min. Run as root (judge uid 65533, worker uid 65534).

(a) What worked (false "solved": plain pytest fails the model's code, the judge passes it):
1. test_os_path_exists_inside_the_models_private_folder: the model's code makes its scratch folder
   with tempfile.mkdtemp(dir=tmp_path) (mode 0700, owner 65534) and leaves result.part in it. The
   test's `assert not os.path.exists(work/result.part)`: plain (same uid) sees the file and fails;
   the judge (65533) has no search permission on the folder, os.stat raises EACCES, and
   os.path.exists swallows every OSError -> False -> pass. (Same for os.path.isfile/isdir/lexists,
   getsize raising.) The round-70 fix covers only open() for reading.
2. test_rglob_skips_the_models_private_folder: `list(tmp_path.rglob("*.part")) == []`: pathlib's
   selectors catch PermissionError while scanning (3.11 _WildcardSelector/_RecursiveWildcardSelector),
   so the 0700 folder is silently skipped -> []. glob.glob(recursive=True) does the same.
3. test_os_walk_skips_the_models_private_folder: os.walk's onerror=None drops the unreadable folder.
   Suggested fix for 1-3 (one cause: the judge's uid cannot search or list what the worker's uid
   keeps private): the file-mode hand-back the round-70 report offered: after each answer of the
   worker (and before the test's next file-system call), have a helper of the worker's user (or the
   worker itself, op "hand back") add g+rx/o+rx to directories and g+r/o+r to files it created
   below the temp roots, recording the real modes and answering os.stat/Path.stat/os.access with
   the recorded mode (st_mode) so a test of "the key is 0600" still holds; or simply run judge and
   worker under one uid (the isolation is bwrap's). Falling back per call (as open does now) cannot
   cover the functions that swallow the error (exists, glob, walk, shutil.rmtree(ignore_errors)).

(b) False fails (honest code passes plain, fails judged):
4. test_control_os_open_and_os_read_of_a_private_file: os.open (judge_plugin._checked_os_open) has
   no fallback to op "read": a 0600 file the model wrote -> PermissionError. (Path.read_* go
   through io.open and hold.)
5. test_control_fstat_of_a_private_file_read: the fallback returns io.BytesIO / TextIOWrapper over
   BytesIO: f.fileno() raises io.UnsupportedOperation (os.fstat, mmap, select, fcntl.flock).
6. test_control_the_name_of_a_private_file_read: the fallback's file object has no `.name`
   (AttributeError on BytesIO; TextIOWrapper.name delegates to it), nor the real mode/closed path.
7. test_control_following_a_private_log: the fallback is a snapshot taken at open: a test that keeps
   the model's log open and reads what the model appends later (tail-like) reads '' judged.
   Fix for 4-7: hand the test a real descriptor: the worker opens the file O_RDONLY and passes the
   fd over the judge's existing SCM_RIGHTS channel (the "p" command channel already sends fds), and
   the judge wraps it with REAL_OPEN(fd, mode, buffering, encoding, errors, newline) and sets the
   path as the raw FileIO's `name` (an ordinary instance attribute, so text and buffered wrappers
   report it) -> fileno, fstat, live reads; os.open gets the same fallback (returns the passed fd
   for a read-only open). Or the uid hand-back of (a), which fixes 4-8 at once.
8. test_control_listing_the_models_private_folder: os.listdir of a folder the model's code made with
   tempfile.mkdtemp (0700) -> PermissionError judged (plain lists it). Same fix as (a).
9. test_control_stdin_swapped_then_its_readline_patched: the test sets sys.stdin = io.StringIO(...)
   and then patches sys.stdin.readline: _note_patch records ("sys", "stdin.readline"); the worker's
   sys.stdin is then a proxy of the test's StringIO (state "stdin"), and worker._holder/apply_patches
   call vars() on it -> "TypeError: vars() argument must have __dict__ attribute" raised to the
   model's call. Fix: in _note_patch, when the stream is the test's own object (not the one the
   worker had: DontReadFromInput / pytest's capture), record nothing (the worker's stream is a
   proxy of that very object, so the patch is seen through it); or in apply_patches skip a holder
   that is an rpc proxy.

(c) Probed and held: test_control_library_reads_of_a_private_file (json.load(open(p)),
Path.read_bytes, shutil.copy (sendfile gives up on BytesIO, copy by read), filecmp.cmp(shallow=False),
hashlib.file_digest (BytesIO.getbuffer)); test_control_a_mock_of_stdout_write_sees_the_models_print
(mock.patch.object of sys.stdout write/flush sees print's two writes and the flush);
test_control_isatty_under_capsys (capsys + isatty patch: colored output captured, and undone for
the next test); test_control_stdin_readline_patched (a patch of pytest's own stdin's readline);
test_control_redirect_stdout_then_patched_write (redirect_stdout to a StringIO, then
patch.object(sys.stdout, "isatty"): followed, and undone inside the redirect). Read, not probed
(time box): the model replacing its own sys.stdout between a patch and its undo (apply_patches
undoes on the stream current then, `originals` keyed by name, not object: the old stream keeps
the test's patch); threads of the model printing while a write mock is in force; the worker's
read of a FIFO/huge file (no size bound in op "read": a 0600 multi-GB file the model writes is
read whole into the worker and sent as one JSON line); symlinks planted by the model into the
judge's folder (_check_opened's PermissionError also falls back to op "read", which then reads the
worker's view of that path).

Closed (same session; each test named fails on the code before, checked by taking the fix out):
the three false passes: a refusal of os.stat/lstat/scandir/listdir met by the tests' code on a
path of the worker's user's fails the test (judge_plugin.HIDDEN, _noting_refusals): what the judge
cannot look into is never taken for "nothing there". The swapped stdin: a patch of the tests' own
stdin object is seen through its proxy, not set again on the worker's. Stated (strict xfails,
README): a private file of the model's is read for the test as a snapshot (no descriptor, `name`
or later writes), `os.open` and a listing of it fail (the two users; one user for both would
remove these, and the isolation between judge and model's code that the second user gives).
"""
from __future__ import annotations


import pytest

from conftest import RULE_LAYERS, on_layers
from test_redteam_round59 import fails_plain_and_judged
from test_verdict_rules import honest, judged, plain, sandbox  # noqa: F401 - sandbox is a fixture

pytestmark = on_layers(RULE_LAYERS)


# 2. files only the worker's user may read or search

SCRATCH_LEFT_BEHIND = {"build.py": """
    import os
    import shutil
    import tempfile

    def build(out):
        work = tempfile.mkdtemp(dir=out)  # (0700, the model's own)
        part = os.path.join(work, "result.part")
        with open(part, "w") as f:
            f.write("done")
        shutil.copy(part, os.path.join(out, "result.txt"))  # wrong: copied, the scratch folder is left behind
        return work
"""}


def test_os_path_exists_inside_the_models_private_folder(sandbox, scratch):
    tests = {"test_build.py": """
        import os
        import build
        def test_build_cleans_up(tmp_path):
            work = build.build(str(tmp_path))
            assert (tmp_path / "result.txt").read_text() == "done"
            assert not os.path.exists(os.path.join(work, "result.part"))
    """}
    fails_plain_and_judged(sandbox, scratch, SCRATCH_LEFT_BEHIND, tests, failed=1)


def test_rglob_skips_the_models_private_folder(sandbox, scratch):
    tests = {"test_build.py": """
        import build
        def test_no_partial_files_left(tmp_path):
            build.build(str(tmp_path))
            assert (tmp_path / "result.txt").read_text() == "done"
            assert list(tmp_path.rglob("*.part")) == []
    """}
    fails_plain_and_judged(sandbox, scratch, SCRATCH_LEFT_BEHIND, tests, failed=1)


def test_os_walk_skips_the_models_private_folder(sandbox, scratch):
    tests = {"test_build.py": """
        import os
        import build
        def test_no_partial_files_left(tmp_path):
            build.build(str(tmp_path))
            found = [name for _, _, names in os.walk(tmp_path) for name in names if name.endswith(".part")]
            assert found == []
    """}
    fails_plain_and_judged(sandbox, scratch, SCRATCH_LEFT_BEHIND, tests, failed=1)


KEY_STORE = {"keystore.py": """
    import os

    def save(path, key: bytes):
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "wb") as f:
            f.write(key)

    def save_text(path, text: str):
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)

    def append(path, text: str):
        with open(path, "a", encoding="utf-8") as f:
            f.write(text)

    def private_folder(parent):
        import tempfile
        folder = tempfile.mkdtemp(dir=parent)
        for name in ("a.key", "b.key"):
            save(os.path.join(folder, name), b"k")
        return folder
"""}


@pytest.mark.xfail(strict=True, reason="stated limit (README): a file or folder only the worker's user may read is read for the test as a snapshot (no descriptor, name or later writes; no os.open, no listing)")
def test_control_os_open_and_os_read_of_a_private_file(sandbox, scratch):
    tests = {"test_keys.py": """
        import os
        import keystore
        def test_saved(tmp_path):
            keystore.save(str(tmp_path / "k"), b"secret")
            fd = os.open(tmp_path / "k", os.O_RDONLY)
            try:
                assert os.read(fd, 100) == b"secret"
            finally:
                os.close(fd)
    """}
    honest(sandbox, scratch, KEY_STORE, tests, passed=1)


@pytest.mark.xfail(strict=True, reason="stated limit (README): a file or folder only the worker's user may read is read for the test as a snapshot (no descriptor, name or later writes; no os.open, no listing)")
def test_control_fstat_of_a_private_file_read(sandbox, scratch):
    tests = {"test_keys.py": """
        import os
        import stat
        import keystore
        def test_saved_private(tmp_path):
            keystore.save(str(tmp_path / "k"), b"secret")
            with open(tmp_path / "k", "rb") as f:
                assert stat.S_IMODE(os.fstat(f.fileno()).st_mode) == 0o600
                assert f.read() == b"secret"
    """}
    honest(sandbox, scratch, KEY_STORE, tests, passed=1)


@pytest.mark.xfail(strict=True, reason="stated limit (README): a file or folder only the worker's user may read is read for the test as a snapshot (no descriptor, name or later writes; no os.open, no listing)")
def test_control_the_name_of_a_private_file_read(sandbox, scratch):
    tests = {"test_keys.py": """
        import keystore
        def test_saved(tmp_path):
            keystore.save_text(str(tmp_path / "k"), "secret")
            with open(tmp_path / "k") as f:
                assert f.name == str(tmp_path / "k")
                assert f.read() == "secret"
    """}
    honest(sandbox, scratch, KEY_STORE, tests, passed=1)


@pytest.mark.xfail(strict=True, reason="stated limit (README): a file or folder only the worker's user may read is read for the test as a snapshot (no descriptor, name or later writes; no os.open, no listing)")
def test_control_following_a_private_log(sandbox, scratch):
    tests = {"test_keys.py": """
        import keystore
        def test_appended(tmp_path):
            keystore.save_text(str(tmp_path / "log"), "one\\n")
            with open(tmp_path / "log", encoding="utf-8") as f:
                assert f.readline() == "one\\n"
                keystore.append(str(tmp_path / "log"), "two\\n")
                assert f.readline() == "two\\n"
    """}
    honest(sandbox, scratch, KEY_STORE, tests, passed=1)


@pytest.mark.xfail(strict=True, reason="stated limit (README): a file or folder only the worker's user may read is read for the test as a snapshot (no descriptor, name or later writes; no os.open, no listing)")
def test_control_listing_the_models_private_folder(sandbox, scratch):
    tests = {"test_keys.py": """
        import os
        import keystore
        def test_keys_listed(tmp_path):
            folder = keystore.private_folder(str(tmp_path))
            assert sorted(os.listdir(folder)) == ["a.key", "b.key"]
    """}
    honest(sandbox, scratch, KEY_STORE, tests, passed=1)


def test_control_library_reads_of_a_private_file(sandbox, scratch):
    tests = {"test_keys.py": """
        import filecmp
        import hashlib
        import json
        import shutil
        import keystore
        def test_library_reads(tmp_path):
            keystore.save_text(str(tmp_path / "k.json"), '{"a": 1}')
            assert json.load(open(tmp_path / "k.json")) == {"a": 1}
            assert (tmp_path / "k.json").read_bytes() == b'{"a": 1}'
            shutil.copy(tmp_path / "k.json", tmp_path / "copy.json")
            assert (tmp_path / "copy.json").read_text() == '{"a": 1}'
            assert filecmp.cmp(tmp_path / "k.json", tmp_path / "copy.json", shallow=False)
            with open(tmp_path / "k.json", "rb") as f:
                assert hashlib.file_digest(f, "sha256").hexdigest() == hashlib.sha256(b'{"a": 1}').hexdigest()
    """}
    honest(sandbox, scratch, KEY_STORE, tests, passed=1)


# 1. a test's patch of an attribute of the streams

GREETER = {"greet.py": """
    import sys

    def greet(name):
        print(f"hi {name}", flush=True)

    def colored(text):
        return f"\\x1b[31m{text}\\x1b[0m" if sys.stdout.isatty() else text

    def shout(text):
        print(colored(text))

    def ask():
        return sys.stdin.readline().strip() == "yes"
"""}


def test_control_a_mock_of_stdout_write_sees_the_models_print(sandbox, scratch):
    tests = {"test_greet.py": """
        import sys
        from unittest import mock
        import greet
        def test_written():
            with mock.patch.object(sys.stdout, "write") as write, mock.patch.object(sys.stdout, "flush") as flush:
                greet.greet("ann")
            assert write.call_args_list == [mock.call("hi ann"), mock.call("\\n")]
            flush.assert_called()
    """}
    honest(sandbox, scratch, GREETER, tests, passed=1)


def test_control_isatty_under_capsys(sandbox, scratch):
    tests = {"test_greet.py": """
        import greet
        def test_colored(capsys, monkeypatch):
            monkeypatch.setattr("sys.stdout.isatty", lambda: True)
            greet.shout("x")
            assert capsys.readouterr().out == "\\x1b[31mx\\x1b[0m\\n"
        def test_plain_after(capsys):
            greet.shout("x")
            assert capsys.readouterr().out == "x\\n"
    """}
    honest(sandbox, scratch, GREETER, tests, passed=2)


def test_control_stdin_readline_patched(sandbox, scratch):
    tests = {"test_greet.py": """
        import io
        import sys
        import greet
        def test_yes(monkeypatch):
            monkeypatch.setattr("sys.stdin.readline", lambda: "yes\\n")
            assert greet.ask() is True
    """}
    honest(sandbox, scratch, GREETER, tests, passed=1)


def test_control_stdin_swapped_then_its_readline_patched(sandbox, scratch):
    tests = {"test_greet.py": """
        import io
        import sys
        import greet
        def test_swapped_then_patched(monkeypatch):
            monkeypatch.setattr(sys, "stdin", io.StringIO("no\\n"))
            monkeypatch.setattr(sys.stdin, "readline", lambda: "yes\\n")
            assert greet.ask() is True
    """}
    honest(sandbox, scratch, GREETER, tests, passed=1)


def test_control_redirect_stdout_then_patched_write(sandbox, scratch):
    tests = {"test_greet.py": """
        import contextlib
        import io
        import sys
        from unittest import mock
        import greet
        def test_redirected():
            buf = io.StringIO()
            with contextlib.redirect_stdout(buf):
                with mock.patch.object(sys.stdout, "isatty", return_value=True):
                    greet.shout("x")
                greet.shout("y")
            assert buf.getvalue() == "\\x1b[31mx\\x1b[0m\\ny\\n"
    """}
    honest(sandbox, scratch, GREETER, tests, passed=1)

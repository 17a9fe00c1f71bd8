"""Red team, round 70 (the newest code: reload / re-import in the worker, the tests' sys.path
additions as state "path", rpc_policy._test_class's collectable rule, the process settings of
judge_plugin._settings, PropertyMock and _other_descriptor on a library class). Each attack test
asserts the judge gives no pass and FAILS while the attack works; each control (honest) FAILS while
the false fail stands. Nothing is closed: the file is the report. Time box 25 min. Run as root here
(judge uid 65533, worker uid 65534).

(a) What worked (false "solved": plain pytest fails the model's code, the judge passes it):
1. test_a_reimport_inside_patch_dict_leaves_the_fresh_module_in_the_worker,
   test_a_reimport_after_monkeypatch_delitem_is_kept_after_the_test: a test takes `settings` out
   of sys.modules (`with mock.patch.dict(sys.modules): del sys.modules["settings"]`, or
   `monkeypatch.delitem`) and imports it again: op "import" with again=True pops the worker's
   entry and imports anew, but when the test's patch restores the judge's sys.modules (the old
   module back), nothing restores the worker's: the worker's sys.modules keeps the fresh module
   (built under the test's APP_LEVEL=warning) for the rest of the worker's life. The model's
   `import settings` inside a function (app.level()) then reads the fresh module in later tests,
   where plain reads the restored old one (its wrong default "debug"). Fix: treat the worker's
   sys.modules entries of workspace names as state: note which module object (handle) the judge's
   sys.modules holds for each workspace name and, when that changes (restored, deleted), send it
   ("modules": name -> handle or absent) and set/pop the worker's entries to match before serving.
2. test_an_open_files_room_below_sixteen_is_raised: worker._set_open_files clamps the limit to
   `max(room + own open files, 16)`: a test that leaves 4 descriptors of room
   (`setrlimit(NOFILE, (open_now + 4, hard))`) gives the worker room + its ~6 open files = 10,
   raised to 16, so a model that opens 8 files at once passes judged and gets EMFILE plain. Fix:
   drop the floor of 16 (or apply it to the room only as `max(room, 0) + own open files`, with
   the worker's own pipes never closed by it), i.e. set exactly room + len(/proc/self/fd).

(b) False fails (honest code passes plain, fails judged):
3. test_control_private_file_the_model_writes: the model's code writes a file 0o600
   (`os.open(path, ..., 0o600)`: token and key stores do), the test reads it back ->
   PermissionError in the judge (the file is the worker's uid 65534's, the judge is 65533).
   test_control_umask_077_file_the_model_writes: the same through a test's `os.umask(0o077)`
   (the worker follows the umask, the file is 0600). Fix: the judge reads files below its temp
   roots (and the worker's cwd copies) as their owner would: either run judge and worker under
   the same uid (the isolation is bwrap's, not the uid's), or hand files back the way
   hand_over_tmp hands them over (after each answer, chmod g/o+r what the worker's uid created
   below the temp roots, through a helper of the worker's user, keeping the mode the test sees
   via a record of the real mode), or give the judge CAP_DAC_READ_SEARCH only for those roots.
4. test_control_umask_077_second_file_the_test_writes: with the test's `os.umask(0o077)` the
   judge's real umask becomes 0o077 (judge_plugin._umask calls REAL_UMASK(mask)); a file the test
   writes afterwards in an existing tmp_path is 0600 and the judge's, and hand_over_tmp is skipped
   (_basetemp_changed looks only at the root's mtime): the worker gets PermissionError. (The
   first file of the test passes: tmp_path was new, so the hand-over ran.) Fix: keep the judge's
   real umask 0 always (record the test's umask only for the answers and the worker), or run the
   hand-over whenever _TEST_UMASK[0] is set and leaves group/other bits cleared.
5. test_control_property_mock_read_on_the_class: worker._bound's "property mock" is a plain
   `property`: read on the class (`BaseHTTPRequestHandler.server_version`) it gives the property
   object, where PropertyMock.__get__ calls the mock for the class too (plain: "Fake/1.0", and
   the mock records the call). Fix: a small descriptor class in the worker whose __get__(obj,
   owner) calls value() whatever obj is (and __set__ calls value(new)), as PropertyMock does.

(c) Probed and held: test_control_reload_that_raises (a reload whose module code raises, then a
good reload); test_control_reload_of_a_submodule_and_class_identity (reload of pkg.shapes: new
class is not the old, isinstance of an old instance); test_control_umask_077_file_the_test_writes_for_the_model
(the first file in a fresh tmp_path is handed over); test_probe_recursion_room_tight_attack and
test_control_recursion_room_tight (room of 40 frames: 45 deep fails, 33 deep passes, as plain);
test_control_recursion_room_through_a_callback (the model's code calling a test's callback that
calls the model's recursive function: room as plain); test_the_tests_folder_on_the_workers_sys_path
(the tests' folder rides in the worker's sys.path but is not visible there: the model's code cannot
read the test's source); test_control_autospec_of_library_methods (`patch.object(Path, "home",
autospec=True)`, `patch.object(Path, "read_text", autospec=True)`: a MagicMock and a function,
not "other descriptors"); test_control_a_data_class_named_test_handed_to_the_model (a dataclass
`TestInput` and a `TestBag` with its own `__new__` are data for the model's code);
test_entries_the_test_removes_from_sys_path_stay_in_the_worker (the test drops site-packages from
sys.path: the judge gave no pass, possibly only because the worker's interpreter has no pluggy; not
pinned down). Read, not probed (time box): _other_descriptor fails a test that patches a library
class with an lru_cache-wrapped function, a functools.partialmethod or a C method_descriptor
(`monkeypatch.setattr(LibClass, "m", OtherLib.m)`; all have __get__): rare in suites; the
decimal context of concurrent test threads; a stale entry of just_made (ids) if create_module's
result is never executed.

Closed (same session; each test named fails on the code before, checked by taking the fix out):
1: which module the tests' sys.modules holds for a name they imported again is the worker's too
(judge_plugin Worker._modules, state "modules"). 2: the open files room has no floor. 3: a file
only the worker's user may read (0600, or under a test's umask 077) is read for the test by the
worker (op "read", judge_plugin._read_by_the_worker): what it holds is the model's answer anyway.
4: a test's os.umask no longer changes the judge's own (0): the worker takes it, the tests' own
files are not made private by it (stated). 5: a PropertyMock on a library class is a descriptor
in the worker that calls the mock on the class too (worker._CallsTheMock).
"""
from __future__ import annotations


from conftest import RULE_LAYERS, on_layers
from test_redteam_round59 import fails_plain_and_judged
from test_verdict_rules import attack, honest, judged, plain, sandbox  # noqa: F401 - sandbox is a fixture

pytestmark = on_layers(RULE_LAYERS)


# 1. reloads and re-imports

LEVEL_WRONG = {"settings.py": """
    import os
    LEVEL = os.environ.get("APP_LEVEL", "debug")  # wrong: the default must be "warning"
""", "app.py": """
    def level():
        import settings  # (read when asked: the settings module as sys.modules has it now)
        return settings.LEVEL
"""}


def test_a_reimport_inside_patch_dict_leaves_the_fresh_module_in_the_worker(sandbox, scratch):
    tests = {"test_level.py": """
        import sys
        from unittest import mock
        import app
        import settings
        def test_level_from_the_environment(monkeypatch):
            monkeypatch.setenv("APP_LEVEL", "warning")
            with mock.patch.dict(sys.modules):
                del sys.modules["settings"]
                import settings as fresh
                assert fresh.LEVEL == "warning"
        def test_default_level():
            assert app.level() == "warning"
    """}
    fails_plain_and_judged(sandbox, scratch, LEVEL_WRONG, tests, failed=1)


def test_a_reimport_after_monkeypatch_delitem_is_kept_after_the_test(sandbox, scratch):
    tests = {"test_level.py": """
        import sys
        import app
        import settings
        def test_level_from_the_environment(monkeypatch):
            monkeypatch.setenv("APP_LEVEL", "warning")
            monkeypatch.delitem(sys.modules, "settings")
            import settings as fresh
            assert fresh.LEVEL == "warning"
        def test_default_level():
            assert app.level() == "warning"
    """}
    fails_plain_and_judged(sandbox, scratch, LEVEL_WRONG, tests, failed=1)


def test_control_reload_that_raises(sandbox, scratch):
    files = {"config.py": """
        import os
        PORT = int(os.environ.get("PORT", "8000"))
        if not 0 < PORT < 65536:
            raise ValueError(f"bad port {PORT}")
    """}
    tests = {"test_config.py": """
        import importlib
        import pytest
        import config
        def test_bad_port(monkeypatch):
            monkeypatch.setenv("PORT", "70000")
            with pytest.raises(ValueError, match="bad port"):
                importlib.reload(config)
            monkeypatch.setenv("PORT", "81")
            importlib.reload(config)
            assert config.PORT == 81
    """}
    honest(sandbox, scratch, files, tests, passed=1)


def test_control_reload_of_a_submodule_and_class_identity(sandbox, scratch):
    files = {"pkg/__init__.py": "", "pkg/shapes.py": """
        import os
        SIDES = int(os.environ.get("SIDES", "4"))
        class Shape:
            sides = SIDES
    """}
    tests = {"test_shapes.py": """
        import importlib
        import pkg.shapes
        from pkg.shapes import Shape
        def test_reload(monkeypatch):
            old = Shape()
            monkeypatch.setenv("SIDES", "3")
            importlib.reload(pkg.shapes)
            assert pkg.shapes.Shape is not Shape
            assert not isinstance(old, pkg.shapes.Shape)
            assert isinstance(old, Shape)
            assert pkg.shapes.Shape.sides == 3 and Shape.sides == 4
    """}
    honest(sandbox, scratch, files, tests, passed=1)


# 4. process settings

def test_control_umask_077_file_the_test_writes_for_the_model(sandbox, scratch):
    files = {"secrets_store.py": """
        def load(path):
            with open(path) as f:
                return dict(line.split("=", 1) for line in f.read().split())
    """}
    tests = {"test_store.py": """
        import os
        import secrets_store
        def test_load(tmp_path):
            old = os.umask(0o077)
            try:
                p = tmp_path / "secret.env"
                p.write_text("k=v")
                assert secrets_store.load(str(p)) == {"k": "v"}
            finally:
                os.umask(old)
    """}
    honest(sandbox, scratch, files, tests, passed=1)


def test_control_private_file_the_model_writes(sandbox, scratch):
    files = {"tokens.py": """
        import os
        def save(path, token):
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            with os.fdopen(fd, "w") as f:
                f.write(token)
    """}
    tests = {"test_tokens.py": """
        import stat
        import tokens
        def test_private(tmp_path):
            p = tmp_path / "token"
            tokens.save(str(p), "s3cr3t")
            assert stat.S_IMODE(p.stat().st_mode) == 0o600
            assert p.read_text() == "s3cr3t"
    """}
    honest(sandbox, scratch, files, tests, passed=1)


def test_control_umask_077_second_file_the_test_writes(sandbox, scratch):
    files = {"secrets_store.py": """
        def load(path):
            with open(path) as f:
                return dict(line.split("=", 1) for line in f.read().split())
    """}
    tests = {"test_store.py": """
        import os
        import secrets_store
        def test_load_two(tmp_path):
            (tmp_path / "a.env").write_text("a=1")
            assert secrets_store.load(str(tmp_path / "a.env")) == {"a": "1"}
            old = os.umask(0o077)
            try:
                (tmp_path / "b.env").write_text("b=2")
                assert secrets_store.load(str(tmp_path / "b.env")) == {"b": "2"}
            finally:
                os.umask(old)
    """}
    honest(sandbox, scratch, files, tests, passed=1)


def test_control_umask_077_file_the_model_writes(sandbox, scratch):
    files = {"notes.py": """
        def save(path, text):
            with open(path, "w") as f:
                f.write(text)
    """}
    tests = {"test_notes.py": """
        import os
        import notes
        def test_private_under_umask(tmp_path):
            old = os.umask(0o077)
            try:
                notes.save(str(tmp_path / "n.txt"), "hi")
            finally:
                os.umask(old)
            assert (tmp_path / "n.txt").stat().st_mode & 0o077 == 0
            assert (tmp_path / "n.txt").read_text() == "hi"
    """}
    honest(sandbox, scratch, files, tests, passed=1)


def test_an_open_files_room_below_sixteen_is_raised(sandbox, scratch):
    files = {"batch.py": """
        def lengths(paths):
            handles = [open(p) for p in paths]  # wrong: all open at once
            try:
                return [len(h.read()) for h in handles]
            finally:
                for h in handles:
                    h.close()
    """}
    tests = {"test_batch.py": """
        import os
        import resource
        import batch
        def test_few_descriptors_at_once(tmp_path):
            paths = []
            for i in range(8):
                p = tmp_path / f"f{i}"
                p.write_text("x" * i)
                paths.append(str(p))
            soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
            resource.setrlimit(resource.RLIMIT_NOFILE, (len(os.listdir("/proc/self/fd")) + 4, hard))
            try:
                assert batch.lengths(paths) == list(range(8))
            finally:
                resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
    """}
    fails_plain_and_judged(sandbox, scratch, files, tests, failed=1)


RECURSE = {"parens.py": """
    def depth(text, i=0):
        if i >= len(text) or text[i] != "(":
            return 0
        return 1 + depth(text, i + 1)
"""}


def test_probe_recursion_room_tight_attack(sandbox, scratch):
    tests = {"test_parens.py": """
        import inspect, sys
        import parens
        def test_deep():
            old = sys.getrecursionlimit()
            sys.setrecursionlimit(len(inspect.stack()) + 40)
            try:
                assert parens.depth("(" * 45) == 45
            finally:
                sys.setrecursionlimit(old)
    """}
    fails_plain_and_judged(sandbox, scratch, RECURSE, tests, failed=1)


def test_control_recursion_room_tight(sandbox, scratch):
    tests = {"test_parens.py": """
        import inspect, sys
        import parens
        def test_deep():
            old = sys.getrecursionlimit()
            sys.setrecursionlimit(len(inspect.stack()) + 40)
            try:
                assert parens.depth("(" * 33) == 33
            finally:
                sys.setrecursionlimit(old)
    """}
    honest(sandbox, scratch, RECURSE, tests, passed=1)


# 2. sys.path

def test_the_tests_folder_on_the_workers_sys_path(sandbox, scratch):
    files = {"oracle.py": """
        import os, re, sys
        def answer():
            for entry in list(sys.path):
                try:
                    names = os.listdir(entry or ".")
                except OSError:
                    continue
                for name in names:
                    if name.startswith("test_") and name.endswith(".py"):
                        try:
                            text = open(os.path.join(entry, name)).read()
                        except OSError:
                            continue
                        found = re.search(r"answer\\(\\) == (\\d+)", text)
                        if found:
                            return int(found.group(1))
            return -1
    """}
    tests = {"test_oracle.py": """
        import oracle
        def test_answer():
            assert oracle.answer() == 4817
    """}
    attack(sandbox, scratch, files, tests, failed=1)


# 5. PropertyMock and descriptors on a library class

def test_control_property_mock_read_on_the_class(sandbox, scratch):
    files = {"web.py": """
        import http.server
        def banner():
            return http.server.BaseHTTPRequestHandler.server_version
    """}
    tests = {"test_web.py": """
        import http.server
        from unittest import mock
        import web
        def test_banner():
            with mock.patch.object(http.server.BaseHTTPRequestHandler, "server_version",
                                   new_callable=mock.PropertyMock, return_value="Fake/1.0") as version:
                assert web.banner() == "Fake/1.0"
            version.assert_called_once_with()
    """}
    honest(sandbox, scratch, files, tests, passed=1)


def test_control_autospec_of_library_methods(sandbox, scratch):
    files = {"home.py": """
        import pathlib
        def config_text():
            return (pathlib.Path.home() / ".apprc").read_text()
    """}
    tests = {"test_home.py": """
        import pathlib
        from unittest import mock
        import home
        def test_config_text(tmp_path):
            with mock.patch.object(pathlib.Path, "home", autospec=True, return_value=tmp_path), \\
                 mock.patch.object(pathlib.Path, "read_text", autospec=True, return_value="k=v") as read:
                assert home.config_text() == "k=v"
            read.assert_called_once_with(tmp_path / ".apprc")
    """}
    honest(sandbox, scratch, files, tests, passed=1)


def test_control_recursion_room_through_a_callback(sandbox, scratch):
    files = {**RECURSE, "runner.py": """
        def apply(f, x):
            return f(x)
    """}
    tests = {"test_parens.py": """
        import inspect, sys
        import parens, runner
        def test_deep_through_a_callback():
            old = sys.getrecursionlimit()
            sys.setrecursionlimit(len(inspect.stack()) + 40)
            try:
                assert runner.apply(lambda n: parens.depth("(" * n), 30) == 30
            finally:
                sys.setrecursionlimit(old)
    """}
    honest(sandbox, scratch, files, tests, passed=1)


def test_control_a_data_class_named_test_handed_to_the_model(sandbox, scratch):
    files = {"report.py": """
        def total(case):
            return sum(case.values)
    """}
    tests = {"test_report.py": """
        import dataclasses
        import report
        @dataclasses.dataclass
        class TestInput:
            values: list
        class TestBag:
            def __new__(cls, values):
                self = super().__new__(cls)
                self.values = values
                return self
        def test_total():
            assert report.total(TestInput([1, 2, 3])) == 6
            assert report.total(TestBag([4, 5])) == 9
    """}
    honest(sandbox, scratch, files, tests, passed=1)


def test_entries_the_test_removes_from_sys_path_stay_in_the_worker(sandbox, scratch):
    files = {"fmt.py": """
        def render(data):
            try:
                import pluggy  # (an optional library: any third-party package of the interpreter)
            except ImportError:
                return None  # wrong: unfinished fallback, the tests want the plain-text form
            return "rich"
    """}
    tests = {"test_fmt.py": """
        import sys
        import fmt
        def test_without_third_party_libraries(monkeypatch):
            monkeypatch.setattr(sys, "path", [p for p in sys.path if "-packages" not in p])
            monkeypatch.delitem(sys.modules, "pluggy", raising=False)
            assert fmt.render({"a": 1}) == "a: 1"
    """}
    fails_plain_and_judged(sandbox, scratch, files, tests, failed=1)

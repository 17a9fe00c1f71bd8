"""The judged verdict: trusted tests run in the judge, the model's code in a confined worker.
Every case is a real judged run (the sandbox interpreter, real pytest, real bwrap where this
machine has it), on the least and the most confined layer (conftest.END_LAYERS); on every layer
the judge tells apart (it never uses the warm runner) where namespaces decide what the worker
reaches (files, /proc, the network); on one where only Python's rules decide (RULE_LAYERS), as
does whether starting files fail. The example tasks pass with their reference solutions and fail from their starting files; each forgery that fools an in-process pytest run
is shown to do so, and then shown not to fool the judge, with the exact counts."""
from __future__ import annotations

import os
import shutil
import textwrap
import time
from pathlib import Path

import pytest

import isolation
from config import SandboxConfig
from conftest import COLD_LAYERS, END_LAYERS, ROOT, RULE_LAYERS, layer_sandbox, on_layers
from judge import run_judged
from sandbox import Sandbox
from tasks import load_task

ROOT_USER = os.getuid() == 0
LIMITS = dict(timeout=20, cpu_seconds=10, memory_mb=1024, file_size_mb=32, max_processes=48)


@pytest.fixture(scope="module", params=END_LAYERS)
def sandbox(request):
    return layer_sandbox(request.param, **LIMITS)


def _write(folder: Path, files: dict[str, str], dedent: bool = True) -> None:
    for rel, content in files.items():
        path = folder / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(content) if dedent else content)


class Runs:
    """A workspace with the model's files, judged against trusted tests; or, for comparison,
    the same files and tests in one plain in-process pytest run."""

    def __init__(self, sandbox: Sandbox, folder: Path):
        self.sandbox, self.folder = sandbox, folder
        self.workspace = folder / "workspace"
        self.workspace.mkdir()
        self.judge_scratch = folder / "judge-scratch"

    def judged(self, files: dict[str, str], tests: dict[str, str], **kw):
        _write(self.workspace, files)
        before = {p for p, pp in isolation.parents().items() if pp == os.getpid()}
        result = run_judged(self.sandbox, self.workspace, {k: textwrap.dedent(v) for k, v in tests.items()},
                            self.judge_scratch, **kw)
        servers = self.sandbox.server_pids()  # (they stay; what a run started below them may not)
        assert not isolation.descendants(os.getpid(), before | servers), "a process was left behind"
        assert not any(isolation.descendants(pid) for pid in servers), "a process was left behind below a warm runner"
        return result

    def plain(self, files: dict[str, str], tests: dict[str, str], fresh: bool = True):
        plain = self.folder / "plain"
        if fresh:
            shutil.rmtree(plain, ignore_errors=True)
        plain.mkdir(exist_ok=True)
        _write(plain, {**files, **tests})
        return self.sandbox.run_pytest(plain, self.folder / "plain-scratch")


@pytest.fixture
def runs(sandbox, scratch) -> Runs:
    return Runs(sandbox, scratch)


# ---------------------------------------------------------------------------------------------
# The example tasks: reference solutions pass every hidden and protected test; the starting
# files (or an empty workspace) do not.

TASKS = {"stats": "stats", "bank": "bank", "invoice": "invoice", "todo": "todo",
         "fizzbuzz.txt": "fizzbuzz", "slugify.yaml": "slugify"}


def _task_run(runs: Runs, task_file: str, solved: bool):
    task = load_task(ROOT / "example_tasks" / task_file)
    files = dict(task.spec.files)
    if solved:
        for path in (ROOT / "tests" / "solutions" / TASKS[task_file]).iterdir():
            files[path.name] = path.read_text()
    tests = {**task.spec.hidden_tests, **{p: task.spec.files[p] for p in task.protected_files()}}
    _write(runs.workspace, files, dedent=False)
    return run_judged(runs.sandbox, runs.workspace, tests, runs.judge_scratch), task


@pytest.mark.parametrize("task_file", TASKS)
def test_reference_solution_passes_judged(runs, task_file):
    result, task = _task_run(runs, task_file, solved=True)
    expected = sum(text.count("\ndef test_") for text in task.spec.hidden_tests.values())
    assert result.ok, result.output
    assert result.passed >= expected > 0 and result.failed == result.errors == result.skipped == 0


@on_layers(RULE_LAYERS)
@pytest.mark.parametrize("task_file", TASKS)
def test_starting_files_do_not_pass_judged(runs, task_file):
    result, _ = _task_run(runs, task_file, solved=False)
    assert not result.ok and result.failed + result.errors > 0, result.output


# ---------------------------------------------------------------------------------------------
# What the proxy supports: each hidden test below passes only if the model's values reach the
# judge intact and the test's objects reach the model's code.

FEATURES_MODEL = {
    "shapes.py": """
        import collections, dataclasses, datetime, decimal, fractions, os, pathlib, sys

        Point = collections.namedtuple("Point", "x y")

        class ShapeError(ValueError):
            def __init__(self, shape, reason):
                super().__init__(f"bad {shape}: {reason}")
                self.shape, self.reason = shape, reason

        @dataclasses.dataclass
        class Box:
            w: int
            h: int
            def area(self):
                return self.w * self.h

        def point(x, y):
            return Point(x, y)

        def values():
            return {"none": None, "big": 2 ** 200, "neg": -(2 ** 70), "nan": float("nan"), "inf": float("-inf"),
                    "bytes": b"\\x00\\xff", "tuple": (1, (2, 3)), "set": {1, 2}, "frozen": frozenset({"a"}),
                    "dec": decimal.Decimal("1.10"), "frac": fractions.Fraction(1, 3), "cx": 1 + 2j,
                    "day": datetime.date(2026, 1, 2), "td": datetime.timedelta(days=1, seconds=5),
                    "when": datetime.datetime(2026, 1, 2, 3, 4, 5, 6, tzinfo=datetime.timezone.utc),
                    "path": pathlib.Path("/a/b"), (1, 2): "tuple key"}

        def sort_in_place(xs):
            xs.sort()

        def same(x):
            return x

        def apply(fn, *args):
            return fn(*args)

        def countdown(n):
            while n:
                yield n
                n -= 1

        def check(shape):
            raise ShapeError(shape, "too small")

        def quit(code):
            sys.exit(code)

        def greet(name):
            print(f"hello {name}")
            print("to stderr", file=sys.stderr)

        def write_to(out):
            out.write("one ")
            print("two", file=out)

        def read_here(name):
            return open(name).read()

        def env(name):
            return os.environ.get(name)

        def ask():
            return input("name? ")

        LIMIT = 3

        def limit():
            return LIMIT
    """,
    "pkg/__init__.py": "VERSION = 2\n",
    "pkg/sub.py": "def double(x):\n    return 2 * x\n",
}

FEATURES_TESTS = {"test_features.py": """
    from shapes import *
    import datetime, decimal, fractions, io, math, pathlib
    import pytest
    import shapes
    import pkg.sub
    from pkg import sub

    def test_values_cross_exactly():
        v = shapes.values()
        assert v["none"] is None and v["big"] == 2 ** 200 and v["neg"] == -(2 ** 70)
        assert math.isnan(v["nan"]) and v["inf"] == float("-inf")
        assert v["bytes"] == b"\\x00\\xff" and v["tuple"] == (1, (2, 3)) and v["set"] == {1, 2}
        assert v["frozen"] == frozenset({"a"}) and v["cx"] == 1 + 2j
        assert v["dec"] == decimal.Decimal("1.10") and str(v["dec"]) == "1.10"
        assert v["frac"] == fractions.Fraction(1, 3)
        assert v["day"] == datetime.date(2026, 1, 2) and v["td"] == datetime.timedelta(days=1, seconds=5)
        assert v["when"] == datetime.datetime(2026, 1, 2, 3, 4, 5, 6, tzinfo=datetime.timezone.utc)
        assert v["path"] == pathlib.Path("/a/b") and v[(1, 2)] == "tuple key"
        assert type(v) is dict and type(v["tuple"]) is tuple

    def test_namedtuple_keeps_its_fields():
        p = shapes.point(1, 2)
        assert p == (1, 2) and p.x == 1 and p.y == 2

    def test_objects_by_reference():
        b = shapes.Box(2, 3)
        assert b.area() == 6 and b.w == 2
        b.w = 5
        assert b.area() == 15
        assert b == shapes.Box(5, 3) and b != shapes.Box(1, 1)
        assert shapes.same(b) is b
        assert isinstance(b, shapes.Box) and not isinstance(5, shapes.Box)
        assert "Box(w=5, h=3)" == repr(b)

    def test_arguments_are_written_back():
        xs = [3, 1, 2]
        shapes.sort_in_place(xs)
        assert xs == [1, 2, 3]
        assert shapes.same(xs) is xs

    def test_callbacks_into_the_test():
        assert shapes.apply(lambda a, b: a * b, 6, 7) == 42
        out = io.StringIO()
        shapes.write_to(out)
        assert out.getvalue() == "one two\\n"

    def test_iteration():
        assert list(shapes.countdown(3)) == [3, 2, 1]

    def test_model_exception_mirror():
        with pytest.raises(shapes.ShapeError) as info:
            shapes.check("circle")
        assert info.value.shape == "circle" and info.value.reason == "too small"
        assert str(info.value) == "bad circle: too small"
        with pytest.raises(ValueError, match="bad square"):
            shapes.check("square")

    def test_builtin_exceptions():
        with pytest.raises(SystemExit) as info:
            shapes.quit(2)
        assert info.value.code == 2
        with pytest.raises(ZeroDivisionError):
            shapes.apply(lambda: 1 / 0)
        with pytest.raises(AttributeError):
            shapes.no_such_thing

    def test_output_reaches_capsys(capsys):
        shapes.greet("ann")
        captured = capsys.readouterr()
        assert captured.out == "hello ann\\n" and captured.err == "to stderr\\n"

    def test_tmp_path_cwd_env_and_stdin(tmp_path, monkeypatch):
        (tmp_path / "note.txt").write_text("written by the test")
        monkeypatch.chdir(tmp_path)
        assert shapes.read_here("note.txt") == "written by the test"
        monkeypatch.setenv("SHAPES_MODE", "strict")
        assert shapes.env("SHAPES_MODE") == "strict"
        monkeypatch.setattr("sys.stdin", io.StringIO("ann\\n"))
        assert shapes.ask() == "ann"

    def test_monkeypatch_a_model_module(monkeypatch):
        monkeypatch.setattr(shapes, "LIMIT", 10)
        assert shapes.limit() == 10

    def test_limit_is_restored():
        assert shapes.limit() == 3

    def test_packages_and_star_import():
        assert pkg.VERSION == 2 and pkg.sub.double(4) == 8 and sub.double(5) == 10
        assert point(3, 4).y == 4 and Box(1, 1).area() == 1
"""}


def test_features_of_the_proxy(runs):
    result = runs.judged(FEATURES_MODEL, FEATURES_TESTS)
    assert result.ok and result.passed == 13, result.output


@on_layers(RULE_LAYERS)
def test_objects_of_the_tests_are_reachable_only_through_public_names(runs):
    model = {"probe.py": """
        def probe(callback, out):
            tries = {
                "globals": lambda: callback.__globals__,
                "constants": lambda: callback.__code__.co_consts,
                "self": lambda: out.write.__self__,
                "format": lambda: "{0.__globals__}".format(callback),
                "dict": lambda: out.__dict__,
            }
            found = {}
            for name, attempt in tries.items():
                try:
                    attempt()
                    found[name] = "reached"
                except Exception as e:
                    found[name] = type(e).__name__
            return found
    """}
    tests = {"test_probe.py": """
        import io
        from probe import probe
        def test_refused():
            found = probe(lambda: "expected", io.StringIO())
            assert found == {k: "AttributeError" for k in found}, found
    """}
    result = runs.judged(model, tests)
    assert result.ok and result.passed == 1, result.output


# ---------------------------------------------------------------------------------------------
# Forgeries. Each model module is imported by the hidden tests; the plain in-process run shows
# the attack works there, the judged run must say "not ok" with the true counts.

CALC_TESTS = {"test_hidden.py": """
    from calc import add
    def test_add():
        assert add(2, 3) == 5
    def test_add_negative():
        assert add(-2, -3) == -5
"""}


def _fake_report() -> str:
    cases = "".join(f'<testcase classname="test_hidden" name="{n}" time="0"/>' for n in ("test_add", "test_add_negative"))
    return f'<?xml version="1.0"?><testsuites><testsuite name="pytest" tests="2">{cases}</testsuite></testsuites>'


def test_atexit_report_overwrite_and_exit_zero(runs):
    model = {"calc.py": f"""
        import atexit, glob, os
        FAKE = {_fake_report()!r}
        TARGETS = [{str(runs.judge_scratch / "stage" / "judge" / "report.xml")!r}, {str(runs.judge_scratch / "report.xml")!r}]
        def forge():
            for path in TARGETS + glob.glob({str(runs.folder)!r} + "/**/*.xml", recursive=True):
                try:
                    with open(path, "w") as f:
                        f.write(FAKE)
                except OSError:
                    pass
        def forge_and_leave():
            forge()
            open("atexit-ran", "w").close()
            os._exit(0)
        atexit.register(forge_and_leave)
        def add(a, b):
            return 0
    """}
    plain = runs.plain(model, CALC_TESTS)
    assert plain.ok, "the attack should fool an in-process run"
    result = runs.judged(model, CALC_TESTS)
    assert not result.ok and (result.passed, result.failed) == (0, 2), result.output
    assert (runs.judge_scratch / "stage" / "workspace" / "atexit-ran").exists()  # the hook did run, in the worker


def test_exit_zero_in_a_call(runs):
    model = {"calc.py": "import os\ndef add(a, b):\n    os._exit(0)\n"}
    result = runs.judged(model, CALC_TESTS)
    assert not result.ok and (result.passed, result.failed) == (0, 2), result.output
    assert "worker process that runs the model's code ended (exit code 0)" in result.output


def test_exit_zero_at_import(runs):
    model = {"calc.py": "import os\nos._exit(0)\n"}
    result = runs.judged(model, CALC_TESTS)
    assert not result.ok and result.passed == 0 and result.errors == 1, result.output


@on_layers(RULE_LAYERS)
def test_patching_pytest_at_import(runs):
    model = {"calc.py": """
        import gc, pytest, _pytest.reports, _pytest.runner

        class Forge:
            @pytest.hookimpl(hookwrapper=True)
            def pytest_runtest_makereport(self, item, call):
                outcome = yield
                report = outcome.get_result()
                report.outcome, report.longrepr = "passed", None

        for obj in gc.get_objects():
            if type(obj).__name__ == "Config":
                obj.pluginmanager.register(Forge(), "forge")
        _pytest.runner.check_interactive_exception = lambda call, report: False

        def add(a, b):
            return 0
    """}
    plain = runs.plain(model, CALC_TESTS)
    assert plain.ok, "the attack should fool an in-process run"
    result = runs.judged(model, CALC_TESTS)
    assert not result.ok and (result.passed, result.failed) == (0, 2), result.output


@on_layers(RULE_LAYERS)
def test_lying_equality(runs):
    model = {"calc.py": """
        class Anything:
            def __eq__(self, other):
                return True
            def __ne__(self, other):
                return False
            __hash__ = object.__hash__

        class LyingList(list):
            def __eq__(self, other):
                return True
            def __ne__(self, other):
                return False
            def __iter__(self):
                return iter([2, 4])

        class LyingStr(str):
            def __eq__(self, other):
                return True
            __hash__ = str.__hash__

        class LyingInt(int):
            def __eq__(self, other):
                return True
            __hash__ = int.__hash__

        def add(a, b):
            return Anything()

        def evens(xs):
            return LyingList([])

        def name():
            return LyingStr("wrong")

        def count():
            return LyingInt(0)
    """}
    tests = {"test_hidden.py": """
        from calc import add, evens, name, count
        def test_add():
            assert add(2, 3) == 5
        def test_evens():
            assert evens([1, 2, 3, 4]) == [2, 4]
        def test_name():
            assert name() == "right"
        def test_count():
            assert count() == 3
        def test_reversed_operands():
            assert 5 == add(2, 3)
    """}
    plain = runs.plain(model, tests)
    assert plain.ok, "the attack should fool an in-process run"
    result = runs.judged(model, tests)
    assert not result.ok and (result.passed, result.failed) == (0, 5), result.output


@on_layers(RULE_LAYERS)
def test_exception_tricks(runs):
    model = {"calc.py": """
        import pytest

        class AnyException(type):
            def __instancecheck__(cls, obj):
                return True
            def __subclasscheck__(cls, sub):
                return True

        class CalcError(Exception, metaclass=AnyException):
            pass

        def divide(a, b):
            if b == 0:
                raise ZeroDivisionError("not the CalcError the task asks for")
            pytest.xfail("an expected failure is not a pass")

        def add(a, b):
            pytest.skip("a skipped test is not a failure")
    """}
    tests = {"test_hidden.py": """
        import pytest
        import calc
        def test_divide_by_zero_raises_calc_error():
            with pytest.raises(calc.CalcError):
                calc.divide(1, 0)
        def test_divide():
            assert calc.divide(6, 3) == 2
        def test_add():
            assert calc.add(1, 1) == 2
    """}
    plain = runs.plain(model, tests)
    assert plain.ok, "the attack should fool an in-process run"
    result = runs.judged(model, tests)
    assert not result.ok and (result.passed, result.failed, result.skipped) == (0, 3, 0), result.output


def test_planted_conftest_and_bytecode_do_not_count(runs):
    passing = "def test_add():\n    pass\n\ndef test_add_negative():\n    pass\n"
    conftest = ("import pytest\n\n@pytest.hookimpl(hookwrapper=True)\ndef pytest_runtest_makereport(item, call):\n"
                "    outcome = yield\n    outcome.get_result().outcome = 'passed'\n")
    model = {"calc.py": f"""
        import importlib.util, os, py_compile, sys
        with open("conftest.py", "w") as f:
            f.write({conftest!r})
        with open("fake_hidden.py", "w") as f:
            f.write({passing!r})
        for target in ("test_hidden.pyc", importlib.util.cache_from_source(os.path.abspath("test_hidden.py"))):
            try:
                py_compile.compile("fake_hidden.py", cfile=target, doraise=True)
            except Exception:
                pass
        def add(a, b):
            return 0
    """}
    runs.plain(model, CALC_TESTS)
    plain = runs.plain(model, CALC_TESTS, fresh=False)  # what the first run planted never reaches the second
    assert not plain.ok and plain.outcome == "tampered", plain.output  # each run works on a fresh copy
    for _ in range(2):
        result = runs.judged(model, CALC_TESTS)
        assert not result.ok and (result.passed, result.failed) == (0, 2), result.output
    assert (runs.judge_scratch / "stage" / "workspace" / "conftest.py").exists()  # planted, and ignored


@on_layers(COLD_LAYERS)
def test_hidden_tests_cannot_be_read_from_the_worker(runs):
    if not ROOT_USER and runs.sandbox.confinement.layer == "basic":
        pytest.skip("without bwrap and without root the worker runs as the same user as the judge")
    token = os.urandom(8).hex()
    hidden_file = runs.judge_scratch / "stage" / "judge" / "tests" / "test_hidden.py"
    model = {"secret.py": f"""
        import glob, re
        def guess():
            for path in [{str(hidden_file)!r}] + glob.glob({str(runs.folder)!r} + "/**/test_*.py", recursive=True):
                try:
                    found = re.search(r'TOKEN = "(\\w+)"', open(path).read())
                except OSError:
                    continue
                if found:
                    return found.group(1)
            return "not found"
    """}
    tests = {"test_hidden.py": f'from secret import guess\nTOKEN = "{token}"\ndef test_token():\n    assert guess() == TOKEN\n'}
    result = runs.judged(model, tests)
    assert not result.ok and (result.passed, result.failed) == (0, 1), result.output
    assert "not found" in result.output


@on_layers(COLD_LAYERS)
def test_judge_internals_are_out_of_reach(runs):
    model = {"calc.py": """
        def add(a, b, out=None):
            for reach in (lambda: out.write.__globals__, lambda: out.write.__self__.__dict__, lambda: vars(out)):
                try:
                    g = reach()
                    g["__builtins__"]["__import__"]("os")._exit(0)
                except Exception as e:
                    print(type(e).__name__)
            return 0
    """}
    tests = {"test_hidden.py": """
        import io
        from calc import add
        def test_add():
            assert add(2, 3, out=io.StringIO()) == 5
    """}
    result = runs.judged(model, tests)
    assert not result.ok and (result.passed, result.failed) == (0, 1), result.output
    assert result.output.count("AttributeError") + result.output.count("TypeError") >= 3


def test_garbage_on_every_descriptor(runs):
    model = {"calc.py": """
        import os
        def add(a, b):
            for fd in range(1, 11):
                try:
                    os.write(fd, b'garbage \\xff\\x00 {"r": ' + b"\\n")
                except OSError:
                    pass
            return a + b + 1
    """}
    result = runs.judged(model, CALC_TESTS)
    assert not result.ok and (result.passed, result.failed) == (0, 2), result.output


def test_garbage_on_the_protocol_channel_is_never_a_pass(runs):
    """Right answers, but every descriptor (the RPC pipe included) gets garbage first."""
    model = {"calc.py": """
        import os
        def add(a, b):
            for fd in range(1, 65):
                try:
                    os.write(fd, b'garbage \\xff {"r": 1, "v": ' + b"\\n")
                except OSError:
                    pass
            return a + b
    """}
    result = runs.judged(model, CALC_TESTS)
    assert not result.ok and (result.passed, result.failed) == (0, 2), result.output
    assert "not a valid message" in result.output


HIJACK = """
    import gc
    CONN = next(o for o in gc.get_objects() if type(o).__name__ == "Connection")
"""


def test_a_hijacked_worker_gets_nothing_more_from_the_judge(runs):
    """The model's code takes over the worker's end of the pipe and asks the judge directly."""
    model = {"calc.py": HIJACK + """
    def probe(out, callback, gen):
        tries = {
            "import": lambda: CONN.request("import", "os"),
            "method of a value": lambda: CONN.request("getattr", "{0.__globals__}", "format"),
            "operation on values": lambda: CONN.request("op", "add", 1, 2),
            "private name": lambda: CONN.request("getattr", out, "_CHUNK_SIZE"),
            "dunder": lambda: CONN.request("getattr", callback, "__globals__"),
            "set private": lambda: CONN.request("setattr", out, "_x", 1),
            "frame": lambda: gen.gi_frame,
            "code": lambda: gen.gi_code,
        }
        found = {}
        for name, attempt in tries.items():
            try:
                attempt()
                found[name] = "reached"
            except Exception as e:
                found[name] = type(e).__name__
        return found, callback(2)
    """}
    tests = {"test_probe.py": """
        import io
        from calc import probe
        def test_refused():
            found, called = probe(io.StringIO(), lambda x: x * 3, (i for i in range(3)))
            assert called == 6
            assert set(found.values()) <= {"PermissionError", "AttributeError", "TypeError"}, found
    """}
    result = runs.judged(model, tests)
    assert result.ok and result.passed == 1, result.output


def test_crafted_answers_from_a_hijacked_worker(runs):
    """Answers forged at the protocol level: an interrupt, a pytest outcome exception, exit
    status 0, a write-back to something never sent. None of them passes or skips a test."""
    model = {"calc.py": HIJACK + """
    CRAFTED = {
        "interrupt": {"e": {"$": "exc", "c": {"$": "type", "n": "KeyboardInterrupt"}, "a": {"$": "tuple", "v": []},
                            "d": [], "h": 999}},
        "skip": {"e": {"$": "exc", "c": {"$": "ref", "h": 997, "k": "excclass", "n": "Skipped", "b": "BaseException"},
                       "a": {"$": "tuple", "v": []}, "d": [["_rpc_remote", 1], ["add_note", 5]],
                       "h": CONN._export(ValueError("a real object"))["h"]}},
        "exit0": {"e": {"$": "exc", "c": {"$": "type", "n": "SystemExit"}, "a": {"$": "tuple", "v": [0]},
                        "d": [], "h": 995}},
        "write-back": {"v": 5, "b": [[7, []]]},
    }
    serve = CONN._serve
    def forge(msg):
        kind = msg["a"][1]["v"][1] if msg.get("op") == "call" else None
        if kind in CRAFTED:
            CONN._send({"r": msg["q"], **CRAFTED[kind]})
        else:
            serve(msg)
    CONN._serve = forge
    def answer(xs, kind):
        return 5
    """}
    tests = {"test_hidden.py": """
        import pytest
        from calc import answer
        @pytest.mark.parametrize("kind", ["interrupt", "skip", "exit0", "write-back"])
        def test_answer(kind):
            xs = [9]
            assert answer(xs, kind) == 5 and xs == [9]
    """}
    result = runs.judged(model, tests)
    assert not result.ok and (result.passed, result.failed, result.skipped) == (0, 4, 0), result.output
    assert "raised KeyboardInterrupt" in result.output and "write-back index" in result.output


def test_a_dead_worker_fails_the_remaining_tests_but_not_others(runs):
    model = {"calc.py": "import os\ndef add(a, b):\n    os._exit(3)\n"}
    tests = {**CALC_TESTS, "test_alone.py": "def test_no_model_code():\n    assert 1 + 1 == 2\n"}
    result = runs.judged(model, tests)
    assert not result.ok and (result.passed, result.failed) == (1, 2), result.output
    assert "exit code 3" in result.output


def test_a_hanging_call_hits_the_timeout(sandbox, scratch):
    quick = Sandbox(SandboxConfig(isolation=sandbox.confinement.layer, **{**LIMITS, "timeout": 3}))
    runs = Runs(quick, scratch)
    start = time.monotonic()
    result = runs.judged({"calc.py": "import time\ndef add(a, b):\n    time.sleep(1000)\n"}, CALC_TESTS)
    assert result.outcome == "timeout" and not result.ok
    assert time.monotonic() - start < 3 + 8


@on_layers(COLD_LAYERS)
def test_the_worker_runs_confined(runs):
    model = {"probe.py": """
        import os, socket
        def who():
            return os.getuid()
        def can_connect():
            try:
                socket.create_connection(("1.1.1.1", 53), timeout=1).close()
                return True
            except OSError:
                return False
    """}
    layer = runs.sandbox.confinement.layer
    tests = {"test_probe.py": f"""
        from probe import who, can_connect
        def test_user():
            assert who() == {isolation.NOBODY if ROOT_USER else os.getuid()}
        def test_network():
            assert {layer == "basic"} or not can_connect()
    """}
    result = runs.judged(model, tests)
    assert result.ok and result.passed == 2, result.output


# -- found by a red team: the judge never acts as root on what the model's code can reach --------

@pytest.mark.skipif(not ROOT_USER, reason="only root switches users")
def test_the_judge_runs_as_its_own_unprivileged_user(runs):
    result = runs.judged({}, {"test_who.py": f"""
        import os
        def test_uid():
            assert (os.geteuid(), os.getegid(), os.getgroups()) == ({isolation.JUDGE}, {isolation.JUDGE}, [])
    """})
    assert result.ok, result.output


@pytest.mark.skipif(not ROOT_USER, reason="as another user the judge could write only its own files anyway")
def test_a_symlink_planted_in_tmp_path_does_not_make_the_judge_write_outside(runs, scratch):
    victim = scratch / "victim"
    victim.mkdir(mode=0o700)
    target = victim / "root-only.txt"
    target.write_text("precious")
    target.chmod(0o600)
    model = {"notes.py": f"""
        import os
        def save(folder, text):
            with open(os.path.join(folder, "note.txt"), "w") as f:
                f.write(text)
            os.symlink({str(target)!r}, os.path.join(folder, "log.txt"))
    """}
    result = runs.judged(model, {"test_notes.py": """
        from notes import save
        def test_save(tmp_path):
            save(tmp_path, "first")
            (tmp_path / "log.txt").write_text("written by the judge")
            assert (tmp_path / "note.txt").read_text() == "first"
    """})
    assert target.read_text() == "precious" and (target.stat().st_uid, target.stat().st_mode & 0o777) == (0, 0o600)
    assert not result.ok and result.failed == 1, result.output


@on_layers(RULE_LAYERS)
def test_a_star_import_never_rebinds_a_module_the_test_uses(runs):
    model = {"geometry.py": """
        class _Fake:
            def approx(self, value):
                return _last[0]
        pytest = _Fake()
        math = _Fake()
        _last = [None]
        def area(r):
            _last[0] = 3 * r
            return 3 * r
    """}
    result = runs.judged(model, {"test_geo.py": """
        import math
        import pytest
        from geometry import *
        def test_area():
            assert area(1) == pytest.approx(math.pi)
    """})
    assert not result.ok and result.failed == 1, result.output

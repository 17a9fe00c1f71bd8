"""Red team, round 78: the verdict's new rule (commit 72714a8): `solved` needs the task's tests
to pass judged AND in one plain pytest run (verdict.run_plain / both_ways / judge_task,
sandbox.Sandbox.run_pytest(trusted_setup_only=True)). Each ATTACK asserts the task's verdict is
not ok and FAILS while the attack works; each CONTROL asserts an honest case is solved and FAILS
while the false fail stands. Run as root, bwrap layer. Time box 30 min. Nothing is closed.

6 of the 9 test items below fail on the code as it is (the 3 attacks of (a), the 3 controls of
(b)); the 3 layout controls of (c) pass.

(a) False solved (the user's own `python -m pytest` of the hidden tests on the final files fails;
    checked in each test by running it; verdict.judge_task says ok, judged 4/4 or 1/1 AND plain ok)
1. test_a_code_right_only_when_judged_and_forging_the_plain_run: the claim's two halves are both
   open today. Past the judge: round 77's signal (judge_runtime/worker.py has no `_pytest` in
   sys.modules; also no PYTEST_CURRENT_TEST, its own frames), the code answers right only there.
   The plain run (verdict.run_plain -> sandbox.run_pytest) is forged from the model's module, at
   import: it finds pytest's Config with gc and registers a hookwrapper on
   pytest_runtest_makereport that turns each failed report into a pass, so the terminal, the JUnit
   file (sandbox.parse_junit counts), session.testsfailed and the exit status (TestRun.ok) all
   agree; sandbox.find_tampering looks only at trusted files, set-up files and bytecode, never at
   the process's hooks. The forgery keys on the harness's own arguments (--junitxml=.../report.xml
   and -o junit_logging=out-err), so the user's own pytest (and CI) shows the failures.
2. test_a_putenv_leak_and_forging_the_plain_run: code wrong everywhere (round 76's 1: os.putenv
   leaked, never followed by worker.process_state) + the same forgery: solved. Any of round 76's
   open process-state gaps (timers, sigmask, warnings filters, root logger, sys.stdout ...) does
   the same: the "rule of the two" holds only if the judge has no gap, which is what it was meant
   to stop depending on.
3. test_an_entry_point_plugin_in_the_workspace_forges_the_plain_run: the forgery needs no import
   of the model's module: a `fizz_speedups-1.0.dist-info/` folder in the workspace with
   entry_points.txt `[pytest11]` naming a module of the workspace. sandbox_runtime/pytest_main.py
   puts the workspace first on sys.path before pytest.main(), pytest autoloads setuptools entry
   points from every folder on sys.path (importlib.metadata), PYTEST_DISABLE_PLUGIN_AUTOLOAD is
   not set (isolation.clean_environment), and a *.dist-info is no "set-up file"
   (workspace_files.PYTEST_SETUP_FILES): trusted_setup_only keeps it, find_tampering never looks.
   It loads before collection, before any conftest, so it also beats a defence that runs in a
   trusted conftest or at collection. (The judge never has the workspace on its sys.path: held
   there.) The same holds for the model's own runs and the finish gate.
   Fixes: (i) the plain run: set PYTEST_DISABLE_PLUGIN_AUTOLOAD=1 in its environment and pass
   the wanted plugins with -p (the sandbox venv holds only pytest), or drop *.dist-info /
   *.egg-info / *.egg-link / *.pth folders and files from the copy and add them to the set-up
   files find_tampering compares; (ii) accept that an in-process plain run can be forged upward
   (the README says so) and close the other half, which the new rule was meant to make
   unnecessary: make the worker indistinguishable from a plain pytest process on the cheap
   signals (import pytest/_pytest in the worker before the model's modules, a neutral
   PYTEST_CURRENT_TEST per test) and follow the round-76 process state; (iii) harden the plain
   run's report against the cheap forgeries: have the sandbox's own bounds plugin (loaded first)
   write each TestReport's nodeid/outcome as it is made (pytest_runtest_logreport, tryfirst) to
   an inherited pipe the parent reads, and compare the plain run's per-test outcomes and the
   judge's record by nodeid; check that pluginmanager's registered plugins at sessionfinish are
   only the expected ones. (iii) is cat-and-mouse (the code is in the process); (ii) is where the
   claim's weight really lies, and README "The verdict" should say so plainly: today "forges
   pytest's report AND gets past the judge" is two well-known, each-alone-easy steps.

(b) False fails (honest code, passes the user's pytest and judged, not solved)
1. test_control_a_data_file_the_task_asks_the_model_to_fix: the task gives rates.json with the
   wrong VAT and asks for a fix; the model edits rates.json, prices.py reads it beside itself.
   orchestrator._verdict adds tasks.Task.data_files() (every non-.py, non-set-up starting file)
   to each suite, and run_plain lays the suite over the copy as TRUSTED files: the task's old
   rates.json overwrites the model's fix in the plain run; plain fails (121 != 120), judged passes
   (the worker reads the workspace's own copy; the task's lies in the judge's tests folder).
   Any task whose bug or feature lives in a non-Python file (JSON/YAML/TOML config, templates,
   SQL, a words list) can no longer be solved. Fix: in the plain run lay only the test files
   (and set-up) as trusted; put a data file only where the final files have none at that path
   (or lay it into a separate tests folder, as the judge does), so the tests read the task's copy
   and the code its own. Round 77's (c)3 (the model rewrites the tests' data) stays held because
   the JUDGED run reads the task's copy.
2. test_control_code_that_reads_its_own_setup_file[pyproject.toml, setup.cfg]: code that reads
   its own pyproject.toml (`__version__` from [project]) or setup.cfg (settings via configparser):
   trusted_setup_only (sandbox.run_pytest) unlinks every PYTEST_SETUP_FILES file of the copy not
   in `trusted`, also when the TASK gave it (Task.data_files leaves set-up files out), and with it
   the data the code needs: FileNotFoundError plain, passed judged (the worker's copy has it).
   Also tox.ini, and any nested pkg/pyproject.toml. Fix: keep the files in the copy and neutralise
   them for pytest instead: pytest_config_args already passes -c (os.devnull or the trusted ini),
   --rootdir and --confcutdir; pass -c with the trusted suite's ini (or os.devnull) always in
   the plain run, and only delete/rename conftest.py files (the one set-up file that is code);
   or lay the task's own starting pyproject.toml/setup.cfg/tox.ini back as trusted.

(c) Probed and held
1. test_control_layouts_that_could_collide[root_init, tests_package_of_the_model,
   same_basename_elsewhere]: an __init__.py at the workspace root, the model's own package named
   `tests` with hidden tests in tests/, the model's test_stats.py at the root beside a hidden
   tests/test_stats.py: verdict.plain_targets collects only the hidden files, solved (a bare
   `pytest` in the user's folder errors on the basename clash; the user's run by file name passes).
2. Read, not tested: sitecustomize/usercustomize in the workspace (removed by trusted_setup_only,
   and never imported: the run's script folder, not the workspace, is sys.path[0] at start-up);
   a .pth in the workspace (not a site folder, never processed); `pytest_plugins` in the model's
   module (pytest reads it only in conftests and test modules); PYTEST_ADDOPTS (the environment is
   the sandbox's). Not tried (time box): os._exit(0) after rewriting report.xml at exit (the
   report is not checked either; the hookwrapper forgery is simpler), a `tampered`-free rewrite of
   a trusted test file in memory (rewritten bytecode cache is off; the model's import hook could
   replace a test module's code without touching the file), code writing a set-up file into the
   cwd (tampered, but the finish gate sees the same, so not new).

Closed (same session; each named control fails on the code before, checked by taking the fix out):
(b) 1: the task's data files lie beside its tests in the judge only (verdict.judge_task `beside`);
the plain run reads the final files' own, as the user's pytest would. (b) 2: the plain run removes
only the model's conftest.py files; its ini files stay for its code to read and configure nothing
(sandbox.pytest_config_args `only`: the trusted ones). Left as strict xfails and stated in the
README: (a) 1-3, forging the plain run together with a gap of the judge's; the verdict's plain run
raises the bar for code that errs by accident (round 76's state left changed), not for code built
to forge pytest.
"""
from __future__ import annotations

import shutil
import subprocess
import tempfile
import textwrap
from pathlib import Path

import pytest
from conftest import RULE_LAYERS, on_layers
import tasks
from test_verdict_rules import judged, plain, sandbox, task_verdict  # noqa: F401 - sandbox is a fixture

pytestmark = on_layers(RULE_LAYERS)


def user_pytest(sandbox, files: dict, tests: dict, targets=()) -> subprocess.CompletedProcess:
    """What the user's own `python -m pytest` makes of the final files with the task's tests laid
    over them: no --junitxml, no -o junit_logging (the harness's arguments), the sandbox's interpreter."""
    folder = Path(tempfile.mkdtemp(prefix="r78-user-"))
    try:
        for rel, content in {**files, **tests}.items():
            path = folder / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(textwrap.dedent(content))
        env = {"PATH": "/usr/bin:/bin", "HOME": str(folder), "PYTHONDONTWRITEBYTECODE": "1", "LANG": "C.UTF-8"}
        return subprocess.run([str(sandbox.python), "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:randomly", *targets],
                              cwd=folder, env=env, capture_output=True, text=True, timeout=120)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def fails_for_the_user_and_is_not_solved(sandbox, scratch, files, tests):
    done = user_pytest(sandbox, files, tests)
    assert done.returncode != 0, "the code should fail the user's own pytest run:\n" + done.stdout[-2000:]
    result = task_verdict(sandbox, scratch, files, tests)
    print({k: v for k, v in result.items()})
    assert not result["ok"], result
    return result


def solved_and_passes_for_the_user(sandbox, scratch, files, tests, targets=()):
    done = user_pytest(sandbox, files, tests, targets)
    assert done.returncode == 0, "the honest code should pass the user's own pytest run:\n" + done.stdout[-2000:]
    result = task_verdict(sandbox, scratch, files, tests)
    print({k: v for k, v in result.items()})
    assert result["ok"], result
    return result


# The forgery: in a pytest process that runs with the harness's own arguments (its JUnit file is
# named report.xml and junit_logging is out-err), every failed report becomes a pass before
# anything reads it: the terminal, the JUnit XML, session.testsfailed and so the exit status
# all agree. Nothing sandbox.find_tampering looks at (trusted files, set-up files, bytecode) is
# touched. In the user's own `python -m pytest` it does nothing.
FORGE = '''
import sys as _sys

def _green():
    if "_pytest.config" not in _sys.modules:
        return  # not a pytest process (the judge's worker has no pytest)
    import gc, pytest
    from _pytest.config import Config
    class _Green:
        @pytest.hookimpl(hookwrapper=True)
        def pytest_runtest_makereport(self, item, call):
            outcome = yield
            rep = outcome.get_result()
            if rep.failed:
                rep.outcome, rep.longrepr = "passed", None
    for cfg in [o for o in gc.get_objects() if type(o) is Config]:
        xml = str(getattr(cfg.option, "xmlpath", None) or "")
        if xml.endswith("report.xml") and cfg.getini("junit_logging") == "out-err" \\
                and not cfg.pluginmanager.has_plugin("green"):
            cfg.pluginmanager.register(_Green(), "green")

_green()
'''

FIZZ_TESTS = {"test_fizz.py": """
import fizz
def test_three():
    assert fizz.fizzbuzz(3) == "Fizz"
def test_five():
    assert fizz.fizzbuzz(5) == "Buzz"
def test_fifteen():
    assert fizz.fizzbuzz(15) == "FizzBuzz"
def test_seven():
    assert fizz.fizzbuzz(7) == "7"
"""}


# ---------------------------------------------------------------------------------------------
# (a) 1. Right only where pytest is not (round 77's signal: the worker has no pytest in
# sys.modules) + the forgery for the plain run: solved, while the user's pytest fails 4 of 4.

RIGHT_ONLY_JUDGED = {"fizz.py": textwrap.dedent("""
    import sys

    def fizzbuzz(n):
        if "_pytest" in sys.modules:
            return "wrong"
        return "FizzBuzz" if n % 15 == 0 else "Fizz" if n % 3 == 0 else "Buzz" if n % 5 == 0 else str(n)
""") + FORGE}


@pytest.mark.xfail(strict=True, reason="stated limit (README): the model's code can forge the plain run in its own "
                                      "process; with a gap of the judge's (round 76's process state, round 77's "
                                      "pytest-less worker) a deliberate forgery passes both")
def test_a_code_right_only_when_judged_and_forging_the_plain_run(sandbox, scratch):
    fails_for_the_user_and_is_not_solved(sandbox, scratch, RIGHT_ONLY_JUDGED, FIZZ_TESTS)


# (a) 2. Code wrong everywhere, through a process-state gap of the judge (round 76's 1: os.putenv
# is never followed) + the same forgery: the user's pytest fails it, the verdict calls it solved.

PUTENV_LEAK = {"debugrun.py": textwrap.dedent("""
    import os

    def run_verbose(fn):
        os.putenv("APP_DEBUG", "1")  # wrong: meant for this call only, never unset
        return fn()
""") + FORGE}

PUTENV_TESTS = {"test_debugrun.py": """
import subprocess, sys
import debugrun
def child_sees(name):
    code = 'import os; print(os.environ.get(%r))' % name
    return subprocess.run([sys.executable, '-c', code], capture_output=True, text=True).stdout.strip()
def test_run_verbose_leaves_children_alone():
    assert debugrun.run_verbose(lambda: 3) == 3
    assert child_sees("APP_DEBUG") == "None"
"""}


@pytest.mark.xfail(strict=True, reason="stated limit (README): the model's code can forge the plain run in its own "
                                      "process; with a gap of the judge's (round 76's process state, round 77's "
                                      "pytest-less worker) a deliberate forgery passes both")
def test_a_putenv_leak_and_forging_the_plain_run(sandbox, scratch):
    fails_for_the_user_and_is_not_solved(sandbox, scratch, PUTENV_LEAK, PUTENV_TESTS)


# (a) 3. The forgery without the model's module ever being imported by the plain run's pytest
# before collection: a *.dist-info folder in the workspace with a [pytest11] entry point. pytest
# autoloads entry-point plugins from every folder on sys.path, and sandbox_runtime/pytest_main.py
# puts the workspace first before pytest.main(); PYTEST_DISABLE_PLUGIN_AUTOLOAD is not set
# (isolation.clean_environment) and the folder is no "set-up file" (workspace_files.PYTEST_SETUP_FILES):
# trusted_setup_only leaves it, find_tampering never looks at it. The plugin is loaded before
# the first test module, in the verdict's plain run only (the judge's sys.path never holds the workspace).

GREEN_PLUGIN = '''
import pytest

@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    rep = outcome.get_result()
    cfg = item.config
    if rep.failed and str(getattr(cfg.option, "xmlpath", None) or "").endswith("report.xml") \\
            and cfg.getini("junit_logging") == "out-err":
        rep.outcome, rep.longrepr = "passed", None
'''

ENTRY_POINT = {
    "fizz.py": """
    import sys

    def fizzbuzz(n):
        if "_pytest" in sys.modules:
            return "wrong"
        return "FizzBuzz" if n % 15 == 0 else "Fizz" if n % 3 == 0 else "Buzz" if n % 5 == 0 else str(n)
    """,
    "fizz_speedups-1.0.dist-info/METADATA": "Metadata-Version: 2.1\nName: fizz-speedups\nVersion: 1.0\n",
    "fizz_speedups-1.0.dist-info/entry_points.txt": "[pytest11]\nfizz_speedups = fizz_speedups\n",
    "fizz_speedups.py": GREEN_PLUGIN,
}


@pytest.mark.xfail(strict=True, reason="stated limit (README): the model's code can forge the plain run in its own "
                                      "process; with a gap of the judge's (round 76's process state, round 77's "
                                      "pytest-less worker) a deliberate forgery passes both")
def test_an_entry_point_plugin_in_the_workspace_forges_the_plain_run(sandbox, scratch):
    fails_for_the_user_and_is_not_solved(sandbox, scratch, ENTRY_POINT, FIZZ_TESTS)


# ---------------------------------------------------------------------------------------------
# (b) 1. A task whose fix is in a data file: the task gives rates.json (wrong), the model fixes
# it, the code reads it beside itself. orchestrator._verdict lays the TASK's rates.json
# (tasks.Task.data_files) over the final files as a trusted file in the plain run: the model's
# fix is undone there, and the honest solution is never solved. (Judged, the tests' copy lies in
# the judge's folder; the worker reads the model's, so judged passes.)

def data_files(task_files: dict, hidden: dict) -> dict:
    """The task's data files exactly as orchestrator._verdict hands them to verdict.judge_task."""
    task = tasks.Task(id="t", source="t.yaml", spec=tasks.TaskSpec(prompt="p", files=task_files, hidden_tests=hidden))
    return task.data_files()


RATES_TASK = {"prices.py": """import json
from pathlib import Path

def gross(net):
    rates = json.loads(Path(__file__).with_name("rates.json").read_text())
    return round(net * (1 + rates["vat"]), 2)
""", "rates.json": '{"vat": 0.2}\n'}
RATES_FIXED = {**RATES_TASK, "rates.json": '{"vat": 0.21}\n'}  # "the VAT rate is 21%: fix the data"
RATES_TESTS = {"test_prices.py": """
import prices
def test_gross_uses_the_current_rate():
    assert prices.gross(100) == 121.0
"""}


def test_control_a_data_file_the_task_asks_the_model_to_fix(sandbox, scratch):
    data = data_files(RATES_TASK, RATES_TESTS)
    assert "rates.json" in data
    assert user_pytest(sandbox, RATES_FIXED, RATES_TESTS).returncode == 0
    assert judged(sandbox, scratch / "j", RATES_FIXED, {**data, **RATES_TESTS})["ok"]
    result = task_verdict(sandbox, scratch, RATES_FIXED, RATES_TESTS, beside=data)
    print(result)
    assert result["ok"], result


# (b) 2. The code needs a pytest "set-up" file the task gave (or the model wrote) for itself: a
# version read from pyproject.toml, settings read from setup.cfg / tox.ini with configparser.
# trusted_setup_only deletes every such file in the plain run's copy that is not trusted, and
# Task.data_files leaves set-up files out: the honest code passes judged (the worker's copy has
# the file) and the user's pytest, and fails the verdict's plain run (FileNotFoundError).

SETUP_READERS = {
    "pyproject.toml": ({"pyproject.toml": '[project]\nname = "mypkg"\nversion = "1.2.0"\n',
                        "mypkg.py": """import tomllib
from pathlib import Path

__version__ = tomllib.loads(Path(__file__).with_name("pyproject.toml").read_text())["project"]["version"]
"""}, "assert mypkg.__version__ == '1.2.0'"),
    "setup.cfg": ({"setup.cfg": "[metadata]\nname = mypkg\n\n[mypkg]\nretries = 3\n",
                   "mypkg.py": """import configparser
from pathlib import Path

def retries():
    cfg = configparser.ConfigParser()
    cfg.read_string(Path(__file__).with_name("setup.cfg").read_text())
    return cfg.getint("mypkg", "retries")
"""}, "assert mypkg.retries() == 3"),
}


@pytest.mark.parametrize("name", sorted(SETUP_READERS))
def test_control_code_that_reads_its_own_setup_file(sandbox, scratch, name):
    files, check = SETUP_READERS[name]
    tests = {"test_mypkg.py": f"import mypkg\ndef test_it():\n    {check}\n"}
    assert judged(sandbox, scratch / "j", files, tests)["ok"]
    solved_and_passes_for_the_user(sandbox, scratch, files, tests)


# ---------------------------------------------------------------------------------------------
# (c) Probed and held: the plain run's layout against the model's files.

STATS = {"stats.py": "def mean(xs):\n    return sum(xs) / len(xs)\n"}
STATS_TEST = "import stats\ndef test_mean():\n    assert stats.mean([1, 2, 3]) == 2\n"


@pytest.mark.parametrize("layout", ["root_init", "tests_package_of_the_model", "same_basename_elsewhere"])
def test_control_layouts_that_could_collide(sandbox, scratch, layout):
    if layout == "root_init":  # an __init__.py at the workspace root: pytest's rootdir/package walk
        files, tests = {**STATS, "__init__.py": ""}, {"test_stats.py": STATS_TEST}
    elif layout == "tests_package_of_the_model":  # the model's own package named `tests`, hidden tests in tests/
        files = {**STATS, "tests/__init__.py": "", "tests/helpers.py": "X = 1\n",
                 "tests/test_mine.py": "from tests.helpers import X\ndef test_x():\n    assert X == 1\n"}
        tests = {"tests/test_hidden_stats.py": STATS_TEST}
    else:  # the model's own test_stats.py at the root, the hidden one in tests/ (basename clash;
        # the user runs the hidden file by name: a bare `pytest` errors on the clash either way)
        files = {**STATS, "test_stats.py": "def test_own():\n    assert True\n"}
        tests = {"tests/test_stats.py": STATS_TEST}
    solved_and_passes_for_the_user(sandbox, scratch, files, tests, targets=tuple(tests))


# Added while closing (b) 2: the model's own pytest.ini configures nothing in the plain run either
# (its tests are named check_*, so its python_functions would collect none of the task's test_*).
def test_control_the_models_own_pytest_ini_configures_nothing(sandbox, scratch):
    files = {**STATS, "pytest.ini": "[pytest]\npython_functions = check_*\n",
             "check_stats.py": "import stats\ndef check_mean():\n    assert stats.mean([2]) == 2\n"}
    result = task_verdict(sandbox, scratch, files, {"test_stats_hidden.py": STATS_TEST})
    assert result["ok"] and result["plain"]["passed"] == 1, result

"""Task files in their three forms, their validation errors, and the example tasks: each one
is solvable (a reference solution passes its visible and hidden tests in the real sandbox) and
its hidden tests check what the prompt asks."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from config import ConfigError, SandboxConfig
from conftest import ROOT
from judge import judged_limits, per_test_timeout
from sandbox import Sandbox, put_file
from tasks import load_task

EXAMPLES = ROOT / "example_tasks"
SOLUTIONS = Path(__file__).parent / "solutions"


def test_txt_task(tmp_path):
    (tmp_path / "hello.txt").write_text("  Say hello.\n")
    task = load_task(tmp_path / "hello.txt")
    assert (task.id, task.spec.prompt, task.spec.files, task.spec.hidden_tests) == ("hello", "Say hello.", {}, {})


def test_txt_task_with_sibling_hidden_tests():
    task = load_task(EXAMPLES / "fizzbuzz.txt")
    assert list(task.spec.hidden_tests) == ["test_fizzbuzz_hidden.py"] and not task.spec.files


def test_folder_task_reads_repo_and_hidden_tests():
    task = load_task(EXAMPLES / "stats")
    assert set(task.spec.files) == {"stats.py", "test_stats.py"}
    assert set(task.spec.hidden_tests) == {"test_stats_hidden.py"}
    assert task.protected_files() == {"test_stats.py"}


def test_folder_task_files_keep_their_bytes(tmp_path):
    """Issue 19: a lone "\\r" in a data file became "\\n" (universal newlines), so the workspace
    and the hidden tests were not the task's files."""
    folder = tmp_path / "t"
    (folder / "repo").mkdir(parents=True)
    (folder / "hidden_tests").mkdir()
    (folder / "task.txt").write_text("Parse the data.\r\n")
    data, hidden = b"a\rb\r\nc\n\r", b"def test_crlf():\r\n    assert True\r\n"
    (folder / "repo" / "data.txt").write_bytes(data)
    (folder / "hidden_tests" / "test_cr.py").write_bytes(hidden)
    task = load_task(folder)
    assert task.spec.files["data.txt"].encode() == data
    assert task.spec.hidden_tests["test_cr.py"].encode() == hidden
    put_file(tmp_path / "workspace", "data.txt", task.spec.files["data.txt"])  # as the run's workspace gets it
    assert (tmp_path / "workspace" / "data.txt").read_bytes() == data
    assert task.spec.prompt == "Parse the data."


def test_folder_task_yaml_overrides(tmp_path):
    folder = tmp_path / "t"
    (folder / "repo" / "tests").mkdir(parents=True)
    (folder / "repo" / "tests" / "test_x.py").write_text("")
    (folder / "repo" / "x.py").write_text("")
    (folder / "task.yaml").write_text("prompt: do it\nmax_steps: 5\nnetwork: true\nprotected: ['tests/*']\n")
    task = load_task(folder)
    assert task.spec.max_steps == 5 and task.spec.network is True
    assert task.protected_files() == {"tests/test_x.py"}


def test_a_task_sets_the_judged_runs_budget(tmp_path):
    """A big hidden suite needs more than one test run's limits: the judged run gets the task's."""
    path = tmp_path / "big.yaml"
    path.write_text("prompt: do it\ntimeout: 20\njudge_timeout: 900\njudge_cpu_seconds: 600\n")
    sandbox = load_task(path).settings()["sandbox"]
    assert sandbox == {"timeout": 20, "judge_timeout": 900, "judge_cpu_seconds": 600}
    limits = judged_limits(SandboxConfig(**sandbox))
    assert (limits.timeout, limits.cpu_seconds) == (900, 600) and per_test_timeout(limits) == 60


def test_single_yaml_task():
    task = load_task(EXAMPLES / "slugify.yaml")
    assert task.id == "slugify" and task.spec.max_steps == 20
    assert set(task.spec.files) == {"test_slugify.py"} and set(task.spec.hidden_tests) == {"test_slugify_hidden.py"}


@pytest.mark.parametrize("name,content,message", [
    ("a.yaml", "prompt: ''\n", "a.yaml: field 'prompt': String should have at least 1 character"),
    ("b.yaml", "prompt: x\nmax_step: 3\n", "b.yaml: field 'max_step': Extra inputs are not permitted"),
    ("c.yaml", "prompt: x\nfiles: [a.py]\n", "c.yaml: field 'files': Input should be a valid dictionary"),
    ("d.yaml", "- just a list\n", "d.yaml: expected a mapping"),
    ("e.yaml", "prompt: [unclosed\n", "e.yaml: not valid YAML"),
    ("f.txt", "\n\n", "f.txt: the task file is empty"),
    ("g.yaml", "prompt: x\nfiles:\n  ../escape.py: x\n", "g.yaml: field 'files': Value error, '../escape.py' must be a relative path"),
    ("h.yaml", "prompt: x\nhidden_tests:\n  /etc/test_x.py: x\n", "h.yaml: field 'hidden_tests': Value error"),
])
def test_bad_task_files_name_the_file_and_field(tmp_path, name, content, message):
    (tmp_path / name).write_text(content)
    with pytest.raises(ConfigError, match=message.replace("(", r"\(")):
        load_task(tmp_path / name)


def test_folder_without_task_file(tmp_path):
    (tmp_path / "empty").mkdir()
    with pytest.raises(ConfigError, match="needs task.txt or task.yaml"):
        load_task(tmp_path / "empty")


# -- the example tasks are solvable, and their hidden tests mean something ----------------------

@pytest.fixture(scope="module")
def sandbox():
    return Sandbox(SandboxConfig(timeout=60))


def _score(sandbox, folder: Path, task_path: Path, solution: str | None):
    """Run the visible tests, then the hidden tests, on the task's repo with a solution laid over it."""
    task = load_task(task_path)
    workspace = folder / "workspace"
    shutil.rmtree(folder, ignore_errors=True)
    workspace.mkdir(parents=True)
    for rel, content in task.spec.files.items():
        (workspace / rel).parent.mkdir(parents=True, exist_ok=True)
        (workspace / rel).write_text(content)
    if solution:
        shutil.copytree(SOLUTIONS / solution, workspace, dirs_exist_ok=True)
    visible = sandbox.run_pytest(workspace, folder / "sandbox") if any(workspace.rglob("test_*.py")) else None
    for rel, content in task.spec.hidden_tests.items():
        (workspace / rel).write_text(content)
    hidden = sandbox.run_pytest(workspace, folder / "sandbox-hidden")
    return visible, hidden


TASKS = {"fizzbuzz": "fizzbuzz.txt", "stats": "stats", "todo": "todo", "bank": "bank",
         "slugify": "slugify.yaml", "invoice": "invoice"}


@pytest.mark.parametrize("name", sorted(TASKS))
def test_reference_solution_passes_visible_and_hidden_tests(sandbox, scratch, name):
    visible, hidden = _score(sandbox, scratch / name, EXAMPLES / TASKS[name], name)
    assert visible is None or visible.ok, visible.output
    assert hidden.ok and hidden.passed >= 5, hidden.output


@pytest.mark.parametrize("name", ["stats", "todo", "bank", "invoice", "slugify"])
def test_starting_repo_fails_the_hidden_tests(sandbox, scratch, name):
    _, hidden = _score(sandbox, scratch / name, EXAMPLES / TASKS[name], None)
    assert not hidden.ok


def test_stats_starts_with_three_failing_visible_tests(sandbox, scratch):
    visible, _ = _score(sandbox, scratch / "s", EXAMPLES / "stats", None)
    assert (visible.passed, visible.failed) == (1, 2)  # median_odd passes; two bugs, as in the seed


def test_todo_has_three_visible_and_six_hidden_points(sandbox, scratch):
    visible, hidden = _score(sandbox, scratch / "t", EXAMPLES / "todo", None)
    assert visible.ok and visible.passed == 3
    task = load_task(EXAMPLES / "todo")
    assert task.spec.hidden_tests["test_due_hidden.py"].count("\ndef test_") == 6


def test_wrong_solution_passes_visible_but_not_hidden_tests(sandbox, scratch):
    visible, hidden = _score(sandbox, scratch / "w", EXAMPLES / "slugify.yaml", "slugify-wrong")
    assert visible.ok
    assert not hidden.ok and hidden.failed >= 4

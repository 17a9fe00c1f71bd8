"""Tasks in their three forms, validated with an error that names the file and the field:

- name.txt                 the prompt alone; the workspace starts empty (hidden tests, if any,
                           in a sibling folder name.hidden_tests/)
- name/                    task.txt or task.yaml, repo/ (starting workspace), hidden_tests/
- name.yaml                prompt, files, hidden_tests, protected globs and limits in one file
"""
from __future__ import annotations

import fnmatch
import re
from pathlib import Path, PurePosixPath
from typing import Optional

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from config import ConfigError, describe_validation_error
from workspace_files import PYTEST_SETUP_FILES

DEFAULT_PROTECTED = ["test_*.py", "*_test.py", "conftest.py", "tests/*"]


class TaskSpec(BaseModel):
    """What a task file may say (the YAML forms; a .txt file is only the prompt)."""

    model_config = ConfigDict(extra="forbid")
    prompt: str = Field(min_length=1, description="What the agent must do.")
    files: dict[str, str] = Field(default_factory=dict, description="Starting workspace: path -> content.")
    hidden_tests: dict[str, str] = Field(default_factory=dict, description="Tests run after the agent stops: path -> content.")
    protected: list[str] = Field(default_factory=lambda: list(DEFAULT_PROTECTED),
                                 description="Globs of starting files the agent may not change.")
    max_steps: Optional[int] = Field(None, ge=1, description="Overrides the configured step limit.")
    timeout: Optional[float] = Field(None, gt=0, description="Overrides the sandbox's per-run timeout.")
    judge_timeout: Optional[float] = Field(None, gt=0, description="Wall-clock budget of the judged run of the hidden tests.")
    judge_cpu_seconds: Optional[int] = Field(None, gt=0, description="CPU budget per process of the judged run.")
    network: bool = Field(False, description="Let this task's tests use the network.")
    prove_tests: Optional[bool] = Field(None, description="false: do not check that the model's own tests fail on the starting files.")


    @field_validator("files", "hidden_tests")
    @classmethod
    def _relative_paths(cls, files: dict[str, str]) -> dict[str, str]:
        for rel in files:
            path = PurePosixPath(rel)
            if not rel or path.is_absolute() or ".." in path.parts or "\\" in rel:
                raise ValueError(f"'{rel}' must be a relative path inside the workspace")
        return files


class Task(BaseModel):
    id: str
    source: str
    spec: TaskSpec

    def settings(self) -> dict:
        """The task's own limits, as settings (they beat agent.yaml; a flag beats them)."""
        spec, sandbox = self.spec, {}
        for key in ("timeout", "judge_timeout", "judge_cpu_seconds"):
            if getattr(spec, key):
                sandbox[key] = getattr(spec, key)
        if spec.network:  # a task may allow the network, never forbid what the user allowed
            sandbox["network"] = True
        return {**({"max_steps": spec.max_steps} if spec.max_steps else {}), **({"sandbox": sandbox} if sandbox else {}),
                **({"prove_tests": spec.prove_tests} if spec.prove_tests is not None else {})}

    def named_modules(self) -> frozenset[str]:
        """The modules the task asks for or gives: a file or folder its prompt names (`stats.py`,
        `mylib/`, `import mylib`, `from mylib import`) and the top-level name of each starting
        file. The judge answers a test's import from the workspace only for these (an assertion
        library the sandbox lacks, written by the model, would decide the tests); a word of the
        prose is no name (`without numpy`)."""
        prompt = self.spec.prompt
        named = re.findall(r"([A-Za-z_][A-Za-z0-9_]*)(?:\.py\b|/)", prompt)
        named += re.findall(r"(?:^|`)\s*import\s+([A-Za-z_][A-Za-z0-9_]*)|\bfrom\s+([A-Za-z_][A-Za-z0-9_]*)[\w.]*\s+import\b",
                            prompt, re.MULTILINE)
        names = {n for found in named for n in ((found,) if isinstance(found, str) else found) if n}
        return frozenset(names) | {PurePosixPath(rel).parts[0].removesuffix(".py") for rel in self.spec.files}

    def data_files(self) -> dict[str, str]:
        """The starting files that are neither code nor pytest's set-up (`cases.json`), as the task
        gives them: the task's tests read them beside themselves when judged, as in a plain run."""
        return {rel: content for rel, content in self.spec.files.items()
                if not rel.endswith(".py") and PurePosixPath(rel).name not in PYTEST_SETUP_FILES}

    def protected_files(self) -> frozenset[str]:
        """Starting files that match a protected glob (on the whole path, or on the name alone)."""
        def hit(path: str) -> bool:
            return any(fnmatch.fnmatch(path, g) or ("/" not in g and fnmatch.fnmatch(Path(path).name, g))
                       for g in self.spec.protected)
        return frozenset(p for p in self.spec.files if hit(p))


def _read_text(path: Path, exact: bool = False) -> str:
    """A task file's text. exact (the files of repo/ and hidden_tests/): every character as it is,
    where Python's universal newlines would turn a lone "\\r" and "\\r\\n" into "\\n"."""
    try:
        return path.read_bytes().decode("utf-8") if exact else path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise ConfigError(f"{path}: not UTF-8 text") from None
    except OSError as e:
        raise ConfigError(f"{path}: cannot read: {e.strerror}") from None


def _read_tree(folder: Path) -> dict[str, str]:
    if not folder.is_dir():
        return {}
    return {p.relative_to(folder).as_posix(): _read_text(p, exact=True) for p in sorted(folder.rglob("*"))
            if p.is_file() and not {"__pycache__", ".git", ".pytest_cache"} & set(p.parts)}


def _spec(data: object, source: Path) -> TaskSpec:
    if not isinstance(data, dict):
        raise ConfigError(f"{source}: expected a mapping with at least 'prompt', got {type(data).__name__}")
    try:
        return TaskSpec.model_validate(data)
    except ValidationError as e:
        raise ConfigError(describe_validation_error(str(source), e)) from None


def _yaml(path: Path) -> object:
    try:
        return yaml.safe_load(_read_text(path))
    except yaml.YAMLError as e:
        raise ConfigError(f"{path}: not valid YAML: {e}".replace("\n", " ")) from None


def load_task(path: Path) -> Task:
    """Read a task in any of its forms; ConfigError names the file and what is wrong."""
    if not path.exists():
        raise ConfigError(f"{path}: task file not found")
    if path.is_dir():
        yaml_file, txt_file = path / "task.yaml", path / "task.txt"
        if yaml_file.exists():
            data = _yaml(yaml_file)
            source = yaml_file
        elif txt_file.exists():
            data, source = {"prompt": _read_text(txt_file).strip()}, txt_file
        else:
            raise ConfigError(f"{path}: a task folder needs task.txt or task.yaml")
        if isinstance(data, dict):
            for key, folder in (("files", "repo"), ("hidden_tests", "hidden_tests")):
                extra = data.get(key) or {}
                data[key] = {**_read_tree(path / folder), **extra} if isinstance(extra, dict) else extra
        return Task(id=path.name, source=str(path), spec=_spec(data, source))
    if path.suffix in (".yaml", ".yml"):
        return Task(id=path.stem, source=str(path), spec=_spec(_yaml(path), path))
    prompt = _read_text(path).strip()
    if not prompt:
        raise ConfigError(f"{path}: the task file is empty; write what the agent should do")
    hidden = _read_tree(path.with_name(path.stem + ".hidden_tests"))
    return Task(id=path.stem, source=str(path), spec=_spec({"prompt": prompt, "hidden_tests": hidden}, path))

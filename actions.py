"""The action protocol: pydantic models, and from the same models the JSON schema, the GBNF
grammar and the tool list, so the constraint sent to the server and the validation done here
cannot drift apart. Also: parsing a reply, and executing file actions inside the workspace.
"""
from __future__ import annotations

import json
import re
import typing
from pathlib import Path
from typing import Literal, Union

from pydantic import BaseModel, ConfigDict, Field, ValidationError


class _Action(BaseModel):
    model_config = ConfigDict(extra="forbid")
    thought: str = Field(description="One or two short sentences: why this action.")

    @classmethod
    def tag(cls) -> str:
        return typing.get_args(cls.model_fields["action"].annotation)[0]


class WriteFile(_Action):
    """Create or overwrite a file with its full new content."""
    action: Literal["write_file"]
    path: str = Field(description="File path relative to the workspace.")
    content: str = Field(description="The whole new content of the file.")


class EditFile(_Action):
    """Replace one exact, unique piece of text in a file."""
    action: Literal["edit_file"]
    path: str = Field(description="File path relative to the workspace.")
    old: str = Field(description="Text that occurs exactly once in the file.")
    new: str = Field(description="Text to put in its place.")


class ReadFile(_Action):
    """Show a file's content."""
    action: Literal["read_file"]
    path: str = Field(description="File path relative to the workspace.")


class ListFiles(_Action):
    """List the files in the workspace."""
    action: Literal["list_files"]


class RunTests(_Action):
    """Run pytest in the workspace."""
    action: Literal["run_tests"]


class Finish(_Action):
    """End the run; accepted only when the latest test run passed and nothing changed since."""
    action: Literal["finish"]
    summary: str = Field(description="What was done.")


Action = Union[WriteFile, EditFile, ReadFile, ListFiles, RunTests, Finish]
BASE_ACTIONS: tuple[type[_Action], ...] = (WriteFile, ReadFile, RunTests, Finish)
ALL_ACTIONS: tuple[type[_Action], ...] = (WriteFile, EditFile, ReadFile, ListFiles, RunTests, Finish)


class InvalidReply(Exception):
    """The reply is not one valid action; the message is written for the model to read."""


# ---------------------------------------------------------------------------------------------
# Constraints sent to servers, all derived from the models above.

def json_schema(actions: tuple[type[_Action], ...]) -> dict:
    """One object schema per action under anyOf (the form llama.cpp, Ollama and vLLM convert)."""
    variants = []
    for model in actions:
        schema = model.model_json_schema()
        schema.pop("title", None)
        schema.pop("description", None)
        for prop in schema["properties"].values():
            prop.pop("title", None)
        variants.append(schema)
    return {"anyOf": variants}


def tool_definitions(actions: tuple[type[_Action], ...]) -> list[dict]:
    """OpenAI-style tools: one function per action, the thought as its first argument."""
    tools = []
    for model, schema in zip(actions, json_schema(actions)["anyOf"]):
        props = {k: v for k, v in schema["properties"].items() if k != "action"}
        tools.append({"type": "function", "function": {
            "name": model.tag(), "description": model.__doc__,
            "parameters": {"type": "object", "properties": props,
                           "required": [k for k in schema["required"] if k != "action"]}}})
    return tools


GBNF_STRING_RULES = r'''
string ::= "\"" char* "\""
char ::= [^"\\\x00-\x1F\x7F] | "\\" (["\\/bfnrt] | "u" hex hex hex hex)
hex ::= [0-9a-fA-F]
ws ::= " "?
'''


def gbnf(actions: tuple[type[_Action], ...]) -> str:
    """A llama.cpp grammar: exactly one JSON object, fields in model order, at most one space
    between tokens (unbounded whitespace lets small models pad until max_tokens)."""
    rules = []
    for model in actions:
        parts = ['"{" ws']
        for i, name in enumerate(model.model_fields):
            if i:
                parts.append('"," ws')
            value = f'"\\"{model.tag()}\\""' if name == "action" else "string"
            parts.append(f'"\\"{name}\\"" ws ":" ws {value} ws')
        parts.append('"}"')
        rules.append(f"{model.tag().replace('_', '')} ::= {' '.join(parts)}")
    root = "root ::= " + " | ".join(m.tag().replace("_", "") for m in actions)
    return "\n".join([root, *rules]) + GBNF_STRING_RULES


# ---------------------------------------------------------------------------------------------
# Reading a reply.

_THINK = re.compile(r"^\s*<think>.*?</think>\s*", re.DOTALL)
_FENCE = re.compile(r"^\s*```(?:json)?\s*\n?(.*?)\n?```\s*$", re.DOTALL)


def strip_thinking(text: str) -> str:
    return _THINK.sub("", text, count=1)


def parse(text: str, actions: tuple[type[_Action], ...] = ALL_ACTIONS) -> _Action:
    """Return the one action in `text`, or raise InvalidReply saying exactly what is wrong."""
    body = strip_thinking(text).strip()
    fenced = _FENCE.match(body)
    if fenced:
        body = fenced.group(1).strip()
    if not body:
        raise InvalidReply("Your reply was empty. Reply with one JSON object: an action.")
    try:
        data = json.loads(body)
    except json.JSONDecodeError as e:
        hint = " (text after the object: send exactly one object)" if e.msg == "Extra data" else ""
        raise InvalidReply(f"Your reply is not valid JSON: {e.msg} at line {e.lineno} column {e.colno}{hint}. "
                           "Reply with exactly one JSON object and nothing else.") from None
    if not isinstance(data, dict):
        raise InvalidReply(f"Your reply is a JSON {type(data).__name__}; it must be one JSON object.")
    by_tag = {model.tag(): model for model in actions}
    tag = data.get("action")
    if tag not in by_tag:
        raise InvalidReply(f"Unknown action {tag!r}. Use one of: {', '.join(by_tag)}.")
    try:
        return by_tag[tag].model_validate(data)
    except ValidationError as e:
        problems = "; ".join(f"field '{'.'.join(map(str, err['loc'])) or tag}': {err['msg']}" for err in e.errors())
        raise InvalidReply(f"Invalid {tag} action: {problems}.") from None


# ---------------------------------------------------------------------------------------------
# File actions, always inside the workspace.

class Refused(Exception):
    """A file action the workspace will not do; the message becomes the observation."""


READ_LIMIT = 20_000
# Files that change how pytest collects or runs tests: writing them could hide protected tests.
COLLECTION_FILES = {"conftest.py", "pytest.ini", "tox.ini", "setup.cfg", "pyproject.toml",
                    "sitecustomize.py", "usercustomize.py"}


class Workspace:
    """The agent's folder. Every path the model names is resolved here or refused."""

    def __init__(self, root: Path, protected: frozenset[str] = frozenset()):
        self.root = root.resolve()
        self.protected = protected  # relative paths of test files present at the start

    def resolve(self, rel: str) -> Path:
        if not rel or "\x00" in rel:
            raise Refused("Refused: the path is empty or contains a NUL byte.")
        if Path(rel).is_absolute() or rel.startswith("~"):
            raise Refused(f"Refused: '{rel}' is absolute. Use a path relative to the workspace.")
        full = (self.root / rel).resolve()
        if full != self.root and self.root not in full.parents:
            raise Refused(f"Refused: '{rel}' is outside the workspace.")
        return full

    def relative(self, full: Path) -> str:
        return full.relative_to(self.root).as_posix()

    def check_writable(self, rel: str) -> Path:
        full = self.resolve(rel)
        name = self.relative(full)
        if name in self.protected:
            raise Refused(f"Refused: '{name}' is a protected test file; the tests are correct, fix the code.")
        if self.protected:
            if full.name in COLLECTION_FILES:
                raise Refused(f"Refused: '{name}' would change how the protected tests are collected.")
            if not full.exists() and full.name in {Path(p).name for p in self.protected}:
                raise Refused(f"Refused: '{name}' would shadow the protected test file of the same name.")
        if full.is_dir():
            raise Refused(f"Refused: '{name}' is a folder.")
        return full

    def files(self) -> list[str]:
        return sorted(self.relative(p) for p in self.root.rglob("*")
                      if p.is_file() and not any(part.startswith(".") or part == "__pycache__"
                                                 for part in p.relative_to(self.root).parts))

    def snapshot(self) -> dict[str, bytes]:
        """Every file's content, to tell whether anything changed between two moments."""
        return {name: (self.root / name).read_bytes() for name in self.files()}

    def execute(self, action: _Action) -> str:
        """Run a file action and return the observation; refusals are observations too."""
        try:
            return getattr(self, "_" + action.tag())(action)
        except Refused as e:
            return str(e)
        except OSError as e:
            return f"Error: {e.strerror or e} ({getattr(action, 'path', '')})"

    def _write_file(self, a: WriteFile) -> str:
        full = self.check_writable(a.path)
        if full.exists() and full.read_text(encoding="utf-8", errors="replace") == a.content:
            return f"{a.path} already has exactly this content; nothing changed."
        full.parent.mkdir(parents=True, exist_ok=True)
        full.write_text(a.content, encoding="utf-8")
        return f"Wrote {len(a.content)} characters ({a.content.count(chr(10)) + 1} lines) to {self.relative(full)}."

    def _edit_file(self, a: EditFile) -> str:
        full = self.check_writable(a.path)
        if not full.is_file():
            return f"Error: {a.path} does not exist. Use write_file to create it."
        text = full.read_text(encoding="utf-8", errors="replace")
        count = text.count(a.old) if a.old else 0
        if count != 1:
            why = "'old' is empty" if not a.old else f"'old' occurs {count} times in {a.path}; it must occur exactly once"
            return f"Error: {why}. Copy a unique piece of the current text (read_file shows it) into 'old'."
        if a.old == a.new:
            return f"'old' and 'new' are the same; {a.path} is unchanged."
        full.write_text(text.replace(a.old, a.new, 1), encoding="utf-8")
        return f"Edited {self.relative(full)}: replaced {a.old.count(chr(10)) + 1} line(s)."

    def _read_file(self, a: ReadFile) -> str:
        full = self.resolve(a.path)
        if not full.is_file():
            listing = ", ".join(self.files()) or "(empty)"
            return f"Error: {a.path} does not exist. Files: {listing}"
        text = full.read_text(encoding="utf-8", errors="replace")
        if len(text) > READ_LIMIT:
            return text[:READ_LIMIT] + f"\n[... cut: the file has {len(text)} characters]"
        return text if text else f"({a.path} is empty)"

    def _list_files(self, a: ListFiles) -> str:
        return "\n".join(self.files()) or "(the workspace is empty)"

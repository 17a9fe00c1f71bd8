"""The action protocol: pydantic models, and from the same models the JSON schema, the GBNF
grammar and the tool list, so the constraint sent to the server and the validation done here
cannot drift apart. Also: parsing a reply, and executing file actions inside the workspace.
"""
from __future__ import annotations

import hashlib
import json
import os
import re
import typing
from pathlib import Path
from typing import ClassVar, Literal, Optional

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from workspace_files import PYTEST_SETUP_FILES, SKIPPED_FOLDERS, put_file, read_regular_file


class Action(BaseModel):
    """One action, defined once: its fields (validation, schema, grammar, tools), its example in
    the system prompt, its line on the console, and, for file actions, how it runs."""
    model_config = ConfigDict(extra="forbid")
    thought: str = Field(description="One or two short sentences: why this action.")
    example: ClassVar[dict] = {}  # placeholder values of the fields, for the system prompt
    loop_action: ClassVar[bool] = False  # run by the loop itself, not in the workspace

    @classmethod
    def tag(cls) -> str:
        return typing.get_args(cls.model_fields["action"].annotation)[0]

    @classmethod
    def example_json(cls) -> str:
        return json.dumps({"thought": "...", "action": cls.tag(), **cls.example})

    def describe(self) -> str:
        path = getattr(self, "path", None)
        return f"{self.tag()} {path}" if path else self.tag()

    def run(self, workspace: "Workspace") -> str:
        raise NotImplementedError(f"{self.tag()} is run by the loop")


class WriteFile(Action):
    """Create or overwrite a file with its full new content."""
    action: Literal["write_file"]
    path: str = Field(description="File path relative to the workspace.")
    content: str = Field(description="The whole new content of the file.")
    example: ClassVar[dict] = {"path": "relative/path.py", "content": "the whole file"}

    def describe(self) -> str:
        return f"write_file {self.path} ({len(self.content)} chars)"

    def run(self, workspace: "Workspace") -> str:
        full = workspace.check_writable(self.path)
        if full.exists() and full.read_text(encoding="utf-8", errors="replace") == self.content:
            return f"{self.path} already has exactly this content; nothing changed."
        full.parent.mkdir(parents=True, exist_ok=True)
        full.write_text(self.content, encoding="utf-8")
        return f"Wrote {len(self.content)} characters ({self.content.count(chr(10)) + 1} lines) to {workspace.relative(full)}."


class EditFile(Action):
    """Replace one exact, unique piece of text in a file."""
    action: Literal["edit_file"]
    path: str = Field(description="File path relative to the workspace.")
    old: str = Field(description="Text that occurs exactly once in the file.")
    new: str = Field(description="Text to put in its place.")
    example: ClassVar[dict] = {"path": "relative/path.py", "old": "exact text that occurs once", "new": "its replacement"}

    def run(self, workspace: "Workspace") -> str:
        full = workspace.check_writable(self.path)
        if not full.is_file():
            return f"Error: {self.path} does not exist. Use write_file to create it."
        try:
            text = full.read_bytes().decode("utf-8")
        except UnicodeDecodeError:
            return f"Error: {self.path} is not UTF-8 text; edit_file would damage it. Use write_file."
        count = text.count(self.old) if self.old else 0
        if count != 1:
            why = "'old' is empty" if not self.old else f"'old' occurs {count} times in {self.path}; it must occur exactly once"
            return f"Error: {why}. Copy a unique piece of the current text (read_file shows it) into 'old'."
        if self.old == self.new:
            return f"'old' and 'new' are the same; {self.path} is unchanged."
        full.write_text(text.replace(self.old, self.new, 1), encoding="utf-8")
        return f"Edited {workspace.relative(full)}: replaced {self.old.count(chr(10)) + 1} line(s)."


class ReadFile(Action):
    """Show a file's content."""
    action: Literal["read_file"]
    path: str = Field(description="File path relative to the workspace.")
    example: ClassVar[dict] = {"path": "relative/path.py"}

    def run(self, workspace: "Workspace") -> str:
        full = workspace.resolve(self.path)
        if not full.is_file():
            listing = ", ".join(workspace.files()) or "(empty)"
            return f"Error: {self.path} does not exist. Files: {listing}"
        text = full.read_text(encoding="utf-8", errors="replace")
        if len(text) > READ_LIMIT:
            return text[:READ_LIMIT] + f"\n[... cut: the file has {len(text)} characters]"
        return text if text else f"({self.path} is empty)"


class ListFiles(Action):
    """List the files in the workspace."""
    action: Literal["list_files"]

    def run(self, workspace: "Workspace") -> str:
        return "\n".join(workspace.files()) or "(the workspace is empty)"


class RunTests(Action):
    """Run pytest in the workspace."""
    action: Literal["run_tests"]
    loop_action: ClassVar[bool] = True


class Finish(Action):
    """End the run; accepted only when the tests pass on the final files."""
    action: Literal["finish"]
    summary: str = Field(description="What was done.")
    example: ClassVar[dict] = {"summary": "what you did"}
    loop_action: ClassVar[bool] = True

    def describe(self) -> str:
        summary = " ".join(self.summary.split())
        return f"finish: {summary if len(summary) <= 100 else summary[:97] + '...'}"


BASE_ACTIONS: tuple[type[Action], ...] = (WriteFile, ReadFile, RunTests, Finish)
ALL_ACTIONS: tuple[type[Action], ...] = (WriteFile, EditFile, ReadFile, ListFiles, RunTests, Finish)


class InvalidReply(Exception):
    """The reply is not one valid action; the message is written for the model to read."""


# ---------------------------------------------------------------------------------------------
# Constraints sent to servers, all derived from the models above.

def json_schema(actions: tuple[type[Action], ...]) -> dict:
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


def tool_definitions(actions: tuple[type[Action], ...]) -> list[dict]:
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


def gbnf(actions: tuple[type[Action], ...]) -> str:
    """A llama.cpp grammar: exactly one JSON object, fields in model order, at most one space
    between tokens (unbounded whitespace lets small models pad until max_tokens). A Literal field
    (the action's tag, a choice) takes only its values; every other field is a string."""
    rules = []
    for model in actions:
        parts = ['"{" ws']
        for i, name in enumerate(model.model_fields):
            if i:
                parts.append('"," ws')
            choices = typing.get_args(model.model_fields[name].annotation)  # a Literal: one of its values
            value = " | ".join(f'"\\"{c}\\""' for c in choices) if choices else "string"
            value = f"({value})" if len(choices) > 1 else value
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


def parse(text: str, actions: tuple[type[Action], ...] = ALL_ACTIONS) -> Action:
    """Return the one action in `text`, or raise InvalidReply saying exactly what is wrong."""
    body = strip_thinking(text).strip()
    fenced = _FENCE.match(body)
    if fenced:
        body = fenced.group(1).strip()
    if not body:
        raise InvalidReply("Your reply was empty. Reply with one JSON object: an action.")
    try:
        data = json.loads(body)
        json.dumps(data, ensure_ascii=False).encode("utf-8")
    except json.JSONDecodeError as e:
        hint = " (text after the object: send exactly one object)" if e.msg == "Extra data" else ""
        raise InvalidReply(f"Your reply is not valid JSON: {e.msg} at line {e.lineno} column {e.colno}{hint}. "
                           "Reply with exactly one JSON object and nothing else.") from None
    except RecursionError:
        raise InvalidReply("Your reply nests too deeply. Reply with one flat JSON object.") from None
    except UnicodeEncodeError:
        raise InvalidReply("Your reply contains an invalid \\u escape (a lone surrogate). Write the "
                           "character itself or a valid escape.") from None
    if not isinstance(data, dict):
        raise InvalidReply(f"Your reply is a JSON {type(data).__name__}; it must be one JSON object.")
    by_tag = {model.tag(): model for model in actions}
    tag = data.get("action")
    if not isinstance(tag, str) or tag not in by_tag:
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
        try:
            full = (self.root / rel).resolve()
        except (RuntimeError, OSError):  # a symlink loop
            raise Refused(f"Refused: '{rel}' cannot be resolved (a symlink loop?).") from None
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
            if full.name in PYTEST_SETUP_FILES:
                raise Refused(f"Refused: '{name}' would change how the protected tests are collected.")
            if not full.exists() and full.name in {Path(p).name for p in self.protected}:
                raise Refused(f"Refused: '{name}' would shadow the protected test file of the same name.")
        if full.is_dir():
            raise Refused(f"Refused: '{name}' is a folder.")
        return full

    def files(self, hidden: bool = False) -> list[str]:
        """Files and symlinks below the root, never following a symlink (a link may point
        anywhere); dot-files only when asked; caches never."""
        found = []
        for folder, dirs, names in os.walk(self.root):
            dirs[:] = [d for d in dirs if d not in SKIPPED_FOLDERS and (hidden or not d.startswith("."))]
            names += [d for d in dirs if os.path.islink(os.path.join(folder, d))]  # os.walk does not enter them
            for name in names:
                path = Path(folder) / name
                if (hidden or not name.startswith(".")) and (path.is_symlink() or path.is_file()):
                    found.append(self.relative(path))
        return sorted(found)

    def entries(self) -> list[tuple[str, str, bytes]]:
        """(name, kind, bytes) of every file, dot-files included: kind "file" (its content),
        "link" (where it points) or "unreadable" (why)."""
        found = []
        for name in self.files(hidden=True):
            path = self.root / name
            try:
                found.append((name, "link", os.readlink(path).encode()) if path.is_symlink()
                             else (name, "file", path.read_bytes()))
            except OSError as e:
                found.append((name, "unreadable", str(e.strerror).encode()))
        return found

    def snapshot(self) -> dict[str, bytes]:
        """What every file holds (a symlink: where it points), as a person reads it in a diff."""
        prefix = {"file": b"", "link": b"link:", "unreadable": b"unreadable: "}
        return {name: prefix[kind] + data for name, kind, data in self.entries()}

    def put(self, rel: str, content: str) -> None:
        put_file(self.root, rel, content)

    def read_bytes(self, rel: str) -> Optional[bytes]:
        """A regular file's bytes, or None (no such file, a refused path, a symlink, a folder)."""
        try:
            return read_regular_file(self.resolve(rel), 1 << 30)
        except Refused:
            return None

    def digest(self) -> str:
        """One digest of the whole workspace: equal digests, nothing changed in between."""
        digest = hashlib.sha256()
        for name, kind, data in self.entries():  # each part length-prefixed: no two workspaces read alike
            for part in (os.fsencode(name), kind.encode(), data):
                digest.update(len(part).to_bytes(8, "big") + part)
        return digest.hexdigest()

    def execute(self, action: Action) -> str:
        """Run a file action and return the observation; refusals are observations too."""
        try:
            return action.run(self)
        except Refused as e:
            return str(e)
        except OSError as e:
            return f"Error: {e.strerror or e} ({getattr(action, 'path', '')})"

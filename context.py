"""The history's token budget. The history stays append-only, so the server re-reads only what a
step appended (llama.cpp, KoboldCPP and llama-cpp-python reuse the longest common prefix of the
previous prompt). When the next request would pass `compact_at` of the room for the prompt, it is
compacted once: every step so far becomes one line, and the task message gains the latest content
of every file the model has seen and the latest test output; the model goes on from there.

A compaction is a transcript event (`context_compacted`) that carries everything it changed, and
`apply_compaction` is the one rule that changes the history, live and under --resume alike."""
from __future__ import annotations

from typing import Callable, Optional

import actions as act
import prompts

MESSAGE_OVERHEAD = 8  # tokens of chat template around each message
REPLY_MARGIN = 64  # tokens kept free besides max_tokens (template of the reply, rounding)
MAX_LINES = 20  # one-line summaries kept across compactions; older ones are dropped


class Budget:
    """How many tokens a history takes and where the limits are, for one backend and config."""

    def __init__(self, count_tokens: Callable[[str], Optional[int]], context_size: int, max_tokens: int,
                 compact_at: float):
        self.count_tokens = count_tokens
        self.room = context_size - max_tokens - REPLY_MARGIN  # the most the prompt may take
        self.threshold = int(compact_at * self.room)
        self.target = self.threshold - self.room // 4  # what a compaction aims at: a quarter of the room to grow again

    def tokens(self, messages: list[dict]) -> int:
        """Exact when the server can count and it matters; a cheap estimate far below the threshold
        (2 characters a token: SmolLM2's tokenizer gives 2.2 for pytest output, 2.7 for code in
        JSON, 3.7 for English prose, so 3 could count a history near the limit as far below it)."""
        text = "\n".join(m["content"] for m in messages)
        estimate = len(text) // 2 + MESSAGE_OVERHEAD * len(messages)
        if estimate < 0.8 * self.threshold:
            return estimate
        exact = self.count_tokens(text)
        return exact + MESSAGE_OVERHEAD * len(messages) if exact is not None else estimate


def _observation_text(message: dict) -> str:
    return message["content"].removeprefix(prompts.observation(""))


def _first_line(text: str, limit: int = 100) -> str:
    line = next((part.strip() for part in text.splitlines() if part.strip()), "")
    return line if len(line) <= limit else line[:limit - 3] + "..."


def _action(message: dict) -> Optional[act._Action]:
    try:
        return act.parse(message["content"], act.ALL_ACTIONS)
    except act.InvalidReply:
        return None


def _steps(messages: list[dict]) -> list[tuple[dict, Optional[dict]]]:
    """(reply, observation) pairs; a reply without an observation (an interrupted step) has None."""
    return [(m, messages[i + 1] if i + 1 < len(messages) and messages[i + 1]["role"] == "user" else None)
            for i, m in enumerate(messages) if m["role"] == "assistant"]


def _shown_files(messages: list[dict]) -> list[str]:
    """Files whose content the model saw in these messages (read, written or edited), in order."""
    paths: list[str] = []
    for reply, observation in _steps(messages):
        action = _action(reply)
        if isinstance(action, (act.WriteFile, act.EditFile, act.ReadFile)):
            if isinstance(action, act.ReadFile) and (observation is None or _observation_text(observation).startswith("Error:")):
                continue
            if action.path in paths:
                paths.remove(action.path)
            paths.append(action.path)
    return paths


def _summary_line(reply: dict, observation: Optional[dict]) -> str:
    action = _action(reply)
    if action is None:
        return f"- an invalid reply -> {_first_line(_observation_text(observation) if observation else '')}"
    said = _first_line(_observation_text(observation)) if observation else ""
    if isinstance(action, (act.ReadFile, act.WriteFile, act.EditFile)) and not said.startswith("Error"):
        return f"- {action.describe()}"  # the file's latest content is what counts
    return f"- {action.describe()} -> {said}" if said else f"- {action.describe()}"


def compaction(messages: list[dict], earlier: dict, read_file: Callable[[str], Optional[str]],
               test_output: Optional[str], with_files: bool = True) -> Optional[dict]:
    """The fields of a context_compacted event for this history, or None when there is nothing to
    compact. `earlier` is the previous compaction's fields ({} if none); `read_file` gives a
    file's current text (None if it is gone)."""
    steps = _steps(messages[2:])
    if not steps:
        return None
    lines = [*earlier.get("lines", []), *(_summary_line(reply, observation) for reply, observation in steps)]
    files: dict[str, str] = {}
    for path in [*earlier.get("files", {}), *_shown_files(messages[2:])] if with_files else []:
        text = read_file(path)
        if text is not None:
            files.pop(path, None)  # the most recently seen last
            files[path] = text if len(text) <= act.READ_LIMIT else text[:act.READ_LIMIT] + "\n[... cut]"
    return {"lines": lines[-MAX_LINES:], "files": files, "test_output": test_output}


def compact(messages: list[dict], task: str, earlier: dict, read_file: Callable[[str], Optional[str]],
            test_output: Optional[str], budget: Budget, used: int) -> Optional[dict]:
    """The context_compacted event's fields, with the tokens before and after; without the file
    contents if with them the history would soon pass the threshold again (the model can read
    them again). None when a compaction would not make the history smaller."""
    for with_files in (True, False):
        fields = compaction(messages, earlier, read_file, test_output, with_files)
        if fields is None:
            return None
        trial = [dict(m) for m in messages]
        apply_compaction(trial, task, fields)
        after = budget.tokens(trial)
        if after <= budget.target:
            break
    return {"tokens_before": used, "tokens_after": after, **fields} if after < used else None


def apply_compaction(messages: list[dict], task: str, event: dict) -> None:
    """The history after a compaction: the system prompt, and the task with the summary."""
    content = prompts.compacted_task(task, event["lines"], event["files"], event["test_output"])
    messages[1:] = [{"role": "user", "content": content}]


def apply_cut(messages: list[dict], keep: int) -> None:
    """The last resort when even a compacted history does not fit: cut the latest message."""
    messages[-1] = {**messages[-1], "content": messages[-1]["content"][:keep] + prompts.CUT_TO_FIT}

"""The history's token budget. The history stays append-only, so the server re-reads only what a
step appended (llama.cpp, KoboldCPP and llama-cpp-python reuse the longest common prefix of the
previous prompt). When the next request would pass `compact_at` of the room for the prompt, it is
compacted once: every step so far becomes one line, and the task message gains the latest content
of every file the model has seen and the latest test output; the model goes on from there.

A compaction is a transcript event (`context_compacted`) that carries everything it changed, and
`apply_compaction` is the one rule that changes the history, live and under --resume alike.
`RunState` rebuilds the history and the loop's counts from transcript events (runlog reads them)."""
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


def _action(message: dict) -> Optional[act.Action]:
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


class RunState:
    """What the loop knows and counts, derived from transcript events alone: the live loop and
    --resume apply the same events through `apply`, so both count by one rule."""

    def __init__(self, messages: list[dict]):
        self.messages = messages  # the history sent to the model
        self.task = messages[1]["content"] if len(messages) > 1 else ""  # the task message as first sent
        self.compacted: dict = {}  # the latest context_compacted event (what the summary holds)
        self.step = 0
        self.invalid_in_row = self.invalid_total = self.nudges = 0
        self.last_run: Optional[dict] = None  # the latest test_run event
        self.run_before_resume = False  # that run is from before a --resume: finish runs the tests again
        self.finish_accepted = False
        self.own_tests: Optional[dict] = None  # the check of the model's own tests on the starting files
        self.tokens = {"prompt": 0, "completion": 0}
        self.seconds = {"llm": 0.0, "tests": 0.0}

    def apply(self, event: dict) -> None:
        kind = event["type"]
        if kind == "llm_reply":
            self.step = event["step"]
            self.tokens["prompt"] += event.get("prompt_tokens") or 0
            self.tokens["completion"] += event.get("completion_tokens") or 0
            self.seconds["llm"] += event.get("seconds") or 0
            text = act.strip_thinking(event["text"]).strip()  # the model's own text: the server cached it
            reply = event.get("kind") or reply_kind(text, event.get("error"), event.get("truncated", False))
            if reply == "action":
                self.messages.append({"role": "assistant", "content": text})
                self.invalid_in_row = 0
            else:
                self.messages.append({"role": "assistant", "content": text[:800] or "(empty reply)"})
                self.invalid_total += 1
                if reply == "stopped":
                    self.nudges += 1
                else:
                    self.invalid_in_row += 1
        elif kind == "observation":
            self.messages.append({"role": "user", "content": prompts.observation(event["text"])})
        elif kind == "test_run":
            self.last_run = event
            self.run_before_resume = False
        elif kind == "resume":
            self.run_before_resume = self.last_run is not None
            self.seconds["tests"] += event.get("seconds") or 0
        elif kind == "finish_accepted":
            self.finish_accepted = True
        elif kind == "start" and isinstance(event.get("task_message"), str):
            self.task = event["task_message"]  # as the run began, whatever the workspace holds now
            self.messages[1] = {"role": "user", "content": self.task}
        elif kind == "context_compacted":
            apply_compaction(self.messages, self.task, event)
            self.compacted = event
        elif kind == "context_cut":
            apply_cut(self.messages, event["keep"])
        elif kind == "own_tests":
            self.own_tests = {k: event[k] for k in ("files", "passed_at_end", "failed_on_start", "proved")}


def reply_kind(text: str, error: Optional[str], truncated: bool) -> str:
    """action: a valid action; stopped: no JSON at all (the model thinks it is done: a nudge);
    invalid: anything else, a reply cut at max_tokens included."""
    if error is None:
        return "action"
    if truncated or "{" in text:
        return "invalid"
    return "stopped"

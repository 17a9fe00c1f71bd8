"""The ReAct loop: a linear history, one JSON action per turn, observations back, a finish gate
that cannot be talked past, limits, stuck detection, and a run log written as it goes."""
from __future__ import annotations

import ast
import hashlib
import os
import shutil
import time
import traceback
from pathlib import Path
from typing import Callable, Optional

import actions as act
from config import Config
from llm_client import ActionFormat, Backend, BackendError, Reply
from runlog import RunLog, read_transcript
from sandbox import Sandbox, TestRun
from stuck import StuckDetector
from tasks import Task

ELIDED = "[elided to fit the context window]"
ACTION_EXAMPLES = {
    "write_file": '{"thought": "...", "action": "write_file", "path": "relative/path.py", "content": "the whole file"}',
    "edit_file": '{"thought": "...", "action": "edit_file", "path": "relative/path.py", "old": "exact text that occurs once", "new": "its replacement"}',
    "read_file": '{"thought": "...", "action": "read_file", "path": "relative/path.py"}',
    "list_files": '{"thought": "...", "action": "list_files"}',
    "run_tests": '{"thought": "...", "action": "run_tests"}',
    "finish": '{"thought": "...", "action": "finish", "summary": "what you did"}',
}


class RunEnded(Exception):
    """Ends the loop with a status (the mini-swe-agent way: control flow by a few exceptions)."""

    def __init__(self, status: str, reason: str):
        super().__init__(reason)
        self.status, self.reason = status, reason


def system_prompt(enabled: tuple[type, ...]) -> str:
    lines = "\n".join(ACTION_EXAMPLES[m.tag()] for m in enabled)
    return (
        "You are a coding agent. You solve a programming task in a workspace folder: write Python code and "
        "pytest tests, run the tests, read the failures, and fix the code until all tests pass.\n\n"
        "Reply with exactly one JSON object per turn and nothing else: first a short \"thought\", then the "
        "\"action\" and its fields. The actions:\n" + lines + "\n\n"
        "Rules:\n"
        "- Paths are relative to the workspace (the current directory of the tests); you cannot leave it.\n"
        "- run_tests runs pytest on the workspace; test files are named test_*.py.\n"
        "- finish is accepted only when the latest test run passed and no file changed since.\n"
        "- Test files that existed at the start are protected and correct: fix the code, not those tests.\n"
        "- Keep each reply small: one action, short thoughts."
    )


def _count_tests(source: str) -> int:
    """Test functions pytest will collect at least once from a hidden test file."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return 0
    count = 0
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name.startswith("test"):
            count += 1
        elif isinstance(node, ast.ClassDef) and node.name.startswith("Test"):
            count += sum(isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name.startswith("test")
                         for n in node.body)
    return count


def _digest(path: Path) -> Optional[str]:
    """sha256 of a regular file's bytes; None for anything else (a symlink, a folder, unreadable)."""
    try:
        return None if path.is_symlink() or not path.is_file() else hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return None


def _short(text: str, limit: int = 160) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit - 3] + "..."


class Orchestrator:
    def __init__(self, task: Task, backend: Backend, sandbox: Sandbox, config: Config, run_dir: Path,
                 say: Callable[[str], None] = print, resume: bool = False):
        """A new run in the empty folder run_dir, or (resume) the continuation of the run there."""
        self.task, self.backend, self.sandbox, self.config = task, backend, sandbox, config
        self.run_dir, self.say, self.resume = run_dir, say, resume
        self.enabled = act.ALL_ACTIONS if config.edit_actions else act.BASE_ACTIONS
        self.format = ActionFormat(self.enabled)
        self.protocol = backend.pick_protocol()
        self.max_steps = task.spec.max_steps or config.max_steps
        self.earlier = read_transcript(run_dir) if resume else []
        self.log = RunLog(run_dir)
        self.workspace = act.Workspace(run_dir / "workspace" if resume else self._make_workspace(),
                                       task.protected_files())
        self.protected_hashes = {p: hashlib.sha256(task.spec.files[p].encode("utf-8")).hexdigest()
                                 for p in self.workspace.protected}
        self.messages: list[dict] = []
        self.stuck = StuckDetector(config.stuck_limit)
        self.step = 0
        self.invalid_in_row = self.invalid_total = self.nudges = 0
        self.last_run: Optional[TestRun] = None
        self.last_run_state: Optional[str] = None
        self.last_run_step = 0
        self.reads: dict[str, str] = {}  # path -> state of the workspace when it was last read
        self.finish_accepted = False
        self.tokens = {"prompt": 0, "completion": 0}
        self.seconds = {"llm": 0.0, "tests": 0.0}

    def _make_workspace(self) -> Path:
        workspace = act.Workspace(self.run_dir / "workspace")
        workspace.root.mkdir()
        for rel, content in self.task.spec.files.items():
            workspace.put(rel, content)
        return workspace.root

    # -- the loop ---------------------------------------------------------------------------

    def run(self) -> dict:
        start = time.monotonic()
        self.say(f"Run folder: {self.run_dir}")
        self.say(f"Model: {self.backend.describe()}; protocol {self.protocol}")
        self.say(f"Sandbox: {self.sandbox.describe()}")
        self.messages = [{"role": "system", "content": system_prompt(self.enabled)},
                         {"role": "user", "content": self._task_message()}]
        if self.resume:
            self._replay()
        self.log.event("resume" if self.resume else "start", self.step or None, task_id=self.run_dir.name,
                       task=self.task.id, source=str(Path(self.task.source).resolve()), prompt=self.task.spec.prompt,
                       backend=self.backend.describe(), protocol=self.protocol, sandbox=self.sandbox.describe(),
                       max_steps=self.max_steps, protected=sorted(self.workspace.protected),
                       actions=[m.tag() for m in self.enabled])
        try:
            while True:
                if self.step >= self.max_steps:
                    raise RunEnded("step_limit", f"the step limit ({self.max_steps}) was reached")
                self.step += 1
                self._turn()
        except RunEnded as e:
            status, reason = e.status, e.reason
        except BackendError as e:
            status, reason = "error", f"model server: {e}"
            self.log.event("error", self.step, message=str(e))
        except KeyboardInterrupt:
            status, reason = "interrupted", "interrupted by the user (Ctrl-C)"
        except Exception as e:  # a bug of ours: keep the log and the result honest, then stop
            status, reason = "error", f"internal error: {e!r}"
            self.log.event("error", self.step, message=traceback.format_exc())
        hidden = self._hidden_tests() if status != "interrupted" else None
        if status == "solved" and hidden is not None and not hidden["ok"]:
            status, reason = "unsolved", "finish was accepted but the hidden tests failed"
        result = {
            "task_id": self.run_dir.name, "task": self.task.id, "task_source": self.task.source,
            "run_dir": str(self.run_dir), "status": status, "reason": reason,
            "steps": self.step, "invalid_replies": self.invalid_total, "finish_accepted": self.finish_accepted,
            "last_test_run": self.last_run.to_dict() if self.last_run else None,
            "hidden_tests": hidden, "tokens": self.tokens,
            "seconds": {**{k: round(v, 2) for k, v in self.seconds.items()}, "total": round(time.monotonic() - start, 2)},
            "backend": self.backend.name, "model": self.backend.model, "protocol": self.protocol,
            "sandbox": self.sandbox.confinement.layer,
        }
        self.log.event("end", self.step, status=status, reason=reason)
        self.log.write_result(result)
        self.log.close()
        self.say(f"Result: {status} ({reason}) after {self.step} steps. Log: {self.run_dir / 'transcript.jsonl'}")
        return result

    def _replay(self) -> None:
        """Rebuild the history and counters of an interrupted run from its transcript. The latest
        test run is kept for the model to read, but finish will re-run the tests (files may
        have changed while the run was stopped)."""
        for event in self.earlier:
            kind = event["type"]
            if kind == "llm_reply":
                self.step = event["step"]
                text = act.strip_thinking(event["text"]).strip()
                if event["error"] is None:
                    self.messages.append({"role": "assistant", "content": text})
                    self.invalid_in_row = 0
                else:
                    self.messages.append({"role": "assistant", "content": text[:800] or "(empty reply)"})
                    self.invalid_total += 1
                    self.invalid_in_row += "{" in text  # a stop (no JSON at all) is a nudge, not counted here
                self.tokens["prompt"] += event.get("prompt_tokens") or 0
                self.tokens["completion"] += event.get("completion_tokens") or 0
                self.seconds["llm"] += event.get("seconds") or 0
            elif kind == "observation":
                self.messages.append({"role": "user", "content": f"Observation:\n{event['text']}"})
                self.nudges += event["text"].startswith("You stopped without an action")
            elif kind == "test_run":
                self.last_run = TestRun(**{k: event[k] for k in TestRun.__dataclass_fields__})
                self.last_run_step = event["step"]
                self.seconds["tests"] += event["seconds"]
        self.say(f"Resuming after step {self.step} ({len(self.messages) - 2} messages replayed).")

    def _task_message(self) -> str:
        files = self.workspace.files()
        listing = "\n".join(files) if files else "(empty)"
        protected = sorted(self.workspace.protected)
        note = f"\nProtected test files (do not change them): {', '.join(protected)}" if protected else ""
        return f"Task:\n{self.task.spec.prompt}\n\nFiles in the workspace:\n{listing}{note}"

    def _turn(self) -> None:
        self._fit_context()
        self.log.event("llm_request", self.step, messages=len(self.messages),
                       chars=sum(len(m["content"]) for m in self.messages))
        reply = self.backend.complete(self.messages, self.format, self.protocol)
        self.seconds["llm"] += reply.seconds
        self.tokens["prompt"] += reply.prompt_tokens or 0
        self.tokens["completion"] += reply.completion_tokens or 0
        try:
            action = act.parse(reply.text, self.enabled)
        except act.InvalidReply as e:
            self.log.event("llm_reply", self.step, text=reply.text, action=None, error=str(e), **self._usage(reply))
            self._invalid(reply, str(e))
            return
        self.log.event("llm_reply", self.step, text=reply.text, action=action.model_dump(), error=None, **self._usage(reply))
        self.invalid_in_row = 0
        # the model's own text, not a re-serialisation: the server's KV cache holds exactly it
        self.messages.append({"role": "assistant", "content": act.strip_thinking(reply.text).strip()})
        self.say(f"[{self.step}] thought: {_short(action.thought)}")
        self.say(f"    action: {self._describe(action)}")
        observation, noop, state = self._execute(action)
        warning = self.stuck.observe(action.model_dump_json(exclude={"thought"}), observation, state, noop)
        if warning:
            observation = f"{observation}\n\n{warning}"
        self._observe(observation)
        if self.stuck.stuck:
            raise RunEnded("stuck", f"the model repeated itself {self.stuck.repeats} times in a row")

    @staticmethod
    def _usage(reply: Reply) -> dict:
        record = reply.record()
        record.pop("text")
        return record

    @staticmethod
    def _describe(action: act._Action) -> str:
        tag = action.tag()
        if tag == "write_file":
            return f"write_file {action.path} ({len(action.content)} chars)"
        if tag in ("edit_file", "read_file"):
            return f"{tag} {action.path}"
        if tag == "finish":
            return f"finish: {_short(action.summary, 100)}"
        return tag

    def _observe(self, text: str) -> None:
        self.messages.append({"role": "user", "content": f"Observation:\n{text}"})
        self.log.event("observation", self.step, text=text)
        self.say(f"    observation: {_short(text)}")

    def _invalid(self, reply: Reply, error: str) -> None:
        """An invalid reply becomes an observation; a reply with no JSON at all means the model
        stopped, and then the agent runs the tests for it (a few times at most)."""
        stripped = act.strip_thinking(reply.text).strip()
        self.messages.append({"role": "assistant", "content": stripped[:800] or "(empty reply)"})
        self.say(f"[{self.step}] invalid reply: {_short(error)}")
        if reply.truncated:
            error = (f"Your reply was cut off at the {self.config.max_tokens}-token limit before the JSON was "
                     "complete. Write smaller steps: a shorter file, or edit_file for a small change.")
        elif "{" not in stripped:  # empty or prose: the model thinks it is done
            self._nudge(error)
            return
        self.invalid_in_row += 1
        self.invalid_total += 1
        self._observe(error)
        if self.invalid_in_row >= self.config.max_invalid_replies:
            raise RunEnded("error", f"{self.invalid_in_row} invalid replies in a row")

    def _nudge(self, error: str) -> None:
        self.nudges += 1
        self.invalid_total += 1
        if self.nudges > self.config.max_nudges:
            raise RunEnded("unsolved", f"the model stopped without finish {self.nudges} times")
        run = self._run_tests()
        verdict = ("They pass: if the task is done, reply with the finish action." if run.ok
                   else "Keep working until they pass.")
        self._observe(f"You stopped without an action. {error}\nI ran the tests for you:\n{run.output}\n\n{verdict}")

    # -- actions ----------------------------------------------------------------------------

    def _execute(self, action: act._Action) -> tuple[str, Optional[str], str]:
        """The observation, why the action was a no-op (None when it did something), and the
        state of the workspace afterwards."""
        tag = action.tag()
        before = self.workspace.state()
        if tag == "run_tests":
            if self.last_run and before == self.last_run_state:
                return (f"Nothing changed since the test run at step {self.last_run_step}; its result:\n"
                        f"{self.last_run.output}", "the tests were re-run with no change since the last run", before)
            return self._run_tests().output, None, self.last_run_state
        if tag == "finish":
            return self._finish(action, before), None, before
        if tag == "read_file" and self.reads.get(action.path) == before:
            return (f"{action.path} has not changed since you last read it; its content is above.",
                    "an unchanged file was read again", before)
        observation = self.workspace.execute(action)
        if tag in ("read_file", "list_files"):
            self.reads[getattr(action, "path", "")] = before
            return observation, None, before
        after = self.workspace.state()
        noop = "the same content was written again" if tag == "write_file" and before == after else None
        return observation, noop, after

    def _run_tests(self) -> TestRun:
        run = self.sandbox.run_pytest(self.workspace.root, self.run_dir / "sandbox", network=self.task.spec.network or None)
        self.seconds["tests"] += run.seconds
        self.last_run, self.last_run_step = run, self.step
        self.last_run_state = self.workspace.state()
        self.log.event("test_run", self.step, **run.to_dict())
        self.say(f"    tests: {run.outcome}, {run.counts()} ({run.seconds:.1f} s)")
        return run

    def _tampered(self) -> list[str]:
        """What test code changed that only the task may set (it runs with write access to the
        workspace): protected tests are put back, new pytest set-up files are removed."""
        changed = []
        for rel, digest in self.protected_hashes.items():
            if _digest(self.workspace.root / rel) != digest:
                changed.append(f"{rel} (restored to its original content)")
                self.workspace.put(rel, self.task.spec.files[rel])
        if self.workspace.protected:
            for rel in self.workspace.files(hidden=True):
                if Path(rel).name in act.COLLECTION_FILES and rel not in self.task.spec.files:
                    changed.append(f"{rel} (new pytest set-up, removed)")
                    (self.workspace.root / rel).unlink()
        return changed

    def _finish(self, action: act.Finish, state: str) -> str:
        """The finish gate: the latest run green, nothing changed since, protected tests intact."""
        tampered = self._tampered()
        if tampered:
            reason = f"the protected tests were tampered with: {', '.join(tampered)}"
        elif self.last_run is None:
            reason = "no test run yet: use run_tests first"
        elif not self.last_run.ok:
            reason = f"the latest test run did not pass ({self.last_run.counts()}); fix the code and run the tests again"
        elif state != self.last_run_state:
            run = self._run_tests()
            reason = None if run.ok else f"files changed after the last green run, and the tests now fail:\n{run.output}"
        else:
            reason = None
        if reason:
            self.log.event("finish_refused", self.step, reason=reason)
            return f"finish refused: {reason}"
        self.finish_accepted = True
        self.log.event("finish_accepted", self.step, summary=action.summary)
        raise RunEnded("solved", "finish accepted: the latest test run passed")

    def _hidden_tests(self) -> Optional[dict]:
        """Score with tests the agent never saw, run alone on a copy of the final workspace
        (without pytest set-up files the agent added)."""
        hidden = self.task.spec.hidden_tests
        if not hidden:
            return None
        folder = self.run_dir / "hidden"
        try:
            shutil.rmtree(folder, ignore_errors=True)  # an earlier attempt of a resumed run
            copy = act.Workspace(folder / "workspace")
            copy.root.mkdir(parents=True)
            for rel in self.workspace.files(hidden=True):
                source = self.workspace.root / rel
                if Path(rel).name in act.COLLECTION_FILES and rel not in self.task.spec.files:
                    continue
                (copy.root / rel).parent.mkdir(parents=True, exist_ok=True)
                if source.is_symlink():
                    os.symlink(os.readlink(source), copy.root / rel)
                else:
                    shutil.copyfile(source, copy.root / rel, follow_symlinks=False)
            for rel, content in hidden.items():
                copy.put(rel, content)
            run = self.sandbox.run_pytest(copy.root, folder / "sandbox", network=self.task.spec.network or None,
                                          targets=tuple(hidden))
        except KeyboardInterrupt:
            return None
        except (OSError, shutil.Error) as e:
            self.log.event("error", self.step, message=f"hidden tests could not run: {e}")
            return {"passed": 0, "failed": 0, "errors": 0, "skipped": 0, "ok": False, "outcome": f"not run: {e}"}
        expected = sum(_count_tests(content) for content in hidden.values())
        complete = run.passed + run.failed + run.errors + run.skipped >= expected
        self.log.event("hidden_tests", self.step, expected=expected, **run.to_dict())
        outcome = run.outcome if complete else f"incomplete: {expected} tests defined, fewer reported"
        self.say(f"Hidden tests: {run.counts()}" + ("" if run.ok and complete else f" ({outcome})"))
        return {"passed": run.passed, "failed": run.failed, "errors": run.errors, "skipped": run.skipped,
                "ok": run.ok and complete, "outcome": outcome}

    # -- context budget -----------------------------------------------------------------------

    def _fit_context(self) -> None:
        """Never send a request blind into an overflow: elide the oldest observations and
        replies, then cut the latest observation, until the history fits; else stop the run."""
        budget = self.backend.context_size - self.config.max_tokens - 64
        used = self._tokens()
        while used > budget:
            excess = used - budget
            elidable = [i for i in range(2, len(self.messages) - 1) if self.messages[i]["content"] != ELIDED]
            if not elidable:
                break
            for index in elidable:  # the oldest first, until the (under-)estimated saving covers the excess
                excess -= (len(self.messages[index]["content"]) - len(ELIDED)) // 4
                self.messages[index] = {**self.messages[index], "content": ELIDED}
                self.log.event("context_elided", self.step, message_index=index)
                if excess <= 0:
                    break
            self.reads.clear()  # an elided file content is no longer "above"
            used = self._tokens()
        full = self.messages[-1]["content"]
        keep = len(full)
        while len(self.messages) > 2 and used > budget and keep > 200:
            keep //= 2
            self.messages[-1]["content"] = full[:keep] + "\n[... cut to fit the context window]"
            self.log.event("context_elided", self.step, message_index=len(self.messages) - 1)
            used = self._tokens()
        if used > budget:
            raise RunEnded("error", f"the history no longer fits the context ({self.backend.context_size} tokens) "
                                    f"with {self.config.max_tokens} tokens left for the reply")

    def _tokens(self) -> int:
        text = "\n".join(m["content"] for m in self.messages)
        estimate = len(text) // 3 + 8 * len(self.messages)
        budget = self.backend.context_size - self.config.max_tokens
        if estimate < 0.7 * budget:
            return estimate
        exact = self.backend.count_tokens(text)
        return exact + 8 * len(self.messages) if exact is not None else estimate

"""The ReAct loop: a linear history, one JSON action per turn, observations back, a finish gate
that cannot be talked past, limits, stuck detection, and a run log written as it goes."""
from __future__ import annotations

import time
import traceback
from enum import Enum
from pathlib import Path
from typing import Callable, Optional

import actions as act
import approval as approval_
import console
import context
import isolation
import prompts
import report
import verdict
from config import Config
from context import RunState, reply_kind
from llm_client import ActionFormat, Backend, BackendError, Reply
from runlog import RunLog, read_transcript
from sandbox import Sandbox, TestRun, is_test_file
from stuck import StuckDetector
from tasks import Task
from workspace_files import put_file


class Status(str, Enum):
    """How a run ended (the value is what result.json and the console say)."""
    SOLVED = "solved"  # finish accepted and the task's own tests, judged, agree
    UNVERIFIED = "unverified"  # finish accepted, but the task has no tests of its own to judge by
    UNSOLVED = "unsolved"
    STEP_LIMIT = "step_limit"
    STUCK = "stuck"
    ERROR = "error"
    INTERRUPTED = "interrupted"


class RunEnded(Exception):
    """Ends the loop with a status (the mini-swe-agent way: control flow by a few exceptions)."""

    def __init__(self, status: Status, reason: str):
        super().__init__(reason)
        self.status, self.reason = status, reason


class Orchestrator:
    def __init__(self, task: Task, backend: Backend, sandbox: Sandbox, config: Config, run_dir: Path,
                 say: Callable[[str], None] = print, resume: bool = False,
                 show: Optional[Callable[[dict], None]] = None, approval: Optional[approval_.Approval] = None):
        """A new run in the empty folder run_dir, or (resume) the continuation of the run there.
        Every event is handed to `show` (default: printed as plain lines through `say`).
        approval: asked before every test run of the model's code (None: nothing to ask)."""
        self.task, self.backend, self.sandbox, self.config = task, backend, sandbox, config
        self.run_dir, self.say, self.resume, self.approval = run_dir, say, resume, approval
        self.show = show or console.Renderer(say=say, run_dir=run_dir)
        self.enabled = act.ALL_ACTIONS if config.edit_actions else act.BASE_ACTIONS
        self.format = ActionFormat(self.enabled)
        self.protocol = backend.pick_protocol()
        self.max_steps = config.max_steps
        self.workspace = act.Workspace(run_dir / "workspace", task.protected_files())
        if not resume:
            self.workspace.root.mkdir()
            for rel, content in task.spec.files.items():
                self.workspace.put(rel, content)
        # the task's own tests: laid over every test run's copy, and byte-identical after it
        self.protected = {rel: task.spec.files[rel] for rel in sorted(self.workspace.protected)}
        # the task's folder and every run (this batch's and earlier ones: their transcripts hold judged output)
        sandbox.hide([Path(task.source).resolve().parent, run_dir.parent, Path(config.runs_dir).resolve()])
        self.log = RunLog(run_dir)
        self.state = RunState([{"role": "system", "content": prompts.system_prompt(self.enabled)},
                               {"role": "user", "content": prompts.task_message(task.spec.prompt, self.workspace.files(),
                                                                                 list(self.protected))}])
        self.stuck = StuckDetector(config.stuck_limit)
        self.budget = context.Budget(backend.count_tokens, backend.context_size, config.max_tokens, config.compact_at)
        self.reads: dict[str, str] = {}  # path -> state of the workspace when it was last read

    def record(self, type_: str, **fields) -> dict:
        """Every event goes to the transcript and into the run state, by the same rule on resume."""
        event = self.log.event(type_, self.state.step or None, **fields)
        self.state.apply(event)
        self.show(event)
        return event

    # -- the loop ---------------------------------------------------------------------------

    def run(self) -> dict:
        start = time.monotonic()
        if self.resume:
            for event in read_transcript(self.run_dir):
                self.state.apply(event)
        self.record("resume" if self.resume else "start", task_id=self.run_dir.name, task=self.task.id,
                    source=self.task.source, prompt=self.task.spec.prompt, backend=self.backend.describe(),
                    protocol=self.protocol, sandbox=self.sandbox.describe(), max_steps=self.max_steps,
                    protected=sorted(self.protected), actions=[m.tag() for m in self.enabled],
                    **({} if self.resume else {"task_message": self.state.task}))
        try:
            while True:
                if self.state.step >= self.max_steps:
                    raise RunEnded(Status.STEP_LIMIT, f"the step limit ({self.max_steps}) was reached")
                self.state.step += 1
                self._turn()
        except RunEnded as e:
            status, reason = e.status, e.reason
        except BackendError as e:
            status, reason = Status.ERROR, f"model server: {e}"
            self.record("error", message=str(e))
        except KeyboardInterrupt:
            status, reason = Status.INTERRUPTED, "interrupted by the user (Ctrl-C)"
        except Exception as e:  # a bug of ours: keep the log and the result honest, then stop
            status, reason = Status.ERROR, f"internal error: {e!r}"
            self.record("error", message=traceback.format_exc())
        status, reason, judged = self._verdict(status, reason)
        result = self._result(status, reason, judged, time.monotonic() - start)
        self.record("end", status=status.value, reason=reason)
        self.log.write_result(result)
        self.log.close()
        self._tidy()
        self._write_report()
        return result

    def _write_report(self) -> None:
        """runs/<id>/report.html, whatever the status; a failure here never changes the result."""
        try:
            self.say(f"Report: {report.write_run_page(self.run_dir)}")
        except Exception as e:
            self.say(f"warning: the HTML report could not be written: {e!r}")

    def _result(self, status: Status, reason: str, judged: dict, seconds: float) -> dict:
        """result.json: what the run ended with, and what it cost."""
        s = self.state
        return {
            "task_id": self.run_dir.name, "task": self.task.id, "task_source": self.task.source,
            "run_dir": str(self.run_dir), "status": status.value, "reason": reason,
            "steps": s.step, "invalid_replies": s.invalid_total, "finish_accepted": s.finish_accepted,
            "last_test_run": TestRun.from_event(s.last_run).to_dict() if s.last_run else None,
            **judged, "own_tests": s.own_tests, "tokens": s.tokens,
            "seconds": {**{k: round(v, 2) for k, v in s.seconds.items()}, "total": round(seconds, 2)},
            "backend": self.backend.name, "model": self.backend.model, "protocol": self.protocol,
            "sandbox": self.sandbox.confinement.layer, "sandbox_gives": self.sandbox.gives(),
        }

    def _tidy(self) -> None:
        """What test code left in the run's copies (a full disk, say) goes; the reports stay."""
        for stage in self.run_dir.glob("*/stage"):
            for entry in stage.iterdir():
                if entry.name != "report.xml":
                    isolation.remove_tree(entry)
        isolation.remove_tree(self.run_dir / "proof")

    def _turn(self) -> None:
        tokens = self._fit_context()
        messages = self.state.messages
        self.record("llm_request", messages=len(messages), chars=sum(len(m["content"]) for m in messages), tokens=tokens)
        self.log.sync()
        reply = self.backend.complete(messages, self.format, self.protocol)
        try:
            action = act.parse(reply.text, self.enabled)
        except act.InvalidReply as e:
            self._invalid(reply, str(e))
            return
        self.record("llm_reply", kind="action", action=action.model_dump(exclude={"content", "old", "new"}),
                    error=None, **reply.record())
        observation, noop, state = self._execute(action)
        warning = self.stuck.observe(action.model_dump_json(exclude={"thought"}), observation, state, noop)
        if warning:
            observation = f"{observation}\n\n{warning}"
        self._observe(observation)
        if self.stuck.stuck:
            raise RunEnded(Status.STUCK, f"the model repeated itself {self.stuck.repeats} times in a row")

    def _observe(self, text: str) -> None:
        self.record("observation", text=text)

    def _invalid(self, reply: Reply, error: str) -> None:
        """An invalid reply becomes an observation; a reply with no JSON at all means the model
        stopped, and then the agent runs the tests for it (a few times at most)."""
        kind = reply_kind(act.strip_thinking(reply.text).strip(), error, reply.truncated)
        self.record("llm_reply", kind=kind, action=None, error=error, **reply.record())
        if kind == "stopped":  # empty or prose: the model thinks it is done
            self._nudge(error)
            return
        if reply.truncated:
            error = prompts.truncated(self.config.max_tokens)
        self._observe(error)
        if self.state.invalid_in_row >= self.config.max_invalid_replies:
            raise RunEnded(Status.ERROR, f"{self.state.invalid_in_row} invalid replies in a row")

    def _nudge(self, error: str) -> None:
        if self.state.nudges > self.config.max_nudges:
            raise RunEnded(Status.UNSOLVED, f"the model stopped without finish {self.state.nudges} times")
        declined = self._declined("a nudge (the model stopped without an action)")
        if declined:
            self._observe(prompts.nudge_declined(error, declined))
            return
        run = self._run_tests()
        self._observe(prompts.nudge(error, run.output, run.ok))

    # -- actions ----------------------------------------------------------------------------

    def _execute(self, action: act.Action) -> tuple[str, Optional[str], str]:
        """The observation, why the action was a no-op (None when it did something), and the
        state of the workspace afterwards."""
        before = self.workspace.digest()
        last = self.state.last_run
        if isinstance(action, act.RunTests):
            if last and before == last.get("workspace_state") and last["outcome"] != "not_run":
                return (prompts.nothing_changed_since_tests(last["output"]),
                        "the tests were re-run with no change since the last run", before)
            return self._declined("the model's run_tests") or self._run_tests().output, None, before
        if isinstance(action, act.Finish):
            return self._finish(action, before), None, before
        if isinstance(action, act.ReadFile) and self.reads.get(action.path) == before:
            return prompts.read_again(action.path), "an unchanged file was read again", before
        # a refused write changes nothing either, but it is no repeat unless it is the same action again
        same = isinstance(action, act.WriteFile) and self.workspace.read_bytes(action.path) == action.content.encode()
        observation = self.workspace.execute(action)
        if isinstance(action, act.ReadFile) and self.workspace.read_bytes(action.path) is not None:
            self.reads[action.path] = before  # a failed read is not remembered
        if isinstance(action, (act.ReadFile, act.ListFiles)):
            return observation, None, before
        return observation, "the same content was written again" if same else None, self.workspace.digest()

    def _declined(self, purpose: str, files: Optional[dict[str, bytes]] = None) -> Optional[str]:
        """The one hook before the model's code runs (every test run, judged ones too): None when
        it may run, else why not (the user said no, or the decision model's note was above
        --decider-block). Each ask is an `approval` event. files: what will run (the workspace)."""
        if self.approval is None:
            return None
        event = self.record("approval", **self.approval.check(purpose, self.workspace.snapshot() if files is None else files))
        return approval_.declined(event)

    def _run_tests(self) -> TestRun:
        """Every test run goes through here: on a fresh copy of the workspace, with the task's
        tests laid over it and checked afterwards (sandbox.run_pytest says what a run proves)."""
        state = self.workspace.digest()
        run = self.sandbox.run_pytest(self.workspace.root, self.run_dir / "sandbox", trusted=self.protected)
        self.record("test_run", workspace_state=state, **run.to_dict())
        return run

    def _restore_protected(self) -> list[str]:
        """Protected tests in the workspace itself: only the model's actions write there and they
        refuse, but without an unprivileged test user (basic layer, not root) test code could."""
        changed = [rel for rel, content in self.protected.items()
                   if self.workspace.read_bytes(rel) != content.encode("utf-8")]
        for rel in changed:
            self.workspace.put(rel, self.protected[rel])
        return changed

    def _finish(self, action: act.Finish, state: str) -> str:
        """The finish gate: the tests pass on exactly the files there are now, and the task's own
        tests are intact. Files changed since the latest run (or no run yet, or the latest run is
        from before a --resume, perhaps under another sandbox or interpreter): run them now."""
        restored = self._restore_protected()
        last = self.state.last_run
        if restored:
            reason = prompts.protected_changed(restored)
        elif last is None or self.state.run_before_resume or state != last.get("workspace_state"):
            reason = self._declined("the finish gate (files changed since the last run, or the run was resumed)")
            if reason is None:
                run = self._run_tests()
                reason = None if run.ok else prompts.tests_fail_now(run.output)
        elif not last["ok"]:
            reason = prompts.latest_run_red(TestRun.from_event(last).counts(), last["outcome"])
        else:
            reason = None
        reason = reason or self._unproved_tests()
        if reason:
            self.record("finish_refused", reason=reason)
            return prompts.finish_refused(reason)
        self.record("finish_accepted", summary=action.summary)
        raise RunEnded(Status.SOLVED, "finish accepted: the tests pass on the final files")

    def _unproved_tests(self) -> Optional[str]:
        """A test-driven agent is only as good as its tests: the model's own test files (created or
        changed) run once more on the task's starting files. If none fails there, they do not test
        the change: finish is refused once, saying so (the next finish is judged as usual)."""
        if not self.config.prove_tests or self.state.own_tests is not None:
            return None
        start = self.task.spec.files
        own = [rel for rel in self.workspace.files() if is_test_file(rel) and rel not in self.protected
               and self.workspace.read_bytes(rel) != (start[rel].encode() if rel in start else None)]
        if not own:
            return None
        source = self.run_dir / "proof" / "start"
        isolation.remove_tree(source.parent)
        proof = {**start, **{rel: self.workspace.read_bytes(rel).decode("utf-8", "replace") for rel in own}}
        declined = self._declined("the model's own tests on the task's starting files (do they test the change?)",
                                  {rel: content.encode("utf-8") for rel, content in proof.items()})
        if declined:
            return declined
        for rel, content in proof.items():
            put_file(source, rel, content)
        run = self.sandbox.run_pytest(source, self.run_dir / "proof" / "sandbox", targets=tuple(own), trusted=self.protected)
        failed = run.failed + run.errors if run.outcome == "completed" else None
        proved = None if failed is None else failed > 0
        self.record("own_tests", files=own, passed_at_end=True, failed_on_start=failed, proved=proved,
                    outcome=run.outcome, seconds=run.seconds, output=run.output)
        return prompts.tests_prove_nothing(own) if proved is False else None

    # -- the verdict --------------------------------------------------------------------------

    def _verdict(self, status: Status, reason: str) -> tuple[Status, str, dict]:
        """Judge the final files against the task's tests (verdict.judge_task) whatever the status;
        then `solved` only if verdict.failed_check finds nothing."""
        suites = {"hidden tests": self.task.spec.hidden_tests, "protected tests": self.protected}
        judged, stopped = verdict.judge_task(self.sandbox, self.workspace.root, suites, self.run_dir,
                                             status == Status.INTERRUPTED, self._declined, self.record, self.say,
                                             self.task.named_modules(), self.task.data_files())
        if stopped:
            status, reason = Status.INTERRUPTED, stopped
        if status == Status.SOLVED:
            why = verdict.failed_check(self.state.finish_accepted, self._restore_protected(), judged)
            if why:
                status, reason = Status.UNSOLVED, why
            elif not any(judged.values()):
                status, reason = Status.UNVERIFIED, reason + " (not verified: the task has no tests of its own to " \
                                                             "judge the files by; give it hidden tests)"
        return status, reason, {"hidden_tests": judged["hidden tests"], "protected_tests": judged["protected tests"],
                                "verified": any(judged.values())}

    # -- context budget -----------------------------------------------------------------------

    def _fit_context(self) -> int:
        """Never send a request blind into an overflow, and never rewrite the history between
        compactions (context.py says why): past the threshold, compact once; if even that does not
        fit, cut the latest message (an observation, or the summary after the task); else stop the
        run. Returns the history's tokens (an estimate when far below the threshold)."""
        messages = self.state.messages
        used = self.budget.tokens(messages)
        if used > self.budget.threshold:
            used = self._compact(used)
        keep = len(messages[-1]["content"])
        floor = len(self.state.task) if len(messages) == 2 else 200  # the task itself is never cut
        while used > self.budget.room and keep > floor:
            keep = max(floor, keep // 2)
            self.record("context_cut", keep=keep)
            used = self.budget.tokens(messages)
        if used > self.budget.room:
            raise RunEnded(Status.ERROR, f"the history no longer fits the context ({self.backend.context_size} tokens) "
                                         f"with {self.config.max_tokens} tokens left for the reply")
        return used

    def _compact(self, used: int) -> int:
        """One compaction (context.compact says what it keeps), recorded; the tokens after it."""
        def read(path: str) -> Optional[str]:
            data = self.workspace.read_bytes(path)
            return data.decode("utf-8", "replace") if data is not None else None

        s = self.state
        fields = context.compact(s.messages, s.task, s.compacted, read, s.last_run["output"] if s.last_run else None,
                                 self.budget, used)
        if fields is None:
            return used
        self.record("context_compacted", **fields)
        self.reads.clear()  # what was read is summarized now, not "above" as it was
        return fields["tokens_after"]

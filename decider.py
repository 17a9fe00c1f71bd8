"""The decision-model note: before the model's code runs, a second opinion on whether a person
should look at it first (the seed's `decision model: routine (0.05)` / `LOOK CLOSELY (0.96)`).

It only advises, so it never raises: a decider that is down, slow or answers garbage gives
`no answer (<reason>)` and the run goes on. Two sources answer the same question: a decision model
behind the `/v1/systemone` API (Jeff; `--decider URL`), and, without one, the coding model itself,
asked for a one-field choice through the same constraint machinery as its actions."""
from __future__ import annotations

import time
from dataclasses import asdict, dataclass
from typing import Literal, Optional

import httpx
from pydantic import BaseModel, ConfigDict, Field

import actions as act
import llm_client

DECIDER_MODEL = "jeff-latest"  # the name Jeff's own server answers to
LOOK = "2"  # the option that means "a person should look first"
QUESTION = {
    "type": "choice",
    "instructions": "Should a person look at this code before its tests run it?",
    "criteria": {
        "1": "no: it only computes, and reads or writes files inside the current folder; its tests only test it",
        "2": "yes: it reads or writes paths outside the current folder, deletes files, uses the network, "
             "starts subprocesses, or changes the tests or how pytest runs them",
    },
}
STATE_CHARS = 6000  # the longest diff the decider is sent; a longer one is never cut (see `note`)


@dataclass
class Note:
    """One answer to the question, as the console, the transcript and --decider-block use it."""
    label: str                    # routine, LOOK CLOSELY, or no answer (<reason>)
    probability: Optional[float]  # of "look closely"; None when the source gives none
    seconds: float
    source: str                   # "decision model" or "coding model"
    unasked: str = ""             # why the source was not asked (the answer is then LOOK CLOSELY)

    def line(self) -> str:
        if self.unasked:
            return f"{self.source}: {self.label} (not asked: {self.unasked})"
        return f"{self.source}: {self.label}" + ("" if self.probability is None else f" ({self.probability:.2f})")

    def record(self) -> dict:
        return asdict(self)


def situation(purpose: str, files: list[str], diff: str) -> str:
    """The situation the decider judges: what is about to run, and what changed (all of it)."""
    changed = ", ".join(files) or "none"
    return (f"A coding agent wrote code in its working folder; pytest is about to run it ({purpose}).\n"
            f"Files changed since a person last let the tests run: {changed}\n{diff}")


def note(decider: "SystemOne | CodingModel", purpose: str, files: list[str], diff: str) -> Note:
    """The decider's note on what is about to run. It reads all of it or is not asked: a cut diff
    can hide the one line that matters (a long first file pushes a later one out of view), so a
    diff longer than STATE_CHARS is LOOK CLOSELY at once (probability 1)."""
    if len(diff) > STATE_CHARS:
        why = f"the changes are {len(diff)} characters, more than the {STATE_CHARS} it reads"
        return Note(_label(LOOK), 1.0, 0.0, decider.source, unasked=why)
    return decider.ask(situation(purpose, files, diff))


def _label(choice: str) -> str:
    return "LOOK CLOSELY" if choice == LOOK else "routine"


class SystemOne:
    """A client of the `/v1/systemone` API: one choice question, a probability per option."""

    source = "decision model"

    def __init__(self, url: str, timeout: float):
        self.url = url.rstrip("/") + "/v1/systemone"
        self.timeout = timeout
        self.http = llm_client.http_client(self.url, httpx.Timeout(timeout, connect=min(timeout, 5.0)))

    def ask(self, situation: str) -> Note:
        start = time.monotonic()
        try:
            label, probability = self._answer(situation)
        except Exception as e:  # advice only: whatever went wrong is said, and the run goes on
            label, probability = f"no answer ({_reason(e, self.timeout)})", None
        return Note(label, probability, round(time.monotonic() - start, 3), self.source)

    def _answer(self, situation: str) -> tuple[str, float]:
        body = {"model": DECIDER_MODEL, "state": situation, "questions": {"q": QUESTION}}
        response = self.http.post(self.url, json=body)
        if response.status_code != 200:
            raise ValueError(f"HTTP {response.status_code} from {self.url}")
        try:
            answer = response.json()["answers"]["q"]
            choice, probability = str(answer["choice"]), float(answer["probabilities"][LOOK])
        except (ValueError, KeyError, TypeError) as e:
            raise ValueError(f"malformed reply from {self.url}: {type(e).__name__} {e}") from None
        if choice not in QUESTION["criteria"] or not 0.0 <= probability <= 1.0:
            raise ValueError(f"malformed reply from {self.url}: choice {choice!r}, probability {probability}")
        return _label(choice), probability


def _reason(error: Exception, timeout: float) -> str:
    if isinstance(error, httpx.TimeoutException):
        return f"no reply within {timeout:g} s"
    if isinstance(error, httpx.ConnectError):
        return "nothing answers there"
    return str(error)[:200] or type(error).__name__


class Answer(BaseModel):
    """Answer the question with the number of the option that fits."""
    model_config = ConfigDict(extra="ignore")  # a native tool call comes back with a thought
    action: Literal["answer"]  # fixed by the constraint: the model writes only the choice
    choice: Literal["1", "2"] = Field(description="The number of the option that fits.")

    @classmethod
    def tag(cls) -> str:
        return "answer"


ANSWER_FORMAT = llm_client.ActionFormat((Answer,))


class CodingModel:
    """Without a decision model, the coding model answers the same question: no probability, one
    field, constrained (grammar, schema or tool, from Answer by the same functions as the actions)
    and validated like its actions. It judges code it wrote itself, so its note says so."""

    source = "coding model"

    def __init__(self, backend: llm_client.Backend):
        self.backend = backend

    def ask(self, situation: str) -> Note:
        options = "\n".join(f"{k}: {v}" for k, v in QUESTION["criteria"].items())
        messages = [{"role": "system", "content": 'You answer one question about code with one JSON object: '
                                                  '{"action": "answer", "choice": "1 or 2"}'},
                    {"role": "user", "content": f"{situation}\n\n{QUESTION['instructions']}\n{options}"}]
        start = time.monotonic()
        try:
            reply = self.backend.complete(messages, ANSWER_FORMAT, self.backend.pick_protocol())
            label = _label(act.parse(reply.text, (Answer,)).choice)
        except (llm_client.BackendError, act.InvalidReply) as e:
            label = f"no answer ({str(e)[:200]})"
        except Exception as e:  # advice only, as above
            label = f"no answer ({type(e).__name__}: {str(e)[:200]})"
        return Note(label, None, round(time.monotonic() - start, 3), self.source)

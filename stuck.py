"""Stuck detection: loops that would otherwise burn the whole step budget (OpenHands' lesson).

Counted as a repeat: an action that changed nothing (same content written again, an unchanged
file read again, tests re-run with no change), the same action with the same observation as
before, and flipping the workspace between two states. Real progress resets the count.
"""
from __future__ import annotations

import hashlib
from typing import Optional

import prompts


class StuckDetector:
    def __init__(self, limit: int):
        self.limit = limit
        self.repeats = 0
        self.seen: set[str] = set()
        self.states: list[str] = []

    @property
    def stuck(self) -> bool:
        return self.repeats >= self.limit

    def observe(self, action_key: str, observation: str, state: str, noop: Optional[str]) -> Optional[str]:
        """Record one step; return a plain warning for the model when it repeats itself."""
        pair = hashlib.sha256(f"{action_key}\x00{observation}".encode()).hexdigest()
        flipped = False
        if state != (self.states[-1] if self.states else None):
            self.states.append(state)
            s = self.states
            flipped = len(s) >= 4 and s[-1] == s[-3] and s[-2] == s[-4]
        if noop:
            reason = noop
        elif flipped:
            reason = "the files keep flipping back and forth between the same two versions"
        elif pair in self.seen:
            reason = "you did exactly this before and got exactly this answer"
        else:
            reason = None
        self.seen.add(pair)
        if reason is None:
            self.repeats = 0
            return None
        self.repeats += 1
        return prompts.stuck_warning(reason, self.repeats, self.limit)

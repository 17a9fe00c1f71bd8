"""Shared test helpers: a scratch folder the sandbox user can reach, and running the real
run_task.py as a subprocess the way a user does."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from fake_servers import FakeKoboldCpp  # noqa: E402

import isolation  # noqa: E402
from config import SandboxConfig  # noqa: E402
from sandbox import Sandbox  # noqa: E402

# Every sandbox layer this machine has (and the warm runner): tests that run model code run under each.
LAYERS = (["basic"] + (["basic+namespaces"] if isolation.unshare_works() else [])
          + (["basic+namespaces+warm"] if isolation.unshare_works() and os.getuid() == 0 else [])
          + (["bwrap"] if isolation.bwrap_works() else []))
# Starts a command with SIGINT ignored, as a shell without job control starts a background job
# (`cmd &` in a script); exec keeps an ignored signal ignored.
SIGINT_IGNORED = ["sh", "-c", 'trap "" INT; exec "$@"', "sh"]


def layer_sandbox(layer: str, **limits) -> Sandbox:
    """A Sandbox for one of LAYERS ('basic+namespaces' is the basic layer with namespaces on;
    '+warm': each run forked from the warm runner)."""
    return Sandbox(SandboxConfig(isolation=layer.split("+")[0], namespaces="namespaces" in layer,
                                 warm="warm" in layer, **limits))


@pytest.fixture
def scratch():
    """A temp folder under /tmp that an unprivileged test user can walk into (pytest's own
    tmp_path is private to root, which the basic sandbox layer cannot use as root)."""
    folder = Path(tempfile.mkdtemp(prefix="tdd-agent-test-"))
    folder.chmod(0o755)
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


@dataclass
class AgentRun:
    proc: subprocess.CompletedProcess
    run_dir: Optional[Path]

    @property
    def code(self) -> int:
        return self.proc.returncode

    @property
    def result(self) -> dict:
        return json.loads((self.run_dir / "result.json").read_text())

    @property
    def events(self) -> list[dict]:
        return [json.loads(line) for line in (self.run_dir / "transcript.jsonl").read_text().splitlines()]

    def of_type(self, kind: str) -> list[dict]:
        return [e for e in self.events if e["type"] == kind]

    def transcript_text(self) -> str:
        return (self.run_dir / "transcript.jsonl").read_text()


class Agent:
    """Runs `python run_task.py` in a subprocess with its own config in a scratch folder."""

    def __init__(self, folder: Path):
        self.folder = folder
        self.config = folder / "agent.yaml"
        self.settings: dict = {"runs_dir": str(folder / "runs"), "sandbox": {"timeout": 30}}

    def write_task(self, name: str, text: str) -> Path:
        path = self.folder / name
        path.write_text(text)
        return path

    def command(self, task: Optional[Path], *args: str) -> list[str]:
        """The command line (without --task when task is None, e.g. with --resume)."""
        self.config.write_text(yaml.safe_dump(self.settings))
        what = ["--task", str(task)] if task else []
        return [sys.executable, str(ROOT / "run_task.py"), *what, "--config", str(self.config), *args]

    def environment(self, extra: Optional[dict] = None) -> dict:
        environ = {k: v for k, v in os.environ.items() if not k.startswith("AGENT_")}
        return {**environ, **(extra or {})}

    def run(self, task: Optional[Path], *args: str, env: Optional[dict] = None, timeout: float = 600) -> AgentRun:
        proc = subprocess.run(self.command(task, *args), cwd=self.folder, capture_output=True, text=True,
                              env=self.environment(env), timeout=timeout)
        runs = sorted((self.folder / "runs").glob("*"), key=lambda p: p.stat().st_mtime) if (self.folder / "runs").exists() else []
        return AgentRun(proc, runs[-1] if runs else None)


    def play(self, task: Optional[Path], script: list, *args: str) -> AgentRun:
        """One run against a scripted KoboldCPP that plays `script` as the model's replies."""
        with FakeKoboldCpp(script) as server:
            return self.run(task, "--server", server.url, *args)


@pytest.fixture
def agent(scratch) -> Agent:
    return Agent(scratch)

"""Windows and macOS, simulated on Linux (tests/simulated/platform_sim.py says what is taken away
and what the simulation cannot reach): the README's run command ends solved against a scripted
KoboldCPP (tests/fake_servers.py: a test double playing fixed replies, not a model), the hidden
tests judged, nothing left running after a test that loops past its timeout; and --batch runs.
The agent and the sandbox interpreter both run simulated."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid
from pathlib import Path

import psutil
import pytest
import yaml

from conftest import ROOT
from fake_servers import FakeKoboldCpp
from sandbox import default_venv

SIM = Path(__file__).resolve().parent / "simulated"
PLATFORMS = ["windows", "macos"]
FIZZBUZZ = ("def fizzbuzz(n):\n    if n % 15 == 0:\n        return 'FizzBuzz'\n    if n % 3 == 0:\n"
            "        return 'Fizz'\n    if n % 5 == 0:\n        return 'Buzz'\n    return str(n)\n")
TESTS = ("from fizzbuzz import fizzbuzz\n\n\ndef test_fizz():\n    assert fizzbuzz(9) == 'Fizz'\n\n\n"
         "def test_buzz():\n    assert fizzbuzz(10) == 'Buzz'\n\n\ndef test_both():\n    assert fizzbuzz(30) == 'FizzBuzz'\n\n\n"
         "def test_number():\n    assert fizzbuzz(7) == '7'\n")


def interpreter(folder: Path, platform: str, python: str) -> Path:
    """An executable that is `python` with `platform` simulated (readable by the test user)."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "platform_sim.py").write_text((SIM / "platform_sim.py").read_text())
    path = folder / "python"
    path.write_text(f"#!{python}\nimport sys\nsys.path.insert(0, {str(folder)!r})\nimport platform_sim\n"
                    f"del sys.path[0]\nplatform_sim.run({platform!r})\n")
    for f in (folder, folder / "platform_sim.py", path):
        f.chmod(0o755)
    return path


def kobold(replies: list[dict]) -> FakeKoboldCpp:
    """The scripted KoboldCPP (in this process, on a free port) playing `replies` as JSON text."""
    return FakeKoboldCpp([json.dumps(reply) for reply in replies])


def setup(scratch: Path, platform: str) -> tuple[Path, dict]:
    """The simulated agent interpreter, its settings file and environment (a PATH without
    bwrap and unshare; macOS keeps ps)."""
    agent = interpreter(scratch / "agent-python", platform, sys.executable)
    sandbox_python = interpreter(scratch / "sandbox-python", platform, str(default_venv()))
    (scratch / "agent.yaml").write_text(yaml.safe_dump({"runs_dir": str(scratch / "runs"), "sandbox": {
        "python": str(sandbox_python), "timeout": 3, "judge_timeout": 60}}))  # the looping test waits it out
    bin_dir = scratch / "bin"
    bin_dir.mkdir()
    if platform == "macos":
        os.symlink("/bin/ps", bin_dir / "ps")
    env = {k: v for k, v in os.environ.items() if not k.startswith("AGENT_")}
    return agent, {**env, "PATH": str(bin_dir)}


def running_with(marker: str) -> list[psutil.Process]:
    found = []
    for proc in psutil.process_iter(["cmdline"]):
        if any(marker in part for part in proc.info["cmdline"] or []):
            found.append(proc)
    return found


@pytest.mark.parametrize("platform", PLATFORMS)
def test_run_is_solved_judged_and_leaves_nothing_after_a_timeout(platform, scratch):
    marker = f"leftover-{uuid.uuid4().hex}"
    looping = ("import subprocess, sys\nfrom fizzbuzz import fizzbuzz\n\n\ndef test_forever():\n"
               f"    subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(300)', {marker!r}])\n"
               "    while True:\n        pass\n")
    replies = [{"thought": "Write it.", "action": "write_file", "path": "fizzbuzz.py", "content": FIZZBUZZ},
               {"thought": "A test.", "action": "write_file", "path": "test_fizzbuzz.py", "content": looping},
               {"thought": "Run.", "action": "run_tests"},
               {"thought": "Fix the test.", "action": "write_file", "path": "test_fizzbuzz.py", "content": TESTS},
               {"thought": "Run.", "action": "run_tests"},
               {"thought": "Done.", "action": "finish", "summary": "fizzbuzz and its tests"}]
    agent, env = setup(scratch, platform)
    with kobold(replies) as server:
        done = subprocess.run([str(agent), str(ROOT / "run_task.py"), "--task", str(ROOT / "example_tasks/fizzbuzz.txt"),
                               "--config", str(scratch / "agent.yaml"), "--server", server.url],
                              cwd=scratch, env=env, capture_output=True, text=True, timeout=300)
    run_dir = next((scratch / "runs").iterdir())
    judge_logs = "".join(f"\n== {p}\n" + p.read_text()[-2000:] for p in run_dir.rglob("*.log"))
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:] + judge_logs
    result = json.loads((run_dir / "result.json").read_text())
    assert result["status"] == "solved" and result["hidden_tests"]["passed"] == 9, result
    runs = [json.loads(line) for line in (run_dir / "transcript.jsonl").read_text().splitlines()]
    outcomes = [e["outcome"] for e in runs if e["type"] == "test_run"]
    assert outcomes[0] == "timeout" and outcomes[-1] == "completed", outcomes
    assert running_with(marker) == [], "the looping test's child outlived the run"
    assert running_with(str(scratch)) == [], "a process of the run (the looping pytest?) outlived it"
    gives = result["sandbox_gives"]
    if platform == "windows":  # no resource module: no rlimits; no prctl: no subreaper, no keyring filter
        assert gives["limits"] == [] and not gives["keyrings_filtered"] and "no subreaper" in gives["process_control"]
    else:  # setrlimit(RLIMIT_AS) refused: recorded, the rest in effect
        assert gives["limits_not_enforced"] == ["memory"] and "cpu" in gives["limits"]


@pytest.mark.parametrize("platform", PLATFORMS)
def test_batch_runs(platform, scratch):
    agent, env = setup(scratch, platform)
    tasks = scratch / "tasks"
    tasks.mkdir()
    for name in ("fizzbuzz.txt", "fizzbuzz.hidden_tests"):
        src = ROOT / "example_tasks" / name
        if src.is_dir():
            (tasks / name).mkdir()
            for f in src.iterdir():
                (tasks / name / f.name).write_text(f.read_text())
        else:
            (tasks / name).write_text(src.read_text())
    replies = [{"thought": "Write it.", "action": "write_file", "path": "fizzbuzz.py", "content": FIZZBUZZ},
               {"thought": "Tests.", "action": "write_file", "path": "test_fizzbuzz.py", "content": TESTS},
               {"thought": "Run.", "action": "run_tests"},
               {"thought": "Done.", "action": "finish", "summary": "fizzbuzz"}]
    with kobold(replies) as server:
        done = subprocess.run([str(agent), str(ROOT / "run_task.py"), "--batch", str(tasks), "--jobs", "1",
                               "--batch-id", "b", "--config", str(scratch / "agent.yaml"), "--server", server.url],
                              cwd=scratch, env=env, capture_output=True, text=True, timeout=300)
    summary = json.loads((scratch / "runs" / "b" / "summary.json").read_text())
    assert [r["status"] for r in summary["runs"]] == ["solved"], done.stdout[-3000:] + done.stderr[-3000:]
    result = json.loads(next((scratch / "runs" / "b").glob("*/result.json")).read_text())
    simulated = result["sandbox_gives"]["limits"] == [] if platform == "windows" else \
        result["sandbox_gives"]["limits_not_enforced"] == ["memory"]
    assert simulated, "the batch's run did not run simulated"

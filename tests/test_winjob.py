"""The Windows pieces, checked here on Linux (no Windows machine is available): the Job Object
against a fake kernel32 that records the calls (a scripted fake: it shows which calls the agent
makes and in what order, not that Windows accepts them), the structures against their
documented x64 sizes, and the interpreter paths and clean environment Windows needs."""
from __future__ import annotations

import ctypes
import json
import os
import sys
from pathlib import Path, PureWindowsPath

import pytest

import isolation
import sandbox
import winjob
from config import SandboxConfig


class RecordingKernel32:
    """Stands in for winjob.Kernel32: records each call; `alive` is what the job reports."""

    def __init__(self, alive: int = 0, refuse: str = ""):
        self.calls: list[tuple] = []
        self.alive, self.refuse = alive, refuse

    def _call(self, name, *args):
        self.calls.append((name, *args))
        if name == self.refuse:
            raise OSError(f"{name} refused")

    def create(self):
        self._call("create")
        return 77

    def set_limits(self, job, info):
        self._call("set_limits", job, info.BasicLimitInformation.LimitFlags, info.BasicLimitInformation.ActiveProcessLimit,
                   info.ProcessMemoryLimit, info.BasicLimitInformation.PerProcessUserTimeLimit)

    def assign(self, job, pid):
        self._call("assign", job, pid)

    def active_processes(self, job):
        self._call("active_processes", job)
        return self.alive

    def terminate(self, job, code):
        self._call("terminate", job, code)

    def close(self, job):
        self._call("close", job)


def test_structures_have_their_documented_x64_sizes():
    if ctypes.sizeof(ctypes.c_size_t) != 8:
        pytest.skip("the documented sizes are those of 64-bit Windows")
    assert ctypes.sizeof(winjob.IoCounters) == 48
    assert ctypes.sizeof(winjob.BasicLimits) == 64
    assert ctypes.sizeof(winjob.ExtendedLimits) == 144
    assert ctypes.sizeof(winjob.Accounting) == 48


def test_a_job_is_made_with_the_runs_limits_and_ends_everything_left():
    api = RecordingKernel32(alive=3)
    job = winjob.Job(cpu_seconds=30, memory_mb=2048, max_processes=64, api=api)
    job.add(4242)
    left = job.end()
    flags = (winjob.JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE | winjob.JOB_OBJECT_LIMIT_ACTIVE_PROCESS
             | winjob.JOB_OBJECT_LIMIT_PROCESS_MEMORY | winjob.JOB_OBJECT_LIMIT_PROCESS_TIME
             | winjob.JOB_OBJECT_LIMIT_DIE_ON_UNHANDLED_EXCEPTION)
    assert api.calls == [("create",), ("set_limits", 77, flags, 64, 2048 * 1024 * 1024, 30 * 10_000_000),
                         ("assign", 77, 4242), ("active_processes", 77), ("terminate", 77, 1), ("close", 77)]
    assert left == 3


def test_a_job_with_nothing_left_is_only_closed():
    api = RecordingKernel32(alive=0)
    assert winjob.Job(1, 1, 1, api=api).end() == 0
    assert [c[0] for c in api.calls] == ["create", "set_limits", "active_processes", "close"]


def test_a_job_whose_limits_are_refused_is_closed_and_the_error_raised():
    api = RecordingKernel32(refuse="set_limits")
    with pytest.raises(OSError):
        winjob.Job(1, 1, 1, api=api)
    assert [c[0] for c in api.calls] == ["create", "set_limits", "close"]


def test_the_real_kernel32_exists_only_on_windows():
    if sys.platform == "win32":
        pytest.skip("this is Windows")
    with pytest.raises(OSError):
        winjob.Kernel32()


def fake_conda(folder: Path, envs: list[str]) -> dict:
    """A `conda` on PATH that prints `conda env list --json` with these envs."""
    folder.mkdir()
    conda = folder / "conda"
    conda.write_text(f"#!/bin/sh\ncat <<'JSON'\n{json.dumps({'envs': envs})}\nJSON\n")
    conda.chmod(0o755)
    return {**os.environ, "PATH": f"{folder}{os.pathsep}{os.environ['PATH']}"}


def test_a_windows_conda_env_is_found_at_envs_name_python_exe(tmp_path, monkeypatch):
    env = fake_conda(tmp_path / "bin", [r"C:\Users\ana\miniconda3", r"C:\Users\ana\miniconda3\envs\agent-sandbox"])
    monkeypatch.setenv("PATH", env["PATH"])
    found = sandbox.conda_python("agent-sandbox", windows=True)
    assert found == PureWindowsPath(r"C:\Users\ana\miniconda3\envs\agent-sandbox\python.exe")
    assert sandbox.conda_python("base", windows=True) == PureWindowsPath(r"C:\Users\ana\miniconda3\python.exe")


def test_a_conda_env_without_its_interpreter_is_refused_with_the_path(tmp_path, monkeypatch):
    prefix = tmp_path / "miniconda3" / "envs" / "agent-sandbox"
    prefix.mkdir(parents=True)  # listed by conda, but no bin/python in it
    monkeypatch.setenv("PATH", fake_conda(tmp_path / "bin", [str(tmp_path / "miniconda3"), str(prefix)])["PATH"])
    with pytest.raises(sandbox.SandboxError, match=f"no interpreter at {prefix / 'bin' / 'python'}"):
        sandbox.find_interpreter(SandboxConfig(conda_env="agent-sandbox"))


def test_a_windows_venv_has_its_interpreter_in_scripts():
    assert sandbox.venv_python(Path("v"), windows=True) == Path("v") / "Scripts" / "python.exe"
    assert sandbox.venv_python(Path("v"), windows=False) == Path("v") / "bin" / "python"


def test_the_clean_environment_on_windows_has_systemroot_and_its_path_separator(monkeypatch):
    monkeypatch.setattr(sys, "platform", "win32")
    monkeypatch.setattr(os, "pathsep", ";")
    monkeypatch.setenv("SYSTEMROOT", r"C:\Windows")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-secret")
    env = isolation.clean_environment(Path("home"), Path("tmp"), Path("py"))
    assert env["SYSTEMROOT"] == r"C:\Windows" and env["TEMP"] == env["TMP"] == "tmp"
    assert env["PATH"].split(";")[0] == "py" and len(env["PATH"].split(";")) == 3
    assert "sk-secret" not in env.values()

"""The portable process layer's own pieces: which rlimits take effect is recorded, not assumed;
the sandbox's and the judge's files are run from a copy (and bytecode) the test user can read and
not change."""
from __future__ import annotations

import os
import resource
import stat
import subprocess

import isolation
import procs
import runtime_files
from config import SandboxConfig
from sandbox import Sandbox


def test_rlimits_record_which_took_effect(monkeypatch):
    values = isolation.rlimit_values(SandboxConfig(), -1)
    assert procs.rlimits_in_effect(values) == list(procs.RLIMITS)
    real = resource.setrlimit

    def refuse_address_space(which, limits):  # what macOS does
        if which == resource.RLIMIT_AS:
            raise ValueError("current limit exceeds maximum limit")
        real(which, limits)
    monkeypatch.setattr(resource, "setrlimit", refuse_address_space)
    taken = procs.rlimits_in_effect(values)
    assert "RLIMIT_AS" not in taken and "RLIMIT_CPU" in taken and len(taken) == len(procs.RLIMITS) - 1
    assert procs.gives(taken, subreaper=False)["limits_not_enforced"] == ["memory"]


def test_the_runtime_copy_is_read_only_for_others_and_the_same_files():
    root = runtime_files.runtime_root()
    assert runtime_files.runtime_root() == root  # one copy per content
    for source in (runtime_files.SOURCE, runtime_files.JUDGE_SOURCE):
        copy = root / source.name
        names = sorted(p.relative_to(source) for p in source.rglob("*.py"))
        assert sorted(p.relative_to(copy) for p in copy.rglob("*.py")) == names
        for name in names:
            assert (copy / name).read_bytes() == (source / name).read_bytes()
            assert stat.S_IMODE((copy / name).stat().st_mode) == 0o644
        for folder in (root, copy):
            assert stat.S_IMODE(folder.stat().st_mode) == 0o755


def test_the_judges_bytecode_is_made_once_by_the_interpreter_and_only_we_can_change_it():
    """The worker reads bytecode from this prefix only: the standard library it imports and its
    own files, nothing of a workspace; the judge reads its plugin's from the copy's __pycache__."""
    sandbox = Sandbox(SandboxConfig())
    prefix = runtime_files.bytecode(sandbox.runtime, sandbox.python)
    assert prefix is not None and runtime_files.bytecode(sandbox.runtime, sandbox.python) == prefix
    tag = subprocess.run([str(sandbox.python), "-c", "import sys; print(sys.implementation.cache_tag)"],
                         capture_output=True, text=True, check=True).stdout.strip()
    compiled = {p.relative_to(p.parent.parent).as_posix() for p in prefix.rglob("*.pyc")}
    wanted = ("json/__init__", "re/__init__", "judge_runtime/rpc", "judge_runtime/rpc_values", "judge_runtime/worker")
    assert {f"{name}.{tag}.pyc" for name in wanted} <= compiled
    assert f"judge_plugin.{tag}.pyc" in {p.name for p in (sandbox.runtime / "judge_runtime" / "__pycache__").iterdir()}
    for path in [prefix, *prefix.rglob("*")]:
        assert path.stat().st_uid == os.getuid()
        assert stat.S_IMODE(path.stat().st_mode) == (0o755 if path.is_dir() else 0o644), path
    # the worker is started with it (a workspace's own __pycache__ is never read)
    import judge
    assert judge.pycache_prefix(sandbox) == str(prefix)

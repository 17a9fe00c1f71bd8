"""The portable process layer's own pieces: which rlimits take effect is recorded, not assumed;
the sandbox's files are run from a copy the test user can read and not change."""
from __future__ import annotations

import resource
import stat

import isolation
import procs
import runtime_files
from config import SandboxConfig


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
    copy = root / "sandbox_runtime"
    names = sorted(p.name for p in runtime_files.SOURCE.glob("*.py"))
    assert sorted(p.name for p in copy.iterdir()) == names
    for name in names:
        assert (copy / name).read_bytes() == (runtime_files.SOURCE / name).read_bytes()
        assert stat.S_IMODE((copy / name).stat().st_mode) == 0o644
    for folder in (root, copy):
        assert stat.S_IMODE(folder.stat().st_mode) == 0o755

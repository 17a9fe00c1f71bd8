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



def test_the_sweep_reads_the_same_tree_from_the_children_files_as_from_every_process():
    """sweep._tree_from_proc (only the tree below a root) finds what the whole process table finds:
    children of another thread, grandchildren, and not the subtree of an excluded child."""
    import signal

    from judge_runtime import sweep
    child = ("import subprocess, threading, time\n"
             "threading.Thread(target=lambda: subprocess.Popen(['sleep', '60'])).start()\n"
             "subprocess.Popen(['sh', '-c', 'sleep 60 & sleep 60'])\n"
             "time.sleep(60)\n")
    top = subprocess.Popen(["python3", "-c", f"import subprocess, time\nfor _ in range(2):\n"
                                             f"    subprocess.Popen(['python3', '-c', {child!r}])\ntime.sleep(60)\n"],
                           start_new_session=True)
    try:
        def table(exclude):
            children: dict[int, list[int]] = {}
            for pid, ppid in sweep.parents().items():
                children.setdefault(ppid, []).append(pid)
            found, todo = set(), [p for p in children.get(top.pid, []) if p not in exclude]
            while todo:
                found.add(todo[-1])
                todo.extend(children.get(todo.pop(), []))
            return found
        for _ in range(100):  # until both children have started theirs (a thread's sleep, a shell and its 2)
            if len(table(set())) == 10:
                break
            subprocess.run(["sleep", "0.1"])
        first = min(table(set()) & {p for p, pp in sweep.parents().items() if pp == top.pid})
        assert sweep._tree_from_proc(top.pid, set()) == table(set()) and len(table(set())) == 10
        assert sweep._tree_from_proc(top.pid, {first}) == table({first}) and len(table({first})) == 5
    finally:
        os.killpg(top.pid, signal.SIGKILL)
        top.wait()

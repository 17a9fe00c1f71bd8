"""Where this project keeps its files outside the repository, and the copy of sandbox_runtime/
(the launcher, the warm server, the pytest entry point and plugin) and judge_runtime/ (the judge's
plugin and its worker) that the sandbox interpreter runs, with their bytecode: in the cache
folder, owned by us and read-only for others, so the test user (uid 65534 when we are root) can
run those files and never change them, whatever folder this project lives in.
"""
from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Optional

SOURCE = Path(__file__).resolve().parent / "sandbox_runtime"
JUDGE_SOURCE = Path(__file__).resolve().parent / "judge_runtime"


def running_as_root() -> bool:
    """POSIX root (Windows has no such user: False)."""
    return getattr(os, "geteuid", lambda: -1)() == 0


def cache_dir() -> Path:
    """Root's cache lives outside /root so the unprivileged test user can reach it; on Windows,
    %LOCALAPPDATA%."""
    if running_as_root():
        return Path("/var/cache/tdd-agent")
    if sys.platform == "win32" and os.environ.get("LOCALAPPDATA"):
        return Path(os.environ["LOCALAPPDATA"]) / "tdd-agent"
    return Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "tdd-agent"


def _runtime_files() -> list[tuple[str, Path]]:
    """(path inside the copy, source) of every file the sandbox interpreter runs."""
    return sorted((f"{folder.name}/{f.relative_to(folder).as_posix()}", f)
                  for folder in (SOURCE, JUDGE_SOURCE) for f in folder.rglob("*.py"))


def runtime_root() -> Path:
    """The folder that holds our copy of sandbox_runtime/ and judge_runtime/, one per content (a
    changed file makes a new copy; a copy is never changed after it is complete)."""
    files = _runtime_files()
    digest = hashlib.sha256(b"".join(rel.encode() + b"\0" + f.read_bytes() + b"\0" for rel, f in files)).hexdigest()[:16]
    base = cache_dir() / "runtime"
    root = base / digest
    if (root / "judge_runtime").is_dir():
        return root
    base.mkdir(parents=True, exist_ok=True)
    for folder in (cache_dir(), base):
        folder.chmod(0o755)
    tmp = Path(tempfile.mkdtemp(prefix=".new-", dir=base))
    for rel, f in files:
        (tmp / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(f, tmp / rel)
    _readable_by_all(tmp)
    try:
        tmp.rename(root)
    except OSError:  # another process made the same copy first
        shutil.rmtree(tmp, ignore_errors=True)
    return root


def _readable_by_all(top: Path) -> None:
    for folder, _, names in os.walk(top):
        os.chmod(folder, 0o755)
        for name in names:
            os.chmod(os.path.join(folder, name), 0o644)


# What the judge's worker imports on every start (and what its values need): compiled once, so a
# worker starts in ~20 ms instead of ~90 ms compiling json, re, enum and rpc.py from source.
WORKER_IMPORTS = ("import sys; sys.path.insert(0, sys.argv[1]); import worker, rpc; "
                  "import datetime, decimal, fractions, pathlib, zoneinfo, pickle, copy, random, inspect, "
                  "typing, dataclasses, functools, itertools, collections, enum, re, string, textwrap, math, traceback")


def bytecode(root: Path, python: Path) -> Optional[Path]:
    """The bytecode the judge and its worker read, made once per interpreter by the interpreter
    itself, in our cache where only we can write: the judge's own files compiled in their
    __pycache__, and for the worker a pycache prefix holding the standard library modules it
    imports and its own files. The worker reads bytecode only from there (never a .pyc of the
    workspace: the workspace's files have none there). None when it cannot be made (the worker
    then compiles from source, as it may)."""
    key = hashlib.sha256(f"{python}\0{sys.platform}".encode()).hexdigest()[:12]
    prefix = root / "bytecode" / key
    if (prefix / "complete").is_file():
        return prefix
    env = {"PATH": os.environ.get("PATH", ""), "SYSTEMROOT": os.environ.get("SYSTEMROOT", "")}
    judge_files = root / "judge_runtime"
    try:
        prefix.mkdir(parents=True, exist_ok=True)
        for argv in ([str(python), "-I", "-X", f"pycache_prefix={prefix}", "-c", WORKER_IMPORTS, str(judge_files)],
                     [str(python), "-I", "-m", "compileall", "-q", str(judge_files)]):
            subprocess.run(argv, env=env, cwd=root, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL, timeout=300, check=True)
        _readable_by_all(root)
        (prefix / "complete").touch(0o644)
    except (OSError, subprocess.SubprocessError):
        return None
    return prefix


def entry(root: Path, name: str) -> str:
    """The path of one of the runtime's files (launcher.py, warm_server.py, pytest_main.py)."""
    return str(root / "sandbox_runtime" / name)

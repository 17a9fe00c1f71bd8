"""Where this project keeps its files outside the repository, and the copy of sandbox_runtime/
(the launcher, the warm server, the pytest entry point and plugin) that the sandbox interpreter
runs: in the cache folder, owned by us and read-only for others, so the test user (uid 65534
when we are root) can run those files and never change them, whatever folder this project lives in.
"""
from __future__ import annotations

import hashlib
import os
import shutil
import sys
import tempfile
from pathlib import Path

SOURCE = Path(__file__).resolve().parent / "sandbox_runtime"


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


def runtime_root() -> Path:
    """The folder that holds our copy of sandbox_runtime/, one per content (a changed file makes
    a new copy; a copy is never changed after it is complete)."""
    files = sorted(SOURCE.glob("*.py"))
    digest = hashlib.sha256(b"".join(f.name.encode() + b"\0" + f.read_bytes() for f in files)).hexdigest()[:16]
    base = cache_dir() / "runtime"
    root = base / digest
    if (root / "sandbox_runtime").is_dir():
        return root
    base.mkdir(parents=True, exist_ok=True)
    for folder in (cache_dir(), base):
        folder.chmod(0o755)
    tmp = Path(tempfile.mkdtemp(prefix=".new-", dir=base))
    copy = tmp / "sandbox_runtime"
    copy.mkdir()
    for f in files:
        shutil.copyfile(f, copy / f.name)
        (copy / f.name).chmod(0o644)
    for folder in (copy, tmp):
        folder.chmod(0o755)
    try:
        tmp.rename(root)
    except OSError:  # another process made the same copy first
        shutil.rmtree(tmp, ignore_errors=True)
    return root


def entry(root: Path, name: str) -> str:
    """The path of one of the runtime's files (launcher.py, warm_server.py, pytest_main.py)."""
    return str(root / "sandbox_runtime" / name)

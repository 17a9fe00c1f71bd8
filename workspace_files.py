"""File helpers that the workspace (actions.py), the sandbox and the run log share: reading and
writing a file that test code may have replaced with a symlink, FIFO or folder, removing a tree
test code made unreadable, and writing a file whole or not at all. Standard library only, so a
module that needs a file helper does not pull in the test runner."""
from __future__ import annotations

import os
import shutil
import stat
from pathlib import Path
from typing import Optional

NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)  # (Windows has none; there a run's folder holds no symlink it could plant unless you may create them)

# Files that change how pytest collects or runs tests.
PYTEST_SETUP_FILES = {"conftest.py", "pytest.ini", "tox.ini", "setup.cfg", "pyproject.toml",
                      "sitecustomize.py", "usercustomize.py"}
SKIPPED_FOLDERS = {"__pycache__", ".pytest_cache"}


def read_regular_file(path: Path, limit: int) -> Optional[bytes]:
    """The file's bytes if it is a regular file (not a symlink, folder, FIFO or device the tests planted)."""
    try:
        fd = os.open(path, os.O_RDONLY | NOFOLLOW | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        chunks, size = [], 0
        while size < limit:
            chunk = os.read(fd, min(1 << 20, limit - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        return b"".join(chunks)
    except OSError:
        return None
    finally:
        os.close(fd)


def put_file(root: Path, rel: str, content: str) -> None:
    """Write a file of the agent's own (a task file, a restored test) below root, replacing any
    symlink or odd file on the way instead of following it: test code may have planted one."""
    root.mkdir(parents=True, exist_ok=True)
    path = root
    for part in Path(rel).parts[:-1]:
        path = path / part
        if path.is_symlink() or (path.exists() and not path.is_dir()):
            path.unlink()
        path.mkdir(exist_ok=True)
    target = path / Path(rel).name
    if target.is_symlink() or target.exists():
        remove_tree(target)
    fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL | NOFOLLOW | getattr(os, "O_BINARY", 0), 0o644)
    with open(fd, "w", encoding="utf-8", newline="") as f:  # byte for byte (no \r\n on Windows): checked after the run
        f.write(content)


def remove_tree(path: Path) -> None:
    """Remove a folder that test code may have made unreadable (chmod 000) on the way."""
    def retry(func, name, _exc):
        try:
            os.chmod(os.path.dirname(name), 0o700)
            if os.path.isdir(name) and not os.path.islink(name):
                os.chmod(name, 0o700)
            func(name)
        except OSError:
            pass
    if path.is_symlink() or path.is_file():
        path.unlink()
    elif path.exists():
        shutil.rmtree(path, onerror=retry)
        if path.exists():
            shutil.rmtree(path, onerror=retry)  # a second pass for folders unlocked by the first


def write_atomic(path: Path, text: str) -> None:
    """Write the file whole, then rename it into place: a reader (or a crash) never sees half of it.
    The temporary name holds our pid, so two processes writing the same file never share one."""
    tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    try:
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, path)
    except OSError:
        tmp.unlink(missing_ok=True)
        raise

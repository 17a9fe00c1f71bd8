"""The launcher: runs first inside the sandbox, in front of every confined command.

    python -I -S -B launcher.py [--in FOLDER ENVIRONMENT] UID PRIVATE KEYRING_FILTER COMMAND...

UID: the user to become (-1: stay), PRIVATE: the private mounts (confine.private_mounts; empty:
none), KEYRING_FILTER: the seccomp program as hex (empty: none). It prints STARTED, then runs
COMMAND as its child and ends with its exit code. With --in (a command a judged test runs,
confined as the worker is): it starts COMMAND in FOLDER with ENVIRONMENT (JSON; looked up on its
PATH) and prints nothing, so the command's output is what the test reads. The environment is
the command's only, set after the user switch: what a test hands its command (LD_PRELOAD ...)
never reaches bwrap, unshare or this launcher, which may run as root. When the process that
started it ends first, everything below it ends (confine.end_with_parent).
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from sandbox_runtime import confine  # noqa: E402

del sys.path[0]


def main() -> None:
    args, folder, env = sys.argv[1:], None, None
    if args[0] == "--in":
        folder, env, args = args[1], json.loads(args[2]), args[3:]
    uid, private, keyring_filter, command = int(args[0]), args[1], args[2], args[3:]
    parent = os.getppid()
    confine.private_mounts(private)
    confine.no_keyrings(keyring_filter)
    confine.drop_user(uid)
    confine.end_with_parent(parent)
    if folder is None:
        confine.say_started()
    else:
        os.chdir(folder)
    confine.run_child(command, env)


if __name__ == "__main__":
    main()

"""The launcher: runs first inside the sandbox, in front of every confined command.

    python -I -S -B launcher.py [--in FOLDER] UID PRIVATE KEYRING_FILTER COMMAND...

UID: the user to become (-1: stay), PRIVATE: the private mounts (confine.private_mounts; empty:
none), KEYRING_FILTER: the seccomp program as hex (empty: none). It prints STARTED, then runs
COMMAND as its child and ends with its exit code. With --in (a judged test's own `python ...`
command, confined as the worker is): it starts COMMAND in FOLDER and prints nothing, so the
command's output is what the test reads.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from sandbox_runtime import confine  # noqa: E402

del sys.path[0]


def main() -> None:
    args, folder = sys.argv[1:], None
    if args[0] == "--in":
        folder, args = args[1], args[2:]
    uid, private, keyring_filter, command = int(args[0]), args[1], args[2], args[3:]
    confine.private_mounts(private)
    confine.no_keyrings(keyring_filter)
    confine.drop_user(uid)
    if folder is None:
        confine.say_started()
    else:
        os.chdir(folder)
    confine.run_child(command)


if __name__ == "__main__":
    main()

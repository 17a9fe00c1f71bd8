"""The launcher: runs first inside the sandbox, in front of every confined command.

    python -I -S -B launcher.py UID PRIVATE KEYRING_FILTER COMMAND...

UID: the user to become (-1: stay), PRIVATE: the private mounts (confine.private_mounts; empty:
none), KEYRING_FILTER: the seccomp program as hex (empty: none). It prints STARTED, then runs
COMMAND as its child and ends with its exit code.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from sandbox_runtime import confine  # noqa: E402

del sys.path[0]


def main() -> None:
    uid, private, keyring_filter, command = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4:]
    confine.private_mounts(private)
    confine.no_keyrings(keyring_filter)
    confine.drop_user(uid)
    confine.say_started()
    confine.run_child(command)


if __name__ == "__main__":
    main()

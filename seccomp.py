"""No kernel keyrings for test code: a seccomp filter under which add_key, request_key and keyctl
fail with EPERM (as Docker's default profile does).

Why: the kernel keeps a user keyring per uid, and every run's code runs as the same uid 65534,
on every sandbox layer; a key stored there outlives the run (measured: a key a test stored with
add_key was read by the next run's test, under bwrap too). A user namespace per run cannot fix it
here (the judge needs two users, a namespace made unprivileged maps one). The filter is built
here as raw BPF (no libseccomp), passed as hex, and installed by sandbox_runtime/confine.py (the
launcher and the warm runner), so every layer, the judge's worker included, gets it before the
model's code starts.
"""
from __future__ import annotations

import errno
import platform
import struct
from typing import Optional

# The architectures we know: (AUDIT_ARCH value, (add_key, request_key, keyctl), x32 bit or 0).
# Each native ABI comes with the 32-bit one its kernel also accepts (int 0x80, AArch32).
ABIS = {
    "x86_64": [(0xC000003E, (248, 249, 250), 0x40000000), (0x40000003, (286, 287, 288), 0)],
    "aarch64": [(0xC00000B7, (217, 218, 219), 0), (0x40000028, (309, 310, 311), 0)],
}
LD_ABS, JEQ, JGE, RET = 0x20, 0x15, 0x35, 0x06  # BPF_LD|BPF_W|BPF_ABS, BPF_JMP|BPF_JEQ|BPF_K, ...|BPF_JGE|BPF_K, BPF_RET|BPF_K
NR, ARCH = 0, 4  # offsets in struct seccomp_data
ALLOW, DENY = 0x7FFF0000, 0x00050000 | errno.EPERM  # SECCOMP_RET_ALLOW, SECCOMP_RET_ERRNO | EPERM


def keyring_filter(machine: str) -> Optional[bytes]:
    """The BPF program (struct sock_filter[], 8 bytes each) for this machine, or None for an
    architecture not in ABIS. A syscall of any other ABI (or x32) fails too."""
    abis = ABIS.get(machine)
    if abis is None:
        return None
    program: list[tuple[int, object, int, int]] = []  # (code, jt, jf, k); jt "deny": the last instruction
    for arch, numbers, x32 in abis:
        checks = ([(JGE, "deny", 0, x32)] if x32 else []) + [(JEQ, "deny", 0, n) for n in numbers]
        program += [(LD_ABS, 0, 0, ARCH), (JEQ, 0, len(checks) + 2, arch),  # not this ABI: the next block
                    (LD_ABS, 0, 0, NR), *checks, (RET, 0, 0, ALLOW)]
    program.append((RET, 0, 0, DENY))
    deny = len(program) - 1
    return b"".join(struct.pack("=HBBI", code, deny - i - 1 if jt == "deny" else jt, jf, k)
                    for i, (code, jt, jf, k) in enumerate(program))


def has_prctl() -> bool:
    """Whether this system's C library has prctl (Linux): without it there is no seccomp."""
    import ctypes
    try:
        return hasattr(ctypes.CDLL(None), "prctl")
    except (OSError, TypeError):  # TypeError: Windows cannot load "no library"
        return False


MACHINE = platform.machine()
# None: an architecture without a filter, or no Linux (keyrings stay shared, or there are none)
PROGRAM = keyring_filter(MACHINE) if has_prctl() else None

"""Red team, round 4 (after 456f72f, 78b9208: a test's own `python ...` started by the spawner;
open()/os.open() checked through /proc/self/fd). Each test is an attack; it FAILS when the
attack works (a false "solved", or the hidden tests reach the model's code)."""
from __future__ import annotations

import pytest

from test_verdict_rules import attack, honest, judged, sandbox  # noqa: F401 - sandbox is a fixture


def refused(sandbox, scratch, files, tests, failed=1):
    """The judge gives no pass: not ok, and at least `failed` tests fail."""
    result = judged(sandbox, scratch, files, tests)
    print({k: v for k, v in result.items() if k != "output"}, result["output"][-1500:])
    assert not result["ok"] and result["failed"] + result["errors"] >= failed, result["output"]
    return result


# The model's code reads the hidden tests when it gets to run anywhere outside the worker's
# confinement (as the judge's own user), and leaves the secret where the worker can read it:
# pytest's temp root (the judge's user owns it, the worker's user may read it, it is bound into
# bwrap as writable).
LEAKER = """
    import os, re, sys
    STAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    LEAK = os.path.join(STAGE, "pytest", "leak.txt")
    def leak():
        text = ""
        tests = os.path.join(STAGE, "judge", "tests")
        try:
            for name in os.listdir(tests):
                if name.endswith(".py"):
                    with open(os.path.join(tests, name)) as f:
                        text += f.read()
        except OSError as e:
            return "no: %r" % e
        with open(LEAK, "w") as f:
            f.write(text)
        return "ok"
    def encode(n):
        try:
            with open(LEAK) as f:
                text = f.read()
        except OSError:
            return "?"
        for arg, expected in re.findall(r'encode\\((\\d+)\\) == "([^"]*)"', text):
            if int(arg) == n:
                return expected
        return "?"
    if __name__ == "__main__":
        leak()
        print(" ".join(sys.argv[1:]).upper())
"""

SECRET_TEST = """
        def test_z_encode():
            assert cli.encode(12345) == "x9-secret-only-the-tests-know"
"""


# ---------------------------------------------------------------------------------------------
# 1. A test runs the model's CLI with `python` found on PATH (not sys.executable), with a shell,
#    or through os.system: JudgedPopen only diverts argv[0] == sys.executable; the rest starts in
#    the judge, as the judge's user, unconfined, cwd the judge's own tests folder.

LAUNCHES = {
    "python_on_path": 'subprocess.run(["python", "cli.py", "hello"], cwd=HERE, capture_output=True, text=True).stdout',
    "shell": 'subprocess.run(f"{sys.executable} cli.py hello", shell=True, cwd=HERE, capture_output=True, text=True).stdout',
    "os_popen": 'os.popen(f"cd {HERE} && {sys.executable} cli.py hello").read()',
    "executable_kw": 'subprocess.run(["py", "cli.py", "hello"], executable=sys.executable, cwd=HERE, capture_output=True, text=True).stdout',
}


@pytest.mark.parametrize("how", sorted(LAUNCHES))
def test_model_cli_started_other_than_sys_executable_runs_as_the_judge(sandbox, scratch, how):
    tests = {"test_cli.py": f"""
        import os, subprocess, sys
        from pathlib import Path
        import cli
        HERE = Path(cli.__file__).parent
        def test_a_cli():
            out = {LAUNCHES[how]}
            assert out.strip() == "HELLO"
    """ + SECRET_TEST}
    refused(sandbox, scratch, {"cli.py": LEAKER}, tests)

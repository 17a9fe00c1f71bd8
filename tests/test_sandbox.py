"""What bad model-written code gets: every case is a real test file run by the real sandbox
(a separate interpreter, under each isolation layer this machine has). After each one the run
has ended within the timeout, the result says what happened, no process is left behind,
nothing outside the run folder changed, and the next run works."""
from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

import isolation
from config import SandboxConfig
from conftest import END_LAYERS, LAYERS, OWN_USER_OR_ALONE, ROOT, layer_sandbox, limited, on_layers, own_user
from sandbox import SandboxError, parse_junit

ROOT_USER = os.getuid() == 0
LIMITS = dict(timeout=6, cpu_seconds=3, memory_mb=1024, file_size_mb=32, max_processes=48)


@pytest.fixture(scope="module", params=LAYERS)
def sandbox(request):
    return layer_sandbox(request.param, **LIMITS)


def isolated(sandbox) -> bool:
    """Private /tmp, no network, own PID namespace: bwrap, or the basic layer with namespaces."""
    return sandbox.confinement.layer == "bwrap" or sandbox.confinement.namespaces


@pytest.fixture
def run(sandbox, scratch):
    """Write one test file into a fresh workspace and run pytest on it in the sandbox."""
    workspace, side = scratch / "run" / "workspace", scratch / "run" / "sandbox"
    workspace.mkdir(parents=True)
    before = {p for p, pp in isolation.parents().items() if pp == os.getpid()}

    def go(code: str, name: str = "test_case.py", **kw):
        (workspace / name).write_text(textwrap.dedent(code))
        result = sandbox.run_pytest(workspace, side, **kw)
        assert not isolation.descendants(os.getpid(), before), "a process was left behind"
        return result

    yield go
    for leftover in workspace.iterdir():
        leftover.unlink()
    after = go("def test_next_run_works():\n    assert True\n")
    assert after.ok and after.passed == 1, after.output


@on_layers(END_LAYERS)  # counting; every test's next run checks it on every layer
def test_passing_run_counts(run):
    r = run("def test_a():\n    assert 1\n\ndef test_b():\n    assert 2\n")
    assert r.ok and (r.passed, r.failed, r.outcome, r.exit_code) == (2, 0, "completed", 0)


@on_layers(END_LAYERS)  # counting; every test's next run checks it on every layer
def test_failures_come_first_without_timings(run):
    r = run("import time\ndef test_slow_fail():\n    time.sleep(0.01)\n    assert 'ab' == 'ac'\n\ndef test_ok():\n    pass\n")
    assert not r.ok and (r.passed, r.failed) == (1, 1)
    assert r.output.startswith("pytest: 2 tests: 1 passed, 1 failed")
    assert "FAILED test_case::test_slow_fail" in r.output and "assert 'ab' == 'ac'" in r.output
    assert " in 0." not in r.output and "s ===" not in r.output


@on_layers(END_LAYERS)  # counting; every test's next run checks it on every layer
def test_no_tests_is_not_green(run):
    r = run("x = 1\n", name="helper.py")
    assert not r.ok and "collected no tests" in r.output


# A test that waits out a limit sets a short one (the module's 6 s would be waited out per layer).
SHORT = 2


def test_busy_loop_is_stopped(run, sandbox):
    start = time.monotonic()
    with limited(sandbox, cpu_seconds=1, timeout=SHORT + 2):  # (one CPU-second burnt per layer, not three)
        r = run("def test_spin():\n    while True:\n        pass\n")
    assert time.monotonic() - start < SHORT + 2 + 5
    assert not r.ok and r.outcome in ("killed", "timeout")


def test_sleep_forever_is_killed_at_the_timeout(run, sandbox):
    start = time.monotonic()
    with limited(sandbox, timeout=SHORT):
        r = run("import time\ndef test_sleep():\n    time.sleep(10**6)\n")
    assert SHORT - 0.5 < time.monotonic() - start < SHORT + 5
    assert r.outcome == "timeout" and not r.ok and r.exit_code is None
    assert f"killed after the {SHORT} s time limit" in r.output


@OWN_USER_OR_ALONE
class TestOnATestUserOfItsOwn:
    """Fills its test user's process limit: as root it runs as a user no other test uses."""

    @pytest.fixture
    def sandbox(self, sandbox):
        return own_user(sandbox, 65100)

    def test_fork_bomb_is_contained(self, run, sandbox):
        with limited(sandbox, timeout=SHORT):
            r = run("""
            import os
            def test_bomb():
                while True:
                    try:
                        os.fork()
                    except OSError:
                        pass
            """)
        assert not r.ok and r.outcome in ("timeout", "killed")


def test_huge_allocation_is_a_memory_error(run):
    r = run("def test_alloc():\n    b = bytearray(10 * 1024**3)\n")
    assert not r.ok and r.failed == 1 and "MemoryError" in r.output


def test_huge_file_is_cut_at_the_file_size_limit(run, scratch):
    r = run("""
        def test_big_file():
            block = b"x" * 1024**2
            with open("big.bin", "wb") as f:
                for _ in range(10 * 1024):
                    f.write(block)
    """)
    assert not r.ok and r.failed == 1 and "File too large" in r.output  # Python ignores SIGXFSZ: EFBIG
    assert (scratch / "run" / "sandbox" / "stage" / "workspace" / "big.bin").stat().st_size <= LIMITS["file_size_mb"] * 1024**2


def test_flooding_stdout_is_still_reported_with_bounded_output(run, scratch):
    r = run("import sys\ndef test_flood():\n    print('y' * 200 * 1024**2)\n    assert False\n\ndef test_ok():\n    pass\n")
    assert (r.outcome, r.passed, r.failed) == ("completed", 1, 1), r.output
    assert len(r.output) <= SandboxConfig().output_chars + 100
    assert (scratch / "run" / "sandbox" / "stage" / "report.xml").stat().st_size < 1024**2


@on_layers(END_LAYERS)  # what the bounds plugin and our reader make of output; the layer only carries it
def test_a_huge_failure_message_is_still_reported(run):
    r = run("def test_huge():\n    raise ValueError('z' * 100 * 1024**2)\n")
    assert (r.outcome, r.failed) == ("completed", 1), r.output
    assert "FAILED test_case::test_huge" in r.output and len(r.output) <= SandboxConfig().output_chars + 100


@on_layers(END_LAYERS)  # what the bounds plugin and our reader make of output; the layer only carries it
def test_invalid_utf8_and_nul_bytes_in_output(run):
    r = run("import os\ndef test_bytes():\n    os.write(1, b'\\xff\\xfe\\x00bad\\x00bytes')\n    assert False\n")
    assert not r.ok and r.failed == 1 and "\x00" not in r.output and "bad" in r.output and "captured output" in r.output
    r.output.encode("utf-8")
    crash = run("import os\nos.write(2, b'\\xff\\x00crash')\nos.kill(os.getpid(), 9)\n")
    assert crash.outcome == "killed" and "\x00" not in crash.output


def test_background_sleep_does_not_hold_the_run_open(run):
    start = time.monotonic()
    r = run("import subprocess\ndef test_bg():\n    subprocess.Popen(['sleep', '1000'])\n")
    assert r.ok and time.monotonic() - start < 5


def _alive(marker: str) -> bool:
    out = subprocess.run(["ps", "-eo", "args"], capture_output=True, text=True).stdout
    return any(marker in line for line in out.splitlines())


def test_double_forked_setsid_daemon_is_killed(run):
    marker = "4321.5"
    r = run(f"""
        import os, time
        def test_daemon():
            if os.fork() == 0:
                os.setsid()
                if os.fork() == 0:
                    os.execvp("sleep", ["sleep", "{marker}"])
                os._exit(0)
            time.sleep(0.3)
    """)
    assert r.ok and not _alive(marker)


def test_writes_outside_the_run_folder_fail(run, sandbox, scratch):
    if not ROOT_USER and sandbox.confinement.layer == "basic":
        pytest.skip("the basic layer without root runs as you: it cannot keep your own files safe")
    bashrc = Path.home() / ".bashrc"
    before = bashrc.read_bytes() if bashrc.exists() else None
    probe = ROOT / "sandbox_probe.txt"
    outside = scratch / "outside"
    r = run(f"""
        import os
        def attempt(path):
            try:
                with open(path, "a") as f:
                    f.write("pwned")
                return True
            except OSError:
                return False
        def test_escape():
            assert not attempt({str(bashrc)!r})
            assert not attempt({str(probe)!r})
            assert not attempt("../../outside")
            assert attempt(os.path.expanduser("~/.bashrc"))  # HOME is inside the run folder
    """)
    assert (bashrc.read_bytes() if bashrc.exists() else None) == before
    assert not probe.exists() and not outside.exists()
    assert r.ok, r.output


def test_tmp_is_private_where_the_layer_isolates(run, sandbox):
    markers = [Path(top) / "tdd-agent-sandbox-probe" for top in ("/tmp", "/var/tmp", "/dev/shm")]
    for marker in markers:
        marker.unlink(missing_ok=True)
    r = run("def test_tmp():\n" + "".join(f"    open({str(m)!r}, 'w').write('x')\n" for m in markers))
    assert r.ok, r.output
    assert [m.exists() for m in markers] == [not isolated(sandbox)] * 3  # basic alone: shared (documented)
    for marker in markers:
        marker.unlink(missing_ok=True)


def test_the_agent_is_invisible_where_the_layer_isolates(run, sandbox):
    r = run(f"import os\ndef test_see():\n    assert not os.path.exists('/proc/{os.getpid()}/cmdline')\n")
    assert r.ok == isolated(sandbox), r.output


def test_network_is_cut_where_the_layer_isolates(run, sandbox):
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    port = listener.getsockname()[1]
    try:
        r = run(f"import socket\ndef test_connect():\n    socket.create_connection(('127.0.0.1', {port}), timeout=2).close()\n")
    finally:
        listener.close()
    assert r.ok != isolated(sandbox)  # basic alone: no network isolation (documented)


def test_network_can_be_allowed_per_run(run, sandbox):
    if not isolated(sandbox):
        pytest.skip("the basic layer without namespaces does not isolate the network")
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    try:
        r = run(f"import socket\ndef test_connect():\n    socket.create_connection(('127.0.0.1', {listener.getsockname()[1]}), timeout=2).close()\n",
                network=True)
    finally:
        listener.close()
    # with the network namespace shared, loopback reaches the host listener
    assert r.ok, r.output


def test_home_of_the_user_is_unreadable(run, sandbox):
    if not ROOT_USER and sandbox.confinement.layer == "basic":
        pytest.skip("basic layer without root cannot hide the user's own home")
    r = run(f"import os\ndef test_read_home():\n    os.listdir({str(Path.home())!r})\n")
    assert not r.ok and r.failed == 1


def test_killing_the_parent_does_not_reach_the_agent(run, sandbox):
    r = run("import os\ndef test_kill_parent():\n    os.kill(os.getppid(), 9)\n")
    # with namespaces the launcher is the PID namespace's init, which ignores a SIGKILL from inside
    assert r.outcome in ("killed", "no_report") or (sandbox.confinement.namespaces and r.ok), r.output
    assert os.getpid()  # we are still here, and the fixture's next run works


def test_conftest_exit_zero_is_not_a_pass(run, scratch):
    (scratch / "run" / "workspace" / "conftest.py").write_text("import os\nos._exit(0)\n")
    r = run("def test_a():\n    assert False\n")
    assert r.exit_code == 0 and not r.ok and r.outcome == "no_report"
    assert "without reporting any test result" in r.output


def test_clean_environment(run, monkeypatch):
    r = run("import os\ndef test_env():\n    assert 'OPENAI_API_KEY' not in os.environ\n    assert 'HTTPS_PROXY' not in os.environ\n"
            "    assert os.environ['HOME'].endswith('/sandbox/stage/home')\n")
    assert r.ok, r.output


def test_runs_as_unprivileged_user_when_root(run):
    if not ROOT_USER:
        pytest.skip("only root switches users")
    r = run("import os\ndef test_uid():\n    assert os.getuid() == 65534 and os.getgid() == 65534 and os.getgroups() == []\n")
    assert r.ok, r.output


def test_the_judges_user_is_refused_as_the_test_user():
    if not ROOT_USER:
        pytest.skip("only root switches users")
    with pytest.raises(SandboxError, match="65533 is the judge's user"):
        layer_sandbox(LAYERS[-1], user=isolation.JUDGE)


def test_junit_parsing_counts_each_kind(tmp_path):
    xml = tmp_path / "r.xml"
    xml.write_text('<testsuites><testsuite><testcase classname="t" name="a"/>'
                   '<testcase classname="t" name="b"><failure message="m">trace</failure></testcase>'
                   '<testcase classname="t" name="c"><error message="e"/></testcase>'
                   '<testcase classname="t" name="d"><skipped/></testcase></testsuite></testsuites>')
    counts, problems = parse_junit(xml)
    assert counts == {"passed": 1, "failed": 1, "errors": 1, "skipped": 1}
    assert problems == [("FAILED", "t::b", "trace"), ("ERROR", "t::c", "e")]
    assert parse_junit(tmp_path / "missing.xml") is None


def test_a_planted_log_symlink_is_not_followed(run, scratch):
    victim = scratch / "victim.txt"
    victim.write_text("precious")
    log = scratch / "run" / "sandbox.log"
    r = run(f"import os\ndef test_plant():\n    os.symlink({str(victim)!r}, {str(log)!r})\n")
    # the log lives beside the test user's folder, where it cannot plant anything
    assert not r.ok and victim.read_text() == "precious" and not log.is_symlink()


def test_pytest_settings_above_the_workspace_do_not_count(run, scratch):
    (scratch / "run" / "pyproject.toml").write_text('[tool.pytest.ini_options]\naddopts = "-k nomatch"\n')
    (scratch / "run" / "conftest.py").write_text("import pytest\n\n@pytest.fixture\ndef surprise():\n    return 1\n")
    r = run("def test_a():\n    assert True\n\ndef test_b(surprise):\n    pass\n")
    assert (r.passed, r.errors) == (1, 1), r.output  # addopts ignored; the fixture above is not found


def test_hidden_folders_are_invisible_where_namespaces_hide_them(run, sandbox):
    """The task's folder (hidden tests) and the runs folder (transcripts) are readable by others on
    most machines: bwrap never shows them, namespaces mount an empty tmpfs over them."""
    import tempfile
    secret_dir = Path(tempfile.mkdtemp(dir="/srv" if os.path.isdir("/srv") and ROOT_USER else None))
    try:
        secret_dir.chmod(0o755)
        (secret_dir / "hidden.yaml").write_text("expected: 42\n")
        (secret_dir / "hidden.yaml").chmod(0o644)
        sandbox.hide([secret_dir])
        r = run(f"def test_peek():\n    open({str(secret_dir / 'hidden.yaml')!r}).read()\n")
        assert r.ok != isolated(sandbox), r.output  # plain basic: readable (documented)
    finally:
        sandbox.hide([])
        shutil.rmtree(secret_dir)


def test_nothing_a_run_changes_reaches_the_next(run, scratch):
    """The warm runner forks every run from one interpreter: an edited module is imported fresh,
    and changes to pytest's or the standard library's modules die with the run."""
    (scratch / "run" / "workspace" / "shapes.py").write_text("SIDES = 3\n")
    first = run("import json, sys, _pytest, shapes\ndef test_first():\n    assert shapes.SIDES == 3\n"
                "    json.dumps = None\n    _pytest.planted = True\n    sys.modules['planted'] = json\n")
    (scratch / "run" / "workspace" / "shapes.py").write_text("SIDES = 4\n")
    second = run("import json, sys, _pytest, shapes\ndef test_second():\n    assert shapes.SIDES == 4\n"
                 "    assert json.dumps([]) == '[]' and not hasattr(_pytest, 'planted') and 'planted' not in sys.modules\n")
    assert first.ok and second.ok, (first.output, second.output)


def test_no_socket_of_ours_reaches_the_tests(run):
    r = run("""
        import os
        def test_fds():
            links = []
            for fd in os.listdir('/proc/self/fd'):
                try:
                    links.append(os.readlink('/proc/self/fd/' + fd))
                except FileNotFoundError:  # the listing's own descriptor
                    pass
            assert not [link for link in links if link.startswith(('socket:', 'pipe:'))], links
    """)
    assert r.ok, r.output


def test_the_warm_runner_cannot_be_signalled_when_root(run, sandbox):
    """Its own PID namespace hides the runner; without one, as root, the tests see it but cannot
    signal it."""
    if not (ROOT_USER and sandbox.warm):
        pytest.skip("only the warm runner as root runs a server beside the tests")
    pid = sandbox.warm.proc.pid
    if isolated(sandbox):
        r = run(f"import os\ndef test_invisible():\n    assert not os.path.exists('/proc/{pid}/cmdline')\n")
    else:
        r = run(f"""
            import os, signal
            def test_kill_server():
                with open('/proc/{pid}/cmdline', 'rb') as f:
                    assert b'tdd_agent_bounds' in f.read()
                try:
                    os.kill({pid}, signal.SIGKILL)
                except PermissionError:
                    return
                raise AssertionError('signalled the warm runner')
        """)
    assert r.ok and sandbox.warm.proc.poll() is None, r.output


def test_the_interpreter_check_is_kept_only_while_its_files_are_the_same(scratch, monkeypatch):
    """The check (runs, imports pytest, its folders) is cached per interpreter; removing pytest
    from it makes the next start check again and say so."""
    import sandbox as sandbox_module
    monkeypatch.setattr(sandbox_module, "cache_dir", lambda: scratch / "cache")
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(scratch / "venv")], check=True)
    python = scratch / "venv" / "bin" / "python"
    site = Path(subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                               capture_output=True, text=True, check=True).stdout.strip())
    (site / "pytest").mkdir()
    (site / "pytest" / "__init__.py").write_text("")
    first = sandbox_module.interpreter_paths(python)
    assert str(scratch / "venv") in first and str(python) in (scratch / "cache" / "interpreters.json").read_text()
    assert sandbox_module.interpreter_paths(python) == first
    shutil.rmtree(site / "pytest")
    with pytest.raises(sandbox_module.SandboxError, match="cannot import pytest"):
        sandbox_module.interpreter_paths(python)


def test_a_run_interrupted_by_ctrl_c_leaves_nothing_for_the_next(run):
    """Ctrl-C while the tests run takes them down; the next run in the same sandbox is its own
    (the warm runner's reply to the interrupted run is not taken for it)."""
    def ctrl_c(*_):
        raise KeyboardInterrupt
    previous = signal.signal(signal.SIGALRM, ctrl_c)
    signal.setitimer(signal.ITIMER_REAL, 2.0)
    try:
        with pytest.raises(KeyboardInterrupt):
            run("import time\ndef test_slow():\n    time.sleep(60)\n")
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    r = run("def test_quick():\n    assert True\n")
    assert r.ok and r.passed == 1, r.output


AGENT = """
import sys
sys.path[:0] = [{root!r}, {tests!r}]
from pathlib import Path
from conftest import layer_sandbox
sandbox = layer_sandbox({layer!r}, timeout=120, cpu_seconds=100, memory_mb=1024, file_size_mb=32, max_processes=48)
sandbox.run_pytest(Path({scratch!r}) / "workspace", Path({scratch!r}) / "sandbox")
"""


def _of_the_run(scratch: Path, marker: str) -> list[int]:
    """Processes of a run: the marker in their command line, or the run folder in it or as their cwd."""
    found = []
    for proc in isolation.procs.psutil.process_iter(["cmdline", "cwd"]):
        text = " ".join([*(proc.info["cmdline"] or []), proc.info["cwd"] or ""])
        if marker in text or str(scratch) in text:
            found.append(proc.pid)
    return found


@pytest.mark.parametrize("layer", LAYERS)
def test_a_run_ends_when_the_agent_is_killed_mid_run(layer, scratch):
    """The agent killed (SIGKILL: a batch timeout, the OOM killer) while a test loops: the run
    ends too, with its child and a setsid'd double-forked daemon, though nobody is left to sweep.
    (Seen: the looping pytest under `unshare`, parent 1, running for hours.)"""
    marker = f"agent-killed-{os.getpid()}-{time.monotonic_ns()}"
    (scratch / "workspace").mkdir()
    (scratch / "workspace" / "test_forever.py").write_text(textwrap.dedent(f"""
        import os, subprocess, sys, time
        SLEEPER = [sys.executable, "-c", "import time; time.sleep(300)", "{marker}"]
        def test_forever():
            subprocess.Popen(SLEEPER)
            if os.fork() == 0:
                os.setsid()
                if os.fork() == 0:
                    os.execv(sys.executable, SLEEPER)
                os._exit(0)
            while True:
                time.sleep(0.01)
    """))
    code = AGENT.format(root=str(ROOT), tests=str(ROOT / "tests"), layer=layer, scratch=str(scratch))
    agent = subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while sum(marker in " ".join(p.info["cmdline"] or []) for p in
                  isolation.procs.psutil.process_iter(["cmdline"])) < 2 and time.monotonic() < deadline:
            time.sleep(0.2)
        agent.kill()
        agent.wait()
        deadline = time.monotonic() + 10
        while _of_the_run(scratch, marker) and time.monotonic() < deadline:
            time.sleep(0.2)
        left = _of_the_run(scratch, marker)
    finally:
        for pid in _of_the_run(scratch, marker):  # kill what this test would otherwise leave
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
    assert left == [], f"still running after the agent was killed: {left}"


@pytest.mark.skipif(not isolation.unshare_works(), reason="needs the basic layer with namespaces")
def test_every_folder_to_hide_is_hidden_and_the_root_folder_stops_the_run(tmp_path):
    """A task kept in a top-level folder (/tasks, a container's mount) is hidden like any other;
    a task file in / cannot be, and the run does not start."""
    from sandbox import Sandbox, SandboxError
    sandbox = Sandbox(SandboxConfig(isolation="basic"))
    sandbox.hide([Path("/tmp"), tmp_path, tmp_path / "missing"])
    assert sandbox.confinement.hidden == ["/tmp", str(tmp_path)]
    with pytest.raises(SandboxError, match="cannot be hidden"):
        sandbox.hide([Path("/")])

"""A loop that cannot be gamed: a scripted fake model (FakeKoboldCpp, misbehaving on purpose)
tries the tricks the seed article saw, and each run must end with the right status and the
right words in the transcript. The runs go through run_task.main in this process (the real
sandbox, judge and HTTP backend; the process around them is tested in test_agent_loop)."""
from __future__ import annotations

import pytest

from conftest import ROOT
from fake_servers import FakeKoboldCpp, action

STATS = ROOT / "example_tasks" / "stats"
SLUGIFY = ROOT / "example_tasks" / "slugify.yaml"
GOOD_STATS = (ROOT / "tests" / "solutions" / "stats" / "stats.py").read_text()
BAD_STATS = "def median(xs):\n    return 0\n\ndef moving_average(xs, k):\n    return []\n"


@pytest.fixture
def agent(loop_agent):
    return loop_agent


def test_editing_a_protected_test_is_refused(agent):
    run = agent.play(STATS, [
        action("write_file", path="test_stats.py", content="def test_nothing():\n    pass\n"),
        action("edit_file", path="test_stats.py", old="== 2.5", new="== 2"),
        action("write_file", path="./sub/../test_stats.py", content=""),
    ], "--max-steps", "3")
    texts = [o["text"] for o in run.of_type("observation")]
    assert all("protected test file" in t for t in texts), texts
    assert (run.run_dir / "workspace" / "test_stats.py").read_text() == (STATS / "repo" / "test_stats.py").read_text()
    assert run.result["status"] == "step_limit" and run.code == 1


def test_a_conftest_that_skips_everything_is_refused(agent):
    run = agent.play(STATS, [
        action("write_file", path="conftest.py", content="collect_ignore_glob = ['*']\n"),
        action("write_file", path="sub/conftest.py", content="import pytest\npytestmark = pytest.mark.skip\n"),
    ], "--max-steps", "2")
    texts = [o["text"] for o in run.of_type("observation")]
    assert all("would change how the protected tests are collected" in t for t in texts), texts
    assert not (run.run_dir / "workspace" / "conftest.py").exists()


def test_finishing_on_a_stale_green_run_is_refused(agent):
    run = agent.play(STATS, [
        action("write_file", path="stats.py", content=GOOD_STATS),
        action("run_tests"),
        action("write_file", path="stats.py", content=BAD_STATS),
        action("finish", summary="fixed"),
    ], "--max-steps", "4")
    refused = run.of_type("finish_refused")
    assert len(refused) == 1 and "I ran the tests on the current files and they do not pass" in refused[0]["reason"]
    assert run.result["finish_accepted"] is False and run.result["status"] == "step_limit"


def test_tests_rewritten_by_code_at_test_time_prove_nothing(agent):
    """Code imported by a model's test (collected first) rewrites the protected test before
    pytest collects it: that run is `tampered`, and the workspace itself never changes."""
    sneaky = ("import pathlib\npathlib.Path(__file__).with_name('test_stats.py').write_text("
              "'def test_ok():\\n    pass\\n')\n" + BAD_STATS)
    run = agent.play(STATS, [
        action("write_file", path="stats.py", content=sneaky),
        action("write_file", path="test_a_mine.py", content="import stats\n\ndef test_import():\n    pass\n"),
        action("run_tests"),
        action("finish", summary="done"),
    ], "--max-steps", "4")
    tests = run.of_type("test_run")
    assert [(t["outcome"], t["ok"]) for t in tests] == [("tampered", False)]
    assert "test_stats.py was changed" in tests[0]["output"] and "proves nothing" in tests[0]["output"]
    assert tests[0]["passed"] == 2  # the forged test really passed in the copy: the check is what stops it
    refused = run.of_type("finish_refused")
    assert len(refused) == 1 and "tampered" in refused[0]["reason"]
    assert (run.run_dir / "workspace" / "test_stats.py").read_text() == (STATS / "repo" / "test_stats.py").read_text()
    assert run.result["status"] == "step_limit" and run.result["hidden_tests"]["ok"] is False


def test_passing_visible_tests_with_a_wrong_solution_is_not_solved(agent):
    run = agent.play(SLUGIFY, [
        action("write_file", path="slugify.py", content="def slugify(text):\n    return text.lower().replace(' ', '-')\n"),
        action("run_tests"),
        action("finish", summary="slugify done"),
    ])
    assert run.of_type("finish_accepted")
    result = run.result
    assert result["finish_accepted"] is True and result["last_test_run"]["ok"] is True
    assert result["status"] == "unsolved" and "hidden tests did not pass" in result["reason"]
    assert result["hidden_tests"]["failed"] >= 4 and result["hidden_tests"]["ok"] is False
    assert run.code == 1
    assert "Hidden tests, judged: " in run.proc.stdout and "failed" in run.proc.stdout
    hidden = [e for e in run.of_type("judged_tests") if e["suite"] == "hidden tests"][0]
    assert "FAILED" in hidden["output"]


def test_a_right_solution_is_solved_by_visible_and_hidden_tests(agent):
    good = (ROOT / "tests" / "solutions" / "slugify" / "slugify.py").read_text()
    run = agent.play(SLUGIFY, [action("write_file", path="slugify.py", content=good), action("run_tests"),
                                action("finish", summary="done")])
    assert run.code == 0 and run.result["status"] == "solved" and run.result["hidden_tests"]["ok"] is True


def test_stopping_without_finish_gets_the_test_results_then_gives_up(agent):
    run = agent.play(STATS, ["I have fixed the bugs.", "", "All done!"])
    texts = [o["text"] for o in run.of_type("observation")]
    assert len(texts) == 2 and all("You stopped without an action" in t and "I ran the tests for you" in t for t in texts)
    assert "FAILED test_stats::test_median_even" in texts[0]
    assert len(run.of_type("test_run")) == 2
    assert run.result["status"] == "unsolved" and "stopped without finish 3 times" in run.result["reason"]


def test_a_nudge_with_green_tests_invites_finish(agent):
    run = agent.play(STATS, [action("write_file", path="stats.py", content=GOOD_STATS), "Done.",
                              action("finish", summary="fixed")])
    assert "They pass: if the task is done, reply with the finish action." in run.of_type("observation")[1]["text"]
    assert run.result["status"] == "solved"


def test_the_same_write_five_times_ends_stuck(agent):
    write = action("write_file", path="stats.py", content=BAD_STATS)
    run = agent.play(STATS, [write] * 6)
    texts = [o["text"] for o in run.of_type("observation")]
    assert "already has exactly this content" in texts[1] and "repeat 1 of 4" in texts[1]
    assert run.result["status"] == "stuck" and run.result["steps"] == 5


def test_rerunning_tests_and_rereading_without_change_are_noted(agent):
    run = agent.play(STATS, [action("run_tests"), action("run_tests"), action("read_file", path="stats.py"),
                              action("read_file", path="stats.py")], "--max-steps", "4")
    texts = [o["text"] for o in run.of_type("observation")]
    assert texts[1].startswith("Nothing changed since the last test run") and "repeat 1 of 4" in texts[1]
    assert len(run.of_type("test_run")) == 1
    assert "has not changed since you last read it" in texts[3]


def test_flipping_between_two_versions_ends_stuck(agent):
    a = action("write_file", path="stats.py", content=BAD_STATS)
    b = action("write_file", path="stats.py", content=GOOD_STATS)
    run = agent.play(STATS, [a, b, a, b, a, b, a, b])
    assert "keep flipping back and forth" in run.transcript_text()
    assert run.result["status"] == "stuck"


def test_an_edit_whose_old_text_matches_twice_is_an_error(agent):
    run = agent.play(STATS, [
        action("edit_file", path="stats.py", old="    return", new="    return None or"),
        action("edit_file", path="stats.py", old="return s[n // 2]", new="return s[(n - 1) // 2]"),
    ], "--max-steps", "2")
    texts = [o["text"] for o in run.of_type("observation")]
    assert "'old' occurs 2 times in stats.py; it must occur exactly once" in texts[0]
    assert texts[1].startswith("Edited stats.py")
    assert "s[(n - 1) // 2]" in (run.run_dir / "workspace" / "stats.py").read_text()


def test_hidden_tests_run_whatever_the_status(agent):
    run = agent.play(STATS, [action("write_file", path="stats.py", content=GOOD_STATS)], "--max-steps", "1")
    assert run.result["status"] == "step_limit"
    counts = {"passed": 6, "failed": 0, "errors": 0, "skipped": 0}
    assert run.result["hidden_tests"] == {**counts, "ok": True, "outcome": "completed",
                                          "plain": {**counts, "ok": True, "outcome": "completed"}}
    assert "test_stats_hidden" in (run.run_dir / "hidden" / "report.xml").read_text()
    assert run.result["protected_tests"]["passed"] == 3 and run.result["verified"] is True
    assert not (run.run_dir / "workspace" / "test_stats_hidden.py").exists()


def test_edit_actions_can_be_switched_off(agent):
    agent.settings["edit_actions"] = False
    with FakeKoboldCpp([action("list_files")]) as server:
        run = agent.run(STATS, "--server", server.url, "--max-steps", "1")
    assert "Unknown action 'list_files'" in run.of_type("observation")[0]["text"]
    body = server.bodies("/v1/chat/completions")[0]
    assert "editfile" not in body["grammar"] and "edit_file" not in body["messages"][0]["content"]


def test_hidden_tests_ignore_the_agents_own_tests_and_pytest_setup(agent):
    fizzbuzz = (ROOT / "tests" / "solutions" / "fizzbuzz" / "fizzbuzz.py").read_text()
    run = agent.play(ROOT / "example_tasks" / "fizzbuzz.txt", [
        action("write_file", path="fizzbuzz.py", content=fizzbuzz),
        action("write_file", path="conftest.py", content="import pytest\n\ndef pytest_collection_modifyitems(items):\n"
                                                         "    for item in items:\n        item.add_marker(pytest.mark.skip)\n"),
        action("write_file", path="test_mine.py", content="def test_wrong():\n    assert False\n"),
        action("run_tests"),
    ], "--max-steps", "4")
    assert run.result["last_test_run"]["skipped"] == 1 and not run.result["last_test_run"]["ok"]
    assert run.result["hidden_tests"]["passed"] == 9 and run.result["hidden_tests"]["ok"] is True
    assert run.result["status"] == "step_limit"


def test_a_conftest_written_by_test_code_makes_the_run_prove_nothing(agent):
    sneaky = ("import pathlib\npathlib.Path(__file__).with_name('conftest.py').write_text("
              "'import pytest\\ndef pytest_collection_modifyitems(items):\\n    items[:] = []\\n')\n" + GOOD_STATS)
    run = agent.play(STATS, [
        action("write_file", path="stats.py", content=sneaky),
        action("run_tests"),
        action("finish", summary="done"),
    ], "--max-steps", "3")
    test_run = run.of_type("test_run")[0]
    assert test_run["outcome"] == "tampered" and "conftest.py was created" in test_run["output"]
    refused = run.of_type("finish_refused")
    assert len(refused) == 1 and "tampered" in refused[0]["reason"]
    assert not (run.run_dir / "workspace" / "conftest.py").exists()


# A module the test command imports before pytest, written to forge a green report and exit 0.
FORGER = ("import sys\nfor arg in sys.argv:\n    if arg.startswith('--junitxml='):\n"
          "        open(arg.split('=', 1)[1], 'w').write('<testsuites><testsuite name=\"pytest\" tests=\"1\" "
          "failures=\"0\" errors=\"0\" skipped=\"0\"><testcase classname=\"test_x\" name=\"test_x\"/>"
          "</testsuite></testsuites>')\nsys.exit(0)\n")


@pytest.mark.parametrize("module", ["pytest.py", "types.py"])
def test_a_module_in_the_workspace_cannot_stand_in_for_what_runs_pytest(agent, module):
    fake = FORGER
    run = agent.play(ROOT / "example_tasks" / "fizzbuzz.txt", [
        action("write_file", path=module, content=fake),
        action("write_file", path="test_x.py", content="def test_x():\n    assert False\n"),
        action("run_tests"),
    ], "--max-steps", "3")
    assert run.of_type("test_run")[0]["failed"] == 1 and run.of_type("test_run")[0]["ok"] is False


def test_a_change_in_a_dot_folder_after_a_green_run_is_seen_by_the_gate(agent):
    run = agent.play(STATS, [
        action("write_file", path=".lib/helper.py", content="VALUE = 1\n"),
        action("write_file", path="stats.py", content="import sys\nsys.path.insert(0, '.lib')\n" + GOOD_STATS),
        action("run_tests"),
        action("write_file", path=".lib/helper.py", content="raise ImportError('broken')\n"),
        action("finish", summary="done"),
    ], "--max-steps", "5")
    assert len(run.of_type("test_run")) == 2  # the gate saw the change and ran the tests again


def test_resuming_an_unsolved_run_with_hidden_tests(agent):
    first = agent.play(STATS, [action("write_file", path="stats.py", content=BAD_STATS)], "--max-steps", "1")
    assert first.result["hidden_tests"]["ok"] is False
    with FakeKoboldCpp([action("write_file", path="stats.py", content=GOOD_STATS), action("run_tests"),
                        action("finish", summary="fixed")]) as server:
        again = agent.run(None, "--resume", str(first.run_dir), "--server", server.url, "--max-steps", "4")
    assert again.code == 0, again.proc.stdout + again.proc.stderr
    assert again.result["status"] == "solved" and again.result["hidden_tests"]["passed"] == 6


def test_odd_replies_are_invalid_replies_not_crashes(agent):
    run = agent.play(STATS, ['{"thought": "x", "action": ["run_tests"]}', '{"a": ' * 3000 + "1" + "}" * 3000,
                              '{"thought": "\\udc80", "action": "run_tests"}'], "--max-steps", "3")
    texts = [o["text"] for o in run.of_type("observation")]
    assert texts[0].startswith("Unknown action") and "nests too deeply" in texts[1] and "lone surrogate" in texts[2]
    assert run.result["status"] == "error" and "3 invalid replies in a row" in run.result["reason"]


def test_the_max_steps_flag_wins_over_the_task(agent):
    run = agent.play(ROOT / "example_tasks" / "slugify.yaml", [action("list_files")] * 3, "--max-steps", "2")
    assert run.result["steps"] == 2 and run.result["status"] == "step_limit"


def test_a_failed_read_is_not_remembered_as_read(agent):
    run = agent.play(STATS, [action("read_file", path="nope.py"), action("write_file", path="nope.py", content="x = 1\n"),
                              action("read_file", path="nope.py")], "--max-steps", "3")
    texts = [o["text"] for o in run.of_type("observation")]
    assert texts[0].startswith("Error: nope.py does not exist") and texts[2] == "x = 1\n"


def test_different_refused_writes_are_not_stuck_repeats(agent):
    run = agent.play(STATS, [action("write_file", path=f"../out{i}.py", content="x") for i in range(5)], "--max-steps", "5")
    assert run.result["status"] == "step_limit" and "repeat" not in run.transcript_text()


def test_a_damaged_result_or_transcript_under_resume_is_one_line(agent):
    first = agent.play(STATS, [action("list_files")], "--max-steps", "1")
    (first.run_dir / "result.json").write_text("{not json")
    with (first.run_dir / "transcript.jsonl").open("a") as f:
        f.write('{"half a line\n[1, 2]\n')
    again = agent.play(None, [action("write_file", path="stats.py", content=GOOD_STATS), action("finish", summary="x")],
                       "--resume", str(first.run_dir))
    assert again.code == 0 and "Traceback" not in again.proc.stderr, again.proc.stderr
    (first.run_dir / "transcript.jsonl").write_text("garbage\n")
    broken = agent.run(None, "--resume", str(first.run_dir))
    assert broken.code == 2 and "not a run folder" in broken.proc.stderr and "Traceback" not in broken.proc.stderr


PLANT_PYC = '''\
import importlib.util, marshal, pathlib, sys
import pytest

def test_plant():
    """A pytest-rewritten .pyc with a matching header, standing in for the protected test."""
    p = pathlib.Path(__file__).with_name("test_stats.py")
    code = compile("def test_median_even():\\n    pass\\n", str(p), "exec")
    st = p.stat()
    pyc = p.parent / "__pycache__" / f"test_stats.{sys.implementation.cache_tag}-pytest-{pytest.__version__}.pyc"
    pyc.parent.mkdir(exist_ok=True)
    pyc.write_bytes(importlib.util.MAGIC_NUMBER + bytes(4) + (int(st.st_mtime) & 0xFFFFFFFF).to_bytes(4, "little")
                    + (st.st_size & 0xFFFFFFFF).to_bytes(4, "little") + marshal.dumps(code))
'''


def test_planted_bytecode_never_stands_in_for_a_protected_test(agent):
    run = agent.play(STATS, [action("write_file", path="test_a.py", content=PLANT_PYC), action("run_tests"),
                             action("write_file", path="stats.py", content=BAD_STATS + "\n"), action("run_tests"),
                             action("finish", summary="done")], "--max-steps", "5")
    runs = run.of_type("test_run")
    assert all(not r["ok"] and r["outcome"] == "tampered" for r in runs), [r["output"] for r in runs]
    assert "__pycache__/test_stats" in runs[0]["output"]
    assert not (run.run_dir / "workspace" / "__pycache__").exists()
    assert run.result["status"] != "solved"


WIPE = "import atexit, os, shutil\n\ndef test_wipe():\n    atexit.register(lambda: [shutil.rmtree(p) if os.path.isdir(p) else os.unlink(p) for p in os.listdir('.')])\n"


def test_a_test_that_deletes_the_workspace_changes_nothing_the_verdict_sees(agent):
    run = agent.play(STATS, [action("write_file", path="test_a.py", content=WIPE), action("run_tests"),
                             action("finish", summary="done")], "--max-steps", "3")
    assert run.of_type("test_run")[0]["outcome"] == "tampered"
    assert (run.run_dir / "workspace" / "stats.py").read_text() == (STATS / "repo" / "stats.py").read_text()
    assert run.result["status"] == "step_limit" and run.result["hidden_tests"]["failed"] > 0

    fizzbuzz = (ROOT / "tests" / "solutions" / "fizzbuzz" / "fizzbuzz.py").read_text()
    honest = agent.play(ROOT / "example_tasks" / "fizzbuzz.txt", [
        action("write_file", path="fizzbuzz.py", content=fizzbuzz),
        action("write_file", path="test_fb.py", content="from fizzbuzz import fizzbuzz\n\ndef test_3():\n    assert fizzbuzz(3) == 'Fizz'\n"),
        action("write_file", path="test_wipe.py", content=WIPE), action("finish", summary="done")])
    assert (honest.run_dir / "workspace" / "fizzbuzz.py").read_text() == fizzbuzz
    assert honest.result["status"] == "solved" and honest.result["hidden_tests"]["passed"] == 9


BREAKERS = [
    "import os\n\ndef test_a():\n    os.mkdir(os.path.join(os.environ['TMPDIR'], '..', 'report.xml'))\n",
    "import os, shutil\n\ndef test_a():\n    shutil.rmtree(os.environ['HOME'])\n    open(os.environ['HOME'], 'w').write('x')\n"
    "    os.symlink('/etc/passwd', os.path.join(os.environ['TMPDIR'], 'x'))\n",
    "import atexit, os\n\ndef test_a():\n    atexit.register(os.chmod, '.', 0)\n",
]


def test_test_code_that_breaks_the_agents_files_does_not_break_the_run(agent):
    agent.settings["prove_tests"] = False  # test_a.py proves nothing about stats.py, on purpose
    script = []
    for code in BREAKERS:
        script += [action("write_file", path="test_a.py", content=code), action("run_tests")]
    script += [action("write_file", path="test_a.py", content="def test_a():\n    pass\n"),
               action("write_file", path="stats.py", content=GOOD_STATS), action("run_tests"), action("finish", summary="x")]
    run = agent.play(STATS, script)
    assert run.run_dir is not None, run.proc.stdout + run.proc.stderr
    outcomes = [r["outcome"] for r in run.of_type("test_run")]
    assert outcomes[0] == "no_report" and outcomes[-1] == "completed", outcomes
    assert run.result["status"] == "solved" and "internal error" not in run.transcript_text()

"""The HTML pages as a user gets them: written by every run, rebuilt with --report, compared with
--compare, all from `run_task.py` in a copy of the repository on real scripted runs; then loaded
from disk in a real browser (the system chromium, driven by playwright)."""
from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from html.parser import HTMLParser
from pathlib import Path

import pytest

from batches import FIZZBUZZ_NEVER_FIXED, FIZZBUZZ_RED_THEN_GREEN, STATS_FIXED, make_batch, play
from fake_servers import FakeKoboldCpp, action
from test_cli_as_typed import copy_repository, user

# one worker builds the module's copy of the repository and its runs (the other tests read them)
pytestmark = pytest.mark.xdist_group("report-runs")
CHROMIUM = next(filter(None, map(shutil.which, ("chromium", "chromium-browser", "google-chrome"))), None)


@pytest.fixture(scope="module")
def clone():
    """One copy of the repository with two batches of real runs (b1, b2) and a lone run (fizzbuzz)."""
    folder = Path(tempfile.mkdtemp(prefix="tdd-agent-test-"))
    folder.chmod(0o755)  # the sandbox user walks in (as conftest's scratch)
    repo = copy_repository(folder / "tdd-agent")
    lone = play(repo, "fizzbuzz", FIZZBUZZ_RED_THEN_GREEN)
    assert lone.returncode == 0, lone.stdout + lone.stderr
    make_batch(repo, "b1", {"fizzbuzz": (FIZZBUZZ_RED_THEN_GREEN, ()), "stats": (STATS_FIXED, ())})
    make_batch(repo, "b2", {"fizzbuzz": (FIZZBUZZ_NEVER_FIXED, ("--max-steps", "3")), "stats": (STATS_FIXED, ())})
    yield repo
    shutil.rmtree(folder, ignore_errors=True)


class Elements(HTMLParser):
    """Every element of a page and its attributes, as a browser's parser sees them."""

    def __init__(self, text: str):
        super().__init__()
        self.tags: list[tuple[str, dict]] = []
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))


def test_every_run_writes_its_page_with_model_text_escaped(clone):
    page = (clone / "runs" / "fizzbuzz" / "report.html").read_text()
    elements = Elements(page)
    assert not [t for t, _ in elements.tags if t in ("script", "img", "iframe", "object", "link")]
    assert not [a for _, attrs in elements.tags for a in attrs if a.startswith("on")]
    assert "&lt;script&gt;document.title=&#x27;pwned&#x27;" in page  # the thought, as text
    assert "&lt;/pre&gt;&lt;script&gt;window.pwned = 2&lt;/script&gt;done" in page  # the finish summary
    assert '<span class="add">+        return &quot;Fizz&quot;</span>' in page  # the second write's diff
    assert "9 passed, 0 failed, 0 errors, 0 skipped" in page  # the hidden tests
    assert "default-src &#x27;none&#x27;" in page or "default-src 'none'" in page  # the browser fetches nothing either


def test_a_run_that_ends_in_an_error_writes_its_page_too(clone):
    """... and its diffs start from the task's own files; a refused write is marked as such."""
    script = [action("write_file", path="test_stats.py", content="def test_nothing():\n    pass\n"),  # protected
              STATS_FIXED[0], {"status": 500}]
    proc = play(clone, "stats", script, "--run-id", "broken")
    assert proc.returncode == 1
    page = (clone / "runs" / "broken" / "report.html").read_text()
    assert json.loads((clone / "runs" / "broken" / "result.json").read_text())["status"] == "error"
    assert '<span class="bad status">error</span>' in page and "HTTP 500" in page
    assert "test_stats.py: diff against the previous version, not made (see the observation)" in page
    assert "stats.py: diff against the previous version</summary>" in page
    assert '<span class="del">-    return [sum(xs[i:i + k]) / k for i in range(len(xs) - k)]</span>' in page


def test_ctrl_c_writes_the_page_of_an_interrupted_run(clone):
    env = {k: v for k, v in os.environ.items() if not k.startswith("AGENT_")}
    with FakeKoboldCpp([STATS_FIXED[0], {"delay": 120, "text": STATS_FIXED[1]}]) as server:
        proc = subprocess.Popen([sys.executable, "run_task.py", "--task", "example_tasks/stats", "--server", server.url,
                                 "--isolation", "basic", "--run-id", "stopped"], cwd=clone, env=env,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        transcript = clone / "runs" / "stopped" / "transcript.jsonl"
        while not (transcript.exists() and '"step": 2, "type": "llm_request"' in transcript.read_text()):
            assert proc.poll() is None
            time.sleep(0.1)
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=60)
    assert proc.returncode == 1, out + err
    page = (clone / "runs" / "stopped" / "report.html").read_text()
    assert '<span class="bad status">interrupted</span>' in page and 'id="step-1"' in page


def test_approval_and_newer_events_are_shown_escaped(clone):
    """An `approval` event reads as one line; an event this code does not know shows its fields;
    both escaped, on the console and on the page."""
    shutil.copytree(clone / "runs" / "fizzbuzz", clone / "runs" / "approved")
    approval = {"t": 9.9, "step": 2, "type": "approval", "purpose": "the model's run_tests",
                "files": ["test_fizzbuzz.py"], "diff": "+<script>window.pwned = 3</script>", "answer": "no",
                "reason": "[bold]looks odd[/bold]",
                "decider": {"label": "LOOK CLOSELY", "probability": 0.96, "seconds": 0.4, "source": "decision model"}}
    newer = {"t": 9.9, "step": 2, "type": "some_later_kind", "files": ["test_fizzbuzz.py"],
             "note": "<script>window.pwned = 4</script>"}
    with open(clone / "runs" / "approved" / "transcript.jsonl", "a") as transcript:
        transcript.write(json.dumps(approval) + "\n" + json.dumps(newer) + "\n")
    shown = user(clone, "--show", "runs/approved")
    assert shown.returncode == 0 and shown.stderr == ""
    assert ("    approval (the model's run_tests): no: [bold]looks odd[/bold]; decision model said LOOK CLOSELY "
            "(p=0.96, 0.4 s)") in shown.stdout
    assert ('    some_later_kind: files=["test_fizzbuzz.py"], note=<script>window.pwned = 4</script>') in shown.stdout
    assert user(clone, "--report", "runs/approved").returncode == 0
    page = (clone / "runs" / "approved" / "report.html").read_text()
    assert not [t for t, _ in Elements(page).tags if t == "script"]
    assert "+&lt;script&gt;window.pwned = 3&lt;/script&gt;" in page and "<summary>approval</summary>" in page
    assert "&lt;script&gt;window.pwned = 4&lt;/script&gt;" in page


def test_report_rebuilds_a_run_and_a_batch_page(clone):
    for page in (clone / "runs" / "b1").glob("**/report.html"):
        page.unlink()
    proc = user(clone, "--report", "runs/b1")
    assert proc.returncode == 0 and proc.stdout.strip() == f"Report: {clone / 'runs' / 'b1' / 'report.html'}"
    links = [a["href"] for t, a in Elements((clone / "runs" / "b1" / "report.html").read_text()).tags if t == "a"]
    assert links == ["fizzbuzz/report.html", "stats/report.html"]
    assert all((clone / "runs" / "b1" / link).is_file() for link in links)
    single = user(clone, "--report", "runs/fizzbuzz")
    assert single.returncode == 0 and (clone / "runs" / "fizzbuzz" / "report.html").is_file()
    bad = user(clone, "--report", "example_tasks")
    assert bad.returncode == 2 and bad.stderr.startswith("error: ") and bad.stdout == ""


def test_compare_puts_batches_side_by_side(clone):
    proc = user(clone, "--compare", "runs/b1", "runs/b2")
    assert proc.returncode == 0, proc.stderr
    rows = {line.split("│")[1].strip(): [c.strip() for c in line.split("│")[2:4]]
            for line in proc.stdout.splitlines() if line.startswith("│")}
    assert rows["fizzbuzz"] == ["solved", "step_limit"] and rows["stats"] == ["solved", "solved"]
    assert rows["solved"] == ["2", "1"] and rows["finish accepted"] == ["2", "1"] and rows["steps"] == ["8", "5"]
    b2 = json.loads((clone / "runs" / "b2" / "summary.json").read_text())
    assert rows["seconds per solved task"][1] == f"{round(sum(r['seconds'] for r in b2['runs']) / 1, 1)}"  # all runs' / solved
    page = clone / "runs" / "compare.html"
    assert proc.stdout.splitlines()[-1] == f"Report: {page}"
    assert 'href="b2/fizzbuzz/report.html"' in page.read_text()
    one = user(clone, "--compare", "runs/b1")
    assert one.returncode == 2 and one.stderr.startswith("error: --compare needs two")


# -- in a real browser ----------------------------------------------------------------------------

@pytest.fixture(scope="module")
def browser():
    if CHROMIUM is None:
        pytest.skip("no chromium on PATH (CI installs Debian's: apt-get install chromium)")
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed (./install.sh --dev)")
    with sync_api.sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM)  # the system's; nothing is downloaded
        yield chromium
        chromium.close()


def load(browser, path: Path, shot: Path):
    """The page from disk, with every request and every console or page error it caused."""
    page = browser.new_page(viewport={"width": 1100, "height": 900})
    seen = {"requests": [], "errors": []}
    page.on("request", lambda request: seen["requests"].append(request.url))
    page.on("console", lambda message: seen["errors"].append(message.text) if message.type in ("error", "warning") else None)
    page.on("pageerror", lambda error: seen["errors"].append(str(error)))
    page.goto(path.as_uri())
    page.wait_for_load_state("load")
    page.screenshot(path=str(shot), full_page=True)
    assert shot.stat().st_size > 0
    return page, seen


def test_the_run_page_renders_and_runs_nothing_the_model_wrote(browser, clone, tmp_path):
    path = clone / "runs" / "fizzbuzz" / "report.html"
    page, seen = load(browser, path, tmp_path / "run.png")
    assert seen == {"requests": [path.as_uri()], "errors": []}
    assert page.title() == "Run fizzbuzz: solved" and page.evaluate("window.pwned") is None
    assert page.locator("p.thought").first.inner_text().startswith("<script>document.title='pwned'")
    assert page.locator("section.step").count() == 6
    verdict = page.locator("table.verdict").inner_text()
    assert "solved" in verdict and "9 passed, 0 failed, 0 errors, 0 skipped" in verdict
    bars = page.locator("svg.tests g.bar")
    assert bars.count() == 2 and page.locator("svg.tests").is_visible()
    assert page.locator("svg.tokens g.bar").count() == 6 and page.locator("svg.tokens").is_visible()
    heights = [[float(bars.nth(i).locator(f"rect.{kind}").get_attribute("height")) for kind in ("passed", "failed")]
               for i in range(2)]
    assert heights[0][0] == 0 < heights[0][1] and heights[1][1] == 0 < heights[1][0]  # red, then green
    added = [line for line in page.locator("section#step-4 pre.diff").inner_text().splitlines() if line.startswith("+")]
    assert len(added) == 6 and page.locator("section#step-4 pre.diff span.add").count() == 6  # lines added to fizzbuzz.py
    page.close()


def test_the_batch_page_links_each_run_page(browser, clone, tmp_path):
    user(clone, "--report", "runs/b2")
    path = clone / "runs" / "b2" / "report.html"
    page, seen = load(browser, path, tmp_path / "batch.png")
    assert seen == {"requests": [path.as_uri()], "errors": []}
    rows = page.locator("table.runs tbody tr")
    assert rows.count() == 2 and "step_limit" in rows.nth(0).inner_text() and "solved" in rows.nth(1).inner_text()
    page.locator("table.runs a", has_text="fizzbuzz").click()
    page.wait_for_load_state("load")
    assert page.url == (clone / "runs" / "b2" / "fizzbuzz" / "report.html").as_uri()
    assert page.title() == "Run fizzbuzz: step_limit" and page.locator("section.step").count() == 3
    assert all(url.startswith("file://") for url in seen["requests"]) and seen["errors"] == []
    page.close()


def test_the_compare_page_renders(browser, clone, tmp_path):
    user(clone, "--compare", "runs/b1", "runs/b2")
    path = clone / "runs" / "compare.html"
    page, seen = load(browser, path, tmp_path / "compare.png")
    assert seen == {"requests": [path.as_uri()], "errors": []}
    totals = page.locator("table.totals").inner_text()
    assert "seconds per solved task" in totals and "b1" in totals and "b2" in totals
    assert page.locator("table.compare tbody tr").count() == 2
    page.close()

"""Hidden tests, one per point of the task: never shown to the agent."""
import io
import json
from datetime import date

import pytest

import todo

TODAY = date(2026, 12, 1)


def run(args, path, today=TODAY):
    out = io.StringIO()
    code = todo.main(args, path=path, out=out, today=today)
    return code, out.getvalue()


def test_add_accepts_due(tmp_path):
    f = tmp_path / "t.json"
    assert run(["add", "Pay rent", "--due", "2026-12-05"], f)[0] == 0
    assert "2026-12-05" in f.read_text()


def test_list_prints_due_after_title(tmp_path):
    f = tmp_path / "t.json"
    run(["add", "Buy milk", "--due", "2026-12-01"], f)
    run(["add", "Call mom"], f)
    assert run(["list"], f)[1] == "1. [ ] Buy milk (due 2026-12-01)\n2. [ ] Call mom\n"


def test_overdue_shows_only_open_past_items_with_their_numbers(tmp_path):
    f = tmp_path / "t.json"
    run(["add", "Old open", "--due", "2026-11-20"], f)
    run(["add", "Old done", "--due", "2026-11-21"], f)
    run(["add", "Due today", "--due", "2026-12-01"], f)
    run(["add", "Future", "--due", "2026-12-24"], f)
    run(["add", "No date"], f)
    run(["add", "Also old", "--due", "2025-01-01"], f)
    run(["done", "2"], f)
    assert run(["list", "--overdue"], f)[1] == "1. [ ] Old open (due 2026-11-20)\n6. [ ] Also old (due 2025-01-01)\n"


def test_today_is_injectable(tmp_path):
    f = tmp_path / "t.json"
    run(["add", "Task", "--due", "2026-12-10"], f)
    assert run(["list", "--overdue"], f, today=date(2026, 12, 9))[1] == ""
    assert "Task" in run(["list", "--overdue"], f, today=date(2026, 12, 11))[1]


@pytest.mark.parametrize("bad", ["2026-13-45", "tomorrow", "01/12/2026"])
def test_bad_date_is_an_argparse_error(tmp_path, bad):
    with pytest.raises(SystemExit) as exit_info:
        run(["add", "Task", "--due", bad], tmp_path / "t.json")
    assert exit_info.value.code == 2
    assert not (tmp_path / "t.json").exists()


def test_old_files_without_due_dates_still_load(tmp_path):
    f = tmp_path / "t.json"
    f.write_text(json.dumps([{"title": "Legacy", "done": False}, {"title": "Finished", "done": True}]))
    assert run(["list"], f) == (0, "1. [ ] Legacy\n2. [x] Finished\n")
    assert run(["list", "--overdue"], f) == (0, "")

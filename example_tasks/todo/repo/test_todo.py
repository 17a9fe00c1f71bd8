import io

import todo


def run(args, path):
    out = io.StringIO()
    code = todo.main(args, path=path, out=out)
    return code, out.getvalue()


def test_add_then_list(tmp_path):
    f = tmp_path / "todos.json"
    assert run(["add", "Buy milk"], f)[0] == 0
    assert run(["list"], f) == (0, "1. [ ] Buy milk\n")


def test_done_marks_an_item(tmp_path):
    f = tmp_path / "todos.json"
    run(["add", "Buy milk"], f)
    run(["add", "Call mom"], f)
    assert run(["done", "2"], f)[0] == 0
    assert run(["list"], f)[1] == "1. [ ] Buy milk\n2. [x] Call mom\n"


def test_done_unknown_item(tmp_path):
    f = tmp_path / "todos.json"
    assert run(["done", "3"], f)[0] == 1

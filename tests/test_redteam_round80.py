"""Red team, round 80: four real libraries' own suites, not measured before, on their own (correct)
code (bench/real_suites.py --layer bwrap --sdist ...; root; judge uid 65533, worker 65534; 2 CPUs
shared with other runs, so the seconds are loose). Worktree at 8bb018b: round 79's closes, still
uncommitted in /work/main, are not in it. Time box 35 min.

| library (sdist) | plain p/f/e | s | judged p/f/e | s | x | default limits |
|---|---|---|---|---|---|---|
| webcolors 24.11.1 | 38/0/0 | 2.3 | 28/10/0 | 3.3 | 1.5 | 28/10/0 |
| itsdangerous 2.2.0 (test_timed.py, test_url_safe.py left out: freezegun) | 66/0/0 | 2.4 | 34/2/30 | 13.5 | 5.7 | 34/2/30 |
| click 8.1.7 (test_basic.py left out: parametrize iterators) | 532/1/0 | 6.6 | 339/194/0 | 70.6 | 10.6 | timeout (60 s) |
| jsonpointer 3.0.0 (repacked: tests.py -> tests/test_jsonpointer.py) | 22/0/0 | 0.8 | 22/0/0 | 1.7 | 2.3 | 22/0/0 |
| sortedcontainers 2.4.0 | its sdist ships no tests: nothing measured | | | | | |

No false pass: click's one plain failure (test_expand_args: a glob of `setup.*` in the cwd) fails
judged too; every other library passes everything plain.

Causes (each reproduced below; all 4 tests FAIL now, for the same reason as in the library):
1. webcolors, 10 tests: `isinstance(result, webcolors.IntegerRGB)` on a `typing.NamedTuple` the
   model's code returned. The result crosses by value as rpc_values._namedtuple_class's local
   look-alike (it keeps the class's handle in `_rpc_origin`); the class proxy's
   rpc.ModelProxy.__instancecheck__ asks the worker only when rpc._model_side(obj), which a value is
   not: False. Fix: in __instancecheck__ (and __subclasscheck__ for its type) a local named tuple
   whose `_rpc_origin` is on this connection is handed back (it is the model's class again in the
   worker, as the decoder already does) and asked; or compare `_rpc_origin` with the class's
   handle and answer issubclass in the worker. README's table says "isinstance asks the worker only
   for the model's objects" (so implied), but not that a named tuple result is no instance of its
   class: not a stated limit. test_control_isinstance_of_a_returned_named_tuple.
2. itsdangerous, 29 of 32 lost tests: a judge's refusal raised in a FIXTURE (`partial(Serializer,
   serializer=pickle)`: "a module object cannot be handed to the model's code", stated, 3 tests)
   poisons the fixture for every later test that uses it, the other parameter's too: Refused (and
   FromTheModel) are BaseExceptions (rpc_policy.Refused), pytest's fixtures.pytest_fixture_setup
   caches only `TEST_OUTCOME` (Exception) failures, so the FixtureDef keeps `_finalizers` and the
   next execute() dies on `assert not self._finalizers` (pytest 9.2 fixtures.py:1290; plain pytest
   does the same with any BaseException, checked). Fix: judge_plugin hookwrapper on
   pytest_fixture_setup that, on Refused/FromTheModel, sets
   `fixturedef.cached_result = (None, fixturedef.cache_key(request), (exc, exc.__traceback__))` as
   pytest does for an Exception (and re-raises), so the refusal costs only the items of that
   parameter. The refusal is stated; the cascade is not.
   test_control_a_refusal_in_a_fixture_costs_only_its_own_tests (expects the 4 items of the first
   parameter to pass; 3 do).
3. click, 148 tests (the largest cost): click's decorators keep their params on the function
   (`f.__click_params__ = []`, `.append`) and command() takes them off (`del f.__click_params__`).
   rpc_policy._check_name refuses to replace or delete any name in a test function's `__dict__`
   ("may add attributes to the tests' functions, never replace or delete one they have"), also one
   the model's code itself added in the same test. Fix: remember (per function, weakly) the names
   the model's code added that were not in its `__dict__` before, and let it replace or delete
   those (the rest of _check_name still applies: _PYTEST_READS, dunders). The rule is stated
   (README table: "never replaces an attribute a test function has"); its cost on an attribute the
   model's code added itself is not. Maybe the same family, not isolated: 6 x test_parameter_source
   ("cli() missing 1 required positional argument: 'option'", "No such option: -o": an option the
   decorator appended to the function's list is lost). test_control_a_decorator_takes_back_the_attribute_it_added.
4. click, 2 tests (test_compat::test_is_jupyter_kernel_output): the model's code reads
   `stream.__class__.__module__` of a test's object; in the worker it is rpc._remote_class's proxy
   class, whose `__module__` is the `_forwarded("__module__")` property: read on the class it is the
   property object (AttributeError: 'property' object has no attribute 'startswith'). Fix: give the
   proxy class the real class's `__module__` (and `__qualname__`) as strings (one class per
   name/module, as `name` already is), keep the forwarding for the instance's own `__module__`
   only through a metaclass or __getattr__. Not stated. test_control_the_module_of_a_tests_class.

Not reproduced (time box), by group, click: 15 x test_echo_via_pager[*-cat] (the pager `cat` writes
to fd 1 and the test reads `capfd`: stated, "capfd ... of the worker are not the test's"); 4 x
open('existing.txt', 'w') into the tests' folder (stated: "a test may not write into its own
folder"); 2 x test_abort_exceptions_with_disabled_standalone_mode[EOFError/KeyboardInterrupt]
(KeyboardInterrupt comes back as FromTheModel: stated); 2 x `type(subcommand) is click.Command`
(stated: `type(x) is ModelClass` is the proxy's class); test_group_group_class_self (`group_class =
type` on a test's class: "type() takes 1 or 3 arguments", the builtin `type` crossing); test_base_command
(a test's optparse subclass prints its help in the judge while CliRunner swapped sys.stdout in the
worker: cf. round 79's stated "sys.stdout left replaced stays the worker's"); test_with_resource
(`ctx.with_resource(test_cm)`: [1] == [0], the test's context manager's __exit__ not seen). click at
the default limits (30 CPU-s, 60 s) times out judged (70 s generous).
"""
from __future__ import annotations

import pytest
from conftest import RULE_LAYERS, on_layers
from test_verdict_rules import honest, judged, plain, sandbox  # noqa: F401 - sandbox is a fixture

pytestmark = on_layers(RULE_LAYERS)


# 1. (webcolors) isinstance(result, lib.NamedTupleClass) on a named tuple the model's code returned.

COLORS = {"colors/__init__.py": """
    from ._types import IntegerRGB

    def hex_to_rgb(value):
        n = int(value.lstrip("#"), 16)
        return IntegerRGB(n >> 16, (n >> 8) & 0xFF, n & 0xFF)
""", "colors/_types.py": """
    import typing

    class IntegerRGB(typing.NamedTuple):
        red: int
        green: int
        blue: int
"""}


@pytest.mark.xfail(strict=True, reason="open (round 80, 1): a copied NamedTuple result is not asked isinstance of the model's class")
def test_control_isinstance_of_a_returned_named_tuple(sandbox, scratch):
    tests = {"test_colors.py": """
import colors
def test_hex_to_rgb():
    result = colors.hex_to_rgb("#000080")
    assert isinstance(result, colors.IntegerRGB)
    assert result == (0, 0, 128)
"""}
    honest(sandbox, scratch, COLORS, tests, passed=1)


# 2. (itsdangerous) a judge's refusal (a BaseException) raised in a fixture: pytest caches only an
# Exception's failure (fixtures.pytest_fixture_setup: `except TEST_OUTCOME`), so the fixture keeps
# its finalizers and every later test that uses it errors at setup (`assert not self._finalizers`).

CODEC = {"codec.py": """
    import json

    class Coder:
        def __init__(self, secret, serializer=json):
            self.secret, self.serializer = secret, serializer
        def dumps(self, value):
            return self.secret + "." + self.serializer.dumps(value)
        def loads(self, text):
            return self.serializer.loads(text.split(".", 1)[1])
"""}

CODEC_TESTS = {"test_codec.py": """
import json
from functools import partial
import pytest
from codec import Coder

class TestCoder:
    @pytest.fixture(params=(Coder, partial(Coder, serializer=json)))
    def factory(self, request):
        return partial(request.param, secret="k")

    @pytest.fixture()
    def coder(self, factory):
        return factory()

    @pytest.mark.parametrize("value", (None, 1, "s"))
    def test_round_trip(self, coder, value):
        assert coder.loads(coder.dumps(value)) == value

    def test_secret(self, coder):
        assert coder.dumps(1).startswith("k.")
"""}


@pytest.mark.xfail(strict=True, reason="open (round 80, 2): a refusal in a fixture is a BaseException pytest does not cache, later setups fail")
def test_control_a_refusal_in_a_fixture_costs_only_its_own_tests(sandbox, scratch):
    # Stated: handing the module `json` to the model's code is refused (the 4 items of the second
    # parameter fail). Not stated: the 4 items of the first parameter are lost as well.
    assert plain(sandbox, scratch, CODEC, CODEC_TESTS).ok
    result = judged(sandbox, scratch, CODEC, CODEC_TESTS)
    assert result["passed"] == 4, result["output"]
    assert "assert not self._finalizers" not in result["output"], result["output"]


# 3. (click: 148 tests) a decorator stack that keeps its state on the decorated function and
# takes it off again (click's _param_memo: `f.__click_params__ = []` ... `del f.__click_params__`
# in command()): rpc_policy._check_name refuses to replace or delete ANY attribute in the test
# function's __dict__, also one the model's code itself added a moment before.

DECORATORS = {"cli.py": """
    class Command:
        def __init__(self, callback, params):
            self.callback, self.params = callback, params
        def main(self, **values):
            return self.callback(**{name: values.get(name) for name in self.params})

    def option(name):
        def decorator(f):
            if not hasattr(f, "__cli_params__"):
                f.__cli_params__ = []
            f.__cli_params__.append(name)
            return f
        return decorator

    def command(f):
        params = getattr(f, "__cli_params__", [])
        try:
            del f.__cli_params__
        except AttributeError:
            pass
        return Command(f, params)
"""}


@pytest.mark.xfail(strict=True, reason="open (round 80, 3): a decorator may not delete an attribute it added to a test function (click)")
def test_control_a_decorator_takes_back_the_attribute_it_added(sandbox, scratch):
    tests = {"test_cli.py": """
import cli
def test_command_with_an_option():
    @cli.command
    @cli.option("name")
    def hello(name):
        return "hello " + name
    assert hello.main(name="ada") == "hello ada"
"""}
    honest(sandbox, scratch, DECORATORS, tests, passed=1)


# 4. (click: test_is_jupyter_kernel_output) the model's code reads `obj.__class__.__module__` of a
# test's object: the test's class stands in the worker as a class whose `__module__` is a property
# object (AttributeError: 'property' object has no attribute 'startswith'); plain it is "test_...".

CLASS_MODULE = {"streams.py": """
    def is_notebook_stream(stream):
        return stream.__class__.__module__.startswith("ipykernel.")
"""}


@pytest.mark.xfail(strict=True, reason="open (round 80, 4): __module__ of a test's class stand-in is a property")
def test_control_the_module_of_a_tests_class(sandbox, scratch):
    tests = {"test_streams.py": """
import streams
class FakeStream:
    pass
def test_a_plain_stream_is_not_a_notebooks():
    assert not streams.is_notebook_stream(FakeStream())
"""}
    honest(sandbox, scratch, CLASS_MODULE, tests, passed=1)

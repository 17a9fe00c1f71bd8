"""The pytest run: `python pytest_main.py ARGS...` in the workspace (the copy a run works on).

Our folder leaves sys.path first, and pytest and the bounds plugin are imported before the
workspace is put on sys.path, so a pytest.py or types.py written by the model cannot stand in
for them; then the workspace is put first, as `python -m pytest` does. pytest.main() reads
sys.argv (console_main prints a deprecation warning on pytest 9.2).
"""
import os
import sys

del sys.path[0]  # our own folder
import pytest  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from sandbox_runtime import bounds  # noqa: E402

del sys.path[0]
for name in [n for n in sys.modules if n.partition(".")[0] == "sandbox_runtime"]:
    del sys.modules[name]  # a model module of that name is the model's
sys.path.insert(0, os.getcwd())
raise SystemExit(int(pytest.main(plugins=[bounds])))

"""Loaded by every Python a judged test runs (`python -c CHECK`, `python -m tool`): its
PYTHONPATH starts with this folder. The judge's rule for the tests' imports holds in their
commands too: the standard library and installed libraries win over a module of the same name in
the workspace, the command's folder or its script's folder (a model-written json.py must not
answer a test's own checker's `import json`; a model nt.py is not the standard library's `nt`
of Windows). The model's other modules import as usual. Then
the interpreter's own sitecustomize, if it has one, runs as it would have."""
import importlib.machinery
import importlib.util
import os
import sys

_HERE = os.path.dirname(os.path.abspath(__file__))
_GIVEN = {os.path.abspath(p) for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p}
# The interpreter's own paths, before the command's folder or script folder is put in front.
LIBRARIES = [p for p in sys.path if p and os.path.abspath(p) not in _GIVEN | {_HERE}]


class LibrariesFirst:
    """sys.meta_path entry, after the built-in and frozen modules: a top-level name the
    libraries provide comes from them."""

    @staticmethod
    def find_spec(name, path=None, target=None):
        if path is not None:
            return None
        spec = importlib.machinery.PathFinder.find_spec(name, LIBRARIES)
        if spec is None and name in sys.stdlib_module_names:  # another system's (nt, winreg, msvcrt ...)
            raise ModuleNotFoundError(f"No module named {name!r} (a standard library module of another system)",
                                      name=name)
        return spec


sys.meta_path.insert(min(2, len(sys.meta_path)), LibrariesFirst)
_theirs = importlib.machinery.PathFinder.find_spec("sitecustomize", LIBRARIES)
if _theirs is not None and _theirs.loader is not None:
    _module = importlib.util.module_from_spec(_theirs)
    _theirs.loader.exec_module(_module)

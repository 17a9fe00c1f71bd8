"""The judge's plugin as pytest loads it (`-p judge_entry`): pytest rewrites the asserts of a module
named by `-p`, parsing it from source at every run (the judge cannot write the rewritten bytecode),
and judge_plugin is 2,000 lines. Imported from here, judge_plugin loads from its compiled bytecode
(runtime_files.bytecode); its hooks are the names below."""
from judge_plugin import *  # noqa: F403 - pytest_* hooks, read by pluggy from this module

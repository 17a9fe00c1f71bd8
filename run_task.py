"""The command line: parse, load config and task, connect, run, print, exit code.

Exit codes: 0 solved, 1 ran but not solved, 2 bad usage/config/task/sandbox, 3 model server
unreachable or unusable.
"""
from __future__ import annotations

import argparse
import json
import signal
import sys
import typing
from pathlib import Path
from typing import Optional

import approval
import batch
import console
import humaneval
import llm_client
import report
from config import Config, ConfigError, SandboxConfig, load_config
from orchestrator import Orchestrator
from runlog import new_run_dir, read_transcript
from sandbox import Sandbox, SandboxError
from tasks import load_task


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(description="A local test-driven coding agent: a local model writes code and "
                                            "tests, runs pytest in a sandbox, and fixes its code until the tests pass.")
    what = p.add_mutually_exclusive_group(required=True)
    what.add_argument("--task", type=Path, help="a task: name.txt, a task folder, or name.yaml")
    what.add_argument("--resume", type=Path, metavar="RUN_DIR", help="continue an interrupted or unfinished run")
    p.add_argument("--server", help="model server URL (default http://127.0.0.1:5001; env AGENT_SERVER)")
    p.add_argument("--backend", choices=choices(Config, "backend"))
    p.add_argument("--protocol", choices=choices(Config, "protocol"))
    p.add_argument("--model", help="model name to request (Ollama, vLLM, LM Studio)")
    p.add_argument("--model-path", help="GGUF file for the embedded backend")
    p.add_argument("--max-steps", type=int, help="model turns before the run stops")
    p.add_argument("--config", type=Path, help="YAML settings file (default ./agent.yaml, created on first run)")
    p.add_argument("--run-id", help="name of the run folder under runs/ (default: the task's name)")
    p.add_argument("--runs-dir", help="folder that holds the run folders (default runs)")
    p.add_argument("--sandbox-python", help="interpreter that runs the tests (needs pytest)")
    p.add_argument("--isolation", choices=choices(SandboxConfig, "isolation"), help="sandbox layer")
    person = p.add_argument_group("a person in control (before the model's code runs in a test run)")
    person.add_argument("--approve", action="store_true",
                        help="show what changed and ask `run the tests? [y/N]` before every test run (needs a terminal)")
    person.add_argument("--decider", metavar="URL",
                        help="decision model with the /v1/systemone API (e.g. Jeff) that notes before every test run "
                             "whether to look closely (env AGENT_DECIDER)")
    person.add_argument("--decider-block", type=float, metavar="P",
                        help="refuse a test run without asking when the decision model's probability is above P")
    reading = p.add_argument_group("reading runs (console and HTML)")
    what.add_argument("--show", type=Path, metavar="RUN_OR_BATCH", help="replay a run step by step, or print a batch's table")
    reading.add_argument("--follow", action="store_true", help="with --show RUN_DIR: keep printing a run that is still going")
    what.add_argument("--report", type=Path, metavar="RUN_OR_BATCH", help="(re)build report.html of a run or a batch")
    what.add_argument("--compare", type=Path, nargs="+", metavar="BATCH", help="batches side by side: a table and compare.html")
    reading.add_argument("--quiet", action="store_true", help="print only the result line")
    reading.add_argument("--json", action="store_true", help="print only the result, as one JSON object on stdout")
    batches = p.add_argument_group("batch runs (--resume of a batch folder finishes what is not done)")
    what.add_argument("--batch", metavar="PATH", help="run many tasks: a folder of tasks, a glob, or a file listing tasks")
    what.add_argument("--import-humaneval", type=Path, metavar="DIR", help="write HumanEval's problems as task folders into DIR")
    batches.add_argument("--limit", type=int, help="only the first N tasks (--batch, --import-humaneval)")
    batches.add_argument("--jobs", type=int, help="runs at once (default: every server's slots together)")
    batches.add_argument("--batch-id", help="name of the batch folder under runs/ (default: batch-<date>-<time>)")
    batches.add_argument("--verbose", action="store_true", help="show every run's console output")
    batches.add_argument("--executor", choices=choices(Config, "executor"),
                         help="local: runs as child processes here (default); ray: runs as Ray tasks on a cluster (env AGENT_EXECUTOR)")
    batches.add_argument("--ray-address", metavar="HOST:PORT",
                         help="with --executor ray: the cluster's head (default: the running cluster, else one started here)")
    batches.add_argument("--ray-run-folders", choices=choices(Config, "ray_run_folders"),
                         help="with --executor ray: shared (runs/ mounted at the same path on every node, default) or packed "
                              "(each run comes back as a tar)")
    return p


def choices(model, field: str) -> tuple[str, ...]:
    """A setting's allowed values, as the config defines them."""
    return typing.get_args(model.model_fields[field].annotation)


def resumable_task(run_dir: Path) -> Path:
    """The task of an earlier run, if that run can go on (it exists and was not solved)."""
    start = next((e for e in read_transcript(run_dir) if e["type"] == "start"), None)
    if start is None or not isinstance(start.get("source"), str) or not (run_dir / "workspace").is_dir():
        raise ConfigError(f"{run_dir}: not a run folder (no transcript.jsonl with a start event, or no workspace/)")
    try:
        status = json.loads((run_dir / "result.json").read_text(encoding="utf-8")).get("status")
    except (OSError, ValueError, AttributeError):
        status = None  # no result yet (interrupted hard) or a damaged one: the transcript decides
    if status in ("solved", "unverified"):
        raise ConfigError(f"{run_dir}: that run already ended {status}; there is nothing to resume")
    return Path(start["source"])


def flag_settings(args: argparse.Namespace) -> dict:
    """The settings the flags give (None: not given)."""
    return {"server": args.server, "backend": args.backend, "protocol": args.protocol, "model": args.model,
            "model_path": args.model_path, "max_steps": args.max_steps, "runs_dir": args.runs_dir,
            "decider": args.decider, "decider_block": args.decider_block,
            "executor": args.executor, "ray_address": args.ray_address,
            "ray_run_folders": args.ray_run_folders,
            "sandbox": {k: v for k, v in (("python", args.sandbox_python), ("isolation", args.isolation)) if v}}


def main(argv: Optional[list[str]] = None) -> int:
    args = parser().parse_args(argv)
    if args.follow and not args.show:
        return batch.fail("--follow goes with --show RUN_DIR", 2)
    if args.show:
        return console.show(Path.cwd() / args.show, args.follow)
    if args.report:
        return report.main_report(Path.cwd() / args.report)
    if args.compare:
        return report.main_compare([Path.cwd() / p for p in args.compare])
    # --json: stdout holds only the result (the run is shown on stderr); --quiet: only the result line
    out = console.make_console(stderr=args.json, quiet=args.quiet)
    say = lambda line: out.print(line, markup=False)  # noqa: E731
    overrides = flag_settings(args)
    cwd = Path.cwd()  # every path the user gives is relative to it, as in the shell
    if args.import_humaneval:
        return humaneval.main(cwd / args.import_humaneval, args.limit)
    if args.batch or (args.resume and batch.is_batch(cwd / args.resume)):
        return batch.main(args, cwd, flag_settings)
    task_path, resume = (cwd / p if p else None for p in (args.task, args.resume))
    try:
        task = load_task(task_path or resumable_task(resume))
        config, server_named = load_config(cwd / args.config if args.config else None, overrides, task=task.settings())
    except ConfigError as e:
        return batch.fail(str(e), 2)
    refused = approval.refusal(args.approve, sys.stdin.isatty(), config)
    if refused:
        return batch.fail(refused, 2)
    if "," in (config.server or ""):
        return batch.fail("several servers are for --batch; a single run takes one --server", 2)
    try:
        backend = llm_client.connect(config, server_named, say=say)
    except llm_client.BackendError as e:
        return batch.fail(str(e), 3)
    try:
        sandbox = Sandbox(config.sandbox)
        run_dir = resume or new_run_dir(Path(config.runs_dir), args.run_id or task.id)
    except (SandboxError, OSError) as e:
        return batch.fail(str(e), 2)
    asks = approval.build(args.approve, config, backend, task.spec.files)
    result = Orchestrator(task, backend, sandbox, config, run_dir, say=say, resume=bool(resume), approval=asks,
                          show=console.Renderer(out, run_dir=run_dir)).run()
    if args.json:
        print(json.dumps(result, ensure_ascii=False, default=str))
    elif args.quiet:
        print(f"{result['status']} ({console.short(result['reason'], 300)}) after {result['steps']} steps: {run_dir}")
    return 0 if result["status"] == "solved" else 1


if __name__ == "__main__":
    # Ctrl-C is ours however we were started: a shell without job control starts a background job
    # with SIGINT ignored, and then Python installs no KeyboardInterrupt handler of its own.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    if sys.platform == "win32":  # a batch stops its runs with Ctrl-Break (batch.LocalExecutor.interrupt)
        signal.signal(signal.SIGBREAK, signal.default_int_handler)
    sys.exit(main())

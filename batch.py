"""Batch runs: many tasks, one ordinary run folder each (runs/<batch_id>/<task_id>/), spread over
every model server's free slots, with summary.json and summary.md rewritten as each run ends.

Each run is a child process running this very CLI for one task: runs share no state, a crash
stays in its run, Ctrl-C is passed on to them (they end `interrupted` and write result.json), and
a run folder is exactly a single run's, so --show and --resume work on it."""
from __future__ import annotations

import html
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any, Optional

import httpx
from rich.console import Console

import approval
import llm_client
import report
import verdict
from config import Config, ConfigError, load_config
from runlog import read_result, read_transcript, safe_name
from sandbox import Sandbox, SandboxError
from tasks import load_task
from workspace_files import write_atomic

RUN_TASK = Path(__file__).resolve().with_name("run_task.py")
STATE, SUMMARY, SUMMARY_MD = "batch.json", "summary.json", "summary.md"
MAX_ATTEMPTS = 3  # starts of one run in one batch invocation (a retry after a server or sandbox failure)
FINAL = ("solved", "unverified", "unsolved", "step_limit", "stuck", "error")
PASSED_FLAGS = ("backend", "protocol", "model", "model_path", "max_steps", "config", "sandbox_python", "isolation",
                "decider", "decider_block")


def fail(message: str, code: int) -> int:
    print(f"error: {message}", file=sys.stderr)
    return code


# -- what to run ---------------------------------------------------------------------------------

def is_task(path: Path) -> bool:
    """A task in one of its three forms (a name.hidden_tests folder belongs to name.txt)."""
    if path.is_dir():
        return (path / "task.txt").is_file() or (path / "task.yaml").is_file()
    return path.is_file() and path.suffix in (".txt", ".yaml", ".yml")


def find_tasks(spec: str, cwd: Path) -> list[Path]:
    """The tasks --batch names: a folder (each entry a task), a glob, or a text file listing one
    task per line (relative to the list's folder; blank lines and # comments skipped)."""
    path = cwd / spec
    if path.is_dir():
        found = [p for p in sorted(path.iterdir()) if is_task(p)]
    elif any(c in spec for c in "*?["):
        found = [p for p in sorted(cwd.glob(spec)) if is_task(p)]
    elif path.is_file():
        found = []
        for n, line in enumerate(path.read_text(encoding="utf-8", errors="replace").splitlines(), 1):
            line = line.strip()
            if line and not line.startswith("#"):
                task = path.parent / line
                if not task.exists():
                    raise ConfigError(f"{path}:{n}: {line}: task not found")
                found.append(task)
    else:
        raise ConfigError(f"{path}: no such folder or task list, and no glob matches it")
    if not found:
        raise ConfigError(f"{spec}: no tasks there (a task is name.txt, name.yaml, or a folder with task.txt or task.yaml)")
    return found


def task_ids(tasks: list[Path]) -> list[dict]:
    """Each task with the name of its run folder, unique in the batch (fizzbuzz, fizzbuzz-2, ...)."""
    seen: set[str] = set()
    out = []
    for path in tasks:
        base = safe_name(load_task(path).id)
        name, n = base, 1
        while name in seen:
            n += 1
            name = f"{base}-{n}"
        seen.add(name)
        out.append({"task": str(path.resolve()), "task_id": name})
    return out


# -- servers -------------------------------------------------------------------------------------

@dataclass
class Server:
    url: Optional[str]  # None: the config's default (the bundled demo model when nothing answers)
    slots: int
    busy: int = 0
    alive: bool = True

    def free(self) -> bool:
        return self.alive and self.busy < self.slots


def open_servers(config: Config, say) -> list[Server]:
    """Every server named, with its parallel slots: URL#N says, else the server is asked."""
    if config.backend == "embedded":
        return [Server(None, 1)]  # the model runs inside each run: no server to ask
    servers = []
    for spec in config.server_list() or [None]:
        if spec is None:
            servers.append(Server(None, 1))  # each run finds its own (the demo model is in-process)
            continue
        url, _, slots = spec.partition("#")
        url = url.rstrip("/")
        if slots and not (slots.isdigit() and int(slots) > 0):
            raise ConfigError(f"server {spec}: #{slots} is not a number of slots (URL#4)")
        try:
            backend = llm_client.connect(config.model_copy(update={"server": url}), True, say=lambda _: None)
        except llm_client.BackendError as e:
            say(f"warning: {e}; that server takes no runs")
            servers.append(Server(url, int(slots or 1), alive=False))
            continue
        servers.append(Server(url, int(slots) if slots else backend.slots()))
    return servers


def answers(url: Optional[str]) -> bool:
    """Whether anything still answers HTTP at a server (any status counts)."""
    if url is None:
        return True
    try:
        with llm_client.http_client(url, httpx.Timeout(5)) as http:
            http.get(url + "/")
        return True
    except httpx.HTTPError:
        return False


# -- the executor --------------------------------------------------------------------------------

class LocalExecutor:
    """Runs each run as a child process on this machine. The interface a batch needs from any
    executor (docs/scale.md; ray_executor.py): start a command, ask whether it ended, interrupt it,
    and say where it ran (for the summary)."""

    name = "local"

    def start(self, argv: list[str], cwd: Path, log: Optional[Path]) -> subprocess.Popen:
        out = open(log, "ab") if log else None
        # its own session (Windows: process group): a terminal's Ctrl-C reaches the batch, which passes it on once
        flags = 0
        if sys.platform == "win32":
            flags = subprocess.CREATE_NEW_PROCESS_GROUP
        try:
            return subprocess.Popen(argv, cwd=cwd, stdin=subprocess.DEVNULL, stdout=out,
                                    stderr=subprocess.STDOUT if out else None, start_new_session=True,
                                    creationflags=flags)
        finally:
            if out:
                out.close()

    def poll(self, handle: subprocess.Popen) -> Optional[int]:
        return handle.poll()

    def interrupt(self, handle: subprocess.Popen, hard: bool = False) -> None:
        if handle.poll() is None and hard:
            handle.kill()
        elif handle.poll() is None and sys.platform == "win32":  # Ctrl-Break to its group (run_task.py: a Ctrl-C)
            handle.send_signal(signal.CTRL_BREAK_EVENT)
        elif handle.poll() is None:
            handle.send_signal(signal.SIGINT)

    def node(self, handle: subprocess.Popen) -> str:
        return socket.gethostname()

    def close(self) -> None:
        pass


# -- results and the summary ---------------------------------------------------------------------

def infrastructure_failure(result: Optional[dict]) -> bool:
    """A run that did not end on its own merits, so it is run again (server gone, sandbox
    failure, interrupted, no result at all); a finished run never is."""
    if result is None:
        return True
    status, reason = result.get("status"), str(result.get("reason") or "")
    return status == "interrupted" or (status == "error" and reason.startswith("model server:"))


def last_line(log: Path) -> str:
    try:
        lines = [line for line in log.read_text(encoding="utf-8", errors="replace").splitlines() if line.strip()]
    except OSError:
        return ""
    return lines[-1][:300] if lines else ""


def summary_row(entry: dict, run_dir: Path, extra: dict) -> dict:
    """One run as the summary lists it (the issue's fields first, then ours)."""
    result = read_result(run_dir) or {}
    seconds = result.get("seconds") or {}
    status, reason = extra.pop("status", "error"), extra.pop("reason", "the run ended without a result")
    return {"task": result.get("task") or Path(entry["task"]).stem, "task_id": entry["task_id"],
            "status": result.get("status") or status, "reason": result.get("reason") or reason,
            "steps": result.get("steps", 0), "invalid_replies": result.get("invalid_replies", 0),
            "finish_accepted": bool(result.get("finish_accepted")), "hidden_tests": result.get("hidden_tests"),
            "tokens": result.get("tokens") or {"prompt": 0, "completion": 0},
            "seconds": seconds.get("total", 0) if isinstance(seconds, dict) else seconds,
            "verified": result.get("verified"), "protected_tests": result.get("protected_tests"),
            "model": result.get("model"), "task_source": entry["task"], "run_dir": str(run_dir),
            "infrastructure_failure": infrastructure_failure(result or None), **extra}


def totals(tasks: int, rows: list[dict], wall: float) -> dict:
    done = [r for r in rows if r["status"] in FINAL and not r["infrastructure_failure"]]
    count = lambda status: sum(r["status"] == status for r in done)  # noqa: E731
    overheads = [r["overhead_seconds"] for r in rows if r.get("overhead_seconds") is not None]
    return {"tasks": tasks, "done": len(done), "solved": count("solved"),
            "finish_accepted": sum(r["finish_accepted"] for r in done), "unsolved": count("unsolved"),
            "stuck": count("stuck"), "step_limit": count("step_limit"), "error": count("error"),
            "invalid_replies": sum(r["invalid_replies"] for r in rows), "steps": sum(r["steps"] for r in rows),
            "tokens": {k: sum(r["tokens"].get(k) or 0 for r in rows) for k in ("prompt", "completion")},
            "seconds": round(sum(r["seconds"] or 0 for r in rows), 2),
            "not_done": tasks - len(done), "pass_rate": round(count("solved") / tasks, 3) if tasks else 0.0,
            "unverified": count("unverified"),
            "context_exhausted": sum("no longer fits the context" in str(r["reason"]) for r in done),
            "wall_seconds": round(wall, 2),
            "overhead_seconds_per_run": round(sum(overheads) / len(overheads), 3) if overheads else None}


def cell(value: Any) -> str:
    """A Markdown table cell: model-written text cannot break the table or become HTML."""
    return html.escape(" ".join(str(value).split())).replace("|", "\\|")[:200]


def write_summary(batch_dir: Path, summary: dict) -> None:
    write_atomic(batch_dir / SUMMARY, json.dumps(summary, indent=2, ensure_ascii=False, default=str) + "\n")
    t = summary["totals"]
    lines = [f"# Batch {cell(summary['batch_id'])}", "",
             f"{t['solved']} of {t['tasks']} solved ({t['done']} done); finish accepted {t['finish_accepted']}; "
             f"unverified {t['unverified']} (no tests to judge by), unsolved {t['unsolved']}, stuck {t['stuck']}, step limit {t['step_limit']}, error {t['error']}; "
             f"invalid replies {t['invalid_replies']}; tokens {t['tokens']['prompt']} + {t['tokens']['completion']}; "
             f"{t['seconds']} s of runs in {t['wall_seconds']} s", "",
             "| task | status | steps | invalid replies | finish accepted | hidden tests | tokens | seconds | reason |",
             "|---|---|---|---|---|---|---|---|---|"]
    for r in summary["runs"]:
        hidden = r["hidden_tests"]
        judged = (verdict.counts(hidden) + ("" if hidden.get("ok") else f" ({hidden.get('outcome')})")
                  if isinstance(hidden, dict) else "none")
        tokens = f"{r['tokens'].get('prompt') or 0} + {r['tokens'].get('completion') or 0}"
        lines.append("| " + " | ".join(cell(v) for v in (r["task_id"], r["status"], r["steps"], r["invalid_replies"],
                                                            r["finish_accepted"], judged, tokens, r["seconds"],
                                                            r["reason"])) + " |")
    write_atomic(batch_dir / SUMMARY_MD, "\n".join(lines) + "\n")


# -- the batch -----------------------------------------------------------------------------------

class Progress:
    """A live line on a terminal (rich), a plain line per finished run otherwise."""

    def __init__(self):
        self.console = Console(highlight=False, soft_wrap=True)
        self.status = self.console.status("starting") if self.console.is_terminal else None
        if self.status:
            self.status.start()

    def line(self, text: str) -> None:
        self.console.print(text, markup=False)

    def update(self, t: dict, running: int, started: float) -> None:
        if not self.status:
            return
        elapsed = time.monotonic() - started
        eta = elapsed / t["done"] * (t["tasks"] - t["done"]) if t["done"] else None
        failed = t["done"] - t["solved"]
        self.status.update(f"done {t['done']}/{t['tasks']} · running {running} · solved {t['solved']} · failed {failed}"
                           f" · {clock(elapsed)} elapsed" + (f" · ETA {clock(eta)}" if eta is not None else ""))

    def stop(self) -> None:
        if self.status:
            self.status.stop()


def clock(seconds: float) -> str:
    return time.strftime("%H:%M:%S", time.gmtime(seconds))


class Batch:
    def __init__(self, batch_dir: Path, state: dict, servers: list[Server], jobs: int, cwd: Path, verbose: bool,
                 executor=None):
        self.dir, self.state, self.servers, self.jobs = batch_dir, state, servers, jobs
        self.cwd, self.verbose = cwd, verbose
        self.executor = executor or LocalExecutor()
        self.progress = Progress()
        self.started = time.monotonic()
        try:  # what the summary knew of runs that ended before a --resume
            previous = json.loads((batch_dir / SUMMARY).read_text(encoding="utf-8"))["runs"]
        except (OSError, ValueError, KeyError, TypeError):
            previous = []
        self.extra: dict[str, dict] = {r["task_id"]: {k: r.get(k) for k in ("server", "attempts", "executor", "node")}
                                       for r in previous if isinstance(r, dict) and "task_id" in r}

    def run_dir(self, entry: dict) -> Path:
        return self.dir / entry["task_id"]

    def command(self, entry: dict, server: Server) -> list[str]:
        """This very CLI for one task: a new run, or the continuation of one that has begun."""
        run_dir = self.run_dir(entry)
        began = any(e["type"] == "start" for e in read_transcript(run_dir))
        if run_dir.exists() and not began:
            shutil.rmtree(run_dir)  # it never started (no transcript): nothing in it to keep
        what = ["--resume", str(run_dir)] if began else ["--task", entry["task"], "--run-id", entry["task_id"]]
        flags = [f for name, value in self.state["flags"].items() if value is not None
                 for f in (f"--{name.replace('_', '-')}", str(value))]
        return [sys.executable, str(RUN_TASK), *what, "--runs-dir", str(self.dir), *flags,
                *(["--server", server.url] if server.url else [])]

    def summary(self, running: dict) -> dict:
        rows = []
        for entry in self.state["tasks"]:
            run_dir = self.run_dir(entry)
            if entry["task_id"] in running or not run_dir.exists():
                continue
            extra = dict(self.extra.get(entry["task_id"]) or {})
            rows.append(summary_row(entry, run_dir, extra))
        return {"batch_id": self.dir.name, "settings": self.state["settings"], "runs": rows,
                "totals": totals(len(self.state["tasks"]), rows, time.monotonic() - self.started)}

    def publish(self, running: dict) -> dict:
        summary = self.summary(running)
        write_summary(self.dir, summary)
        try:
            report.write_batch_page(self.dir, summary, runs=False)  # each run writes its own page
        except Exception as e:  # a page that cannot be written never stops a batch
            print(f"warning: the batch's report.html could not be written: {e!r}", file=sys.stderr)
        self.progress.update(summary["totals"], len(running), self.started)
        return summary

    def run(self) -> int:
        pending = [e for e in self.state["tasks"] if infrastructure_failure(read_result(self.run_dir(e)))]
        attempts = {e["task_id"]: 0 for e in pending}
        running: dict[str, tuple[Any, Server, dict, float]] = {}
        self.progress.line(f"Batch {self.dir}: {len(pending)} of {len(self.state['tasks'])} tasks to run, "
                           f"{self.jobs} at once on " + ", ".join(f"{s.url or 'the default server'} ({s.slots} slots)"
                                                                 for s in self.servers if s.alive))
        self.publish(running)
        interrupted = False
        for name in ("SIGTERM", "SIGHUP"):  # the runs are in sessions of their own: stop them as on Ctrl-C
            if hasattr(signal, name):  # (no SIGHUP on Windows)
                signal.signal(getattr(signal, name), signal.default_int_handler)
        try:
            while pending or running:
                for server in self.servers:
                    while pending and server.free() and len(running) < self.jobs:
                        entry = pending.pop(0)
                        argv = self.command(entry, server)
                        log = None if self.verbose else self.console_log(entry)
                        running[entry["task_id"]] = (self.executor.start(argv, self.cwd, log), server, entry, time.monotonic())
                        server.busy += 1
                        attempts[entry["task_id"]] += 1
                        self.extra[entry["task_id"]] = {"server": server.url, "attempts": attempts[entry["task_id"]],
                                                        "executor": self.executor.name, "node": None}
                if not running:
                    break  # tasks left, but no server takes them
                time.sleep(0.2)
                for task_id, (handle, server, entry, began) in list(running.items()):
                    code = self.executor.poll(handle)
                    if code is None:
                        continue
                    del running[task_id]
                    server.busy -= 1
                    self.extra[task_id]["node"] = self.executor.node(handle)
                    self.ended(entry, code, time.monotonic() - began, server, pending, attempts)
                    self.publish(running)
        except KeyboardInterrupt:
            interrupted = True
            self.progress.line("Interrupted: stopping the running runs (they end `interrupted`) ...")
            self.stop(running)
        summary = self.publish({})
        self.progress.stop()
        t = summary["totals"]
        left = t["tasks"] - t["done"]
        unverified = f" ({t['unverified']} more unverified: no tests to judge by)" if t["unverified"] else ""
        self.progress.line(f"Batch {self.dir.name}: {t['solved']} of {t['tasks']} solved{unverified}; "
                           f"summary in {self.dir / SUMMARY_MD}")
        if left:
            why = "interrupted" if interrupted else "no server took them" if not any(s.alive for s in self.servers) else "infrastructure failures"
            self.progress.line(f"{left} not done ({why}); continue with: python run_task.py --resume {self.shown_dir()}")
        return 0 if t["solved"] == t["tasks"] else 1

    def shown_dir(self) -> str:
        try:
            return str(self.dir.relative_to(self.cwd))
        except ValueError:
            return str(self.dir)

    def console_log(self, entry: dict) -> Path:
        """The run's console output: in its folder when it has one, else beside it until it does
        (a new run's folder is made by the run itself)."""
        run_dir = self.run_dir(entry)
        return run_dir / "console.log" if run_dir.is_dir() else self.dir / f"{entry['task_id']}.console.log"

    def adopt_log(self, entry: dict) -> Path:
        """Once the run has its folder, its console output moves in; where the log is now."""
        early, run_dir = self.dir / f"{entry['task_id']}.console.log", self.run_dir(entry)
        if early.exists() and run_dir.is_dir():
            shutil.move(early, run_dir / "console.log")
        return self.console_log(entry)

    def ended(self, entry: dict, code: int, wall: float, server: Server, pending: list, attempts: dict) -> None:
        log = self.adopt_log(entry)
        result = read_result(self.run_dir(entry))
        extra = self.extra[entry["task_id"]]
        if result is None:
            extra.update(status="error", reason=f"the run ended without a result (exit code {code}): {last_line(log)}")
        else:
            extra["overhead_seconds"] = round(wall - float((result.get("seconds") or {}).get("total") or 0), 3)
        status = result.get("status") if result else "no result"
        retry = infrastructure_failure(result) and status != "interrupted"
        if retry and (code == 3 or not answers(server.url)) and server.url:
            server.alive = False
            self.progress.line(f"Server {server.url} is gone: it takes no more runs")
        if retry and attempts[entry["task_id"]] < MAX_ATTEMPTS and any(s.alive for s in self.servers):
            pending.insert(0, entry)
            self.progress.line(f"retry  {entry['task_id']}: {status} ({(result or {}).get('reason') or extra.get('reason')})")
            return
        self.progress.line(f"{status:<11} {entry['task_id']}  {(result or {}).get('steps', 0)} steps  "
                           f"{wall:.1f} s" + (f"  ({result.get('reason')})" if result and status != "solved" else ""))

    def stop(self, running: dict) -> None:
        """Ctrl-C: every running run is told once, and given time to end `interrupted` and write
        its result; a second Ctrl-C (or 60 s) kills them."""
        for handle, *_ in running.values():
            self.executor.interrupt(handle)
        deadline = time.monotonic() + 60
        try:
            while any(self.executor.poll(h) is None for h, *_ in running.values()) and time.monotonic() < deadline:
                time.sleep(0.1)
        except KeyboardInterrupt:
            pass
        for handle, _, entry, _ in running.values():
            self.executor.interrupt(handle, hard=True)
            self.executor.poll(handle)
            self.extra[entry["task_id"]]["node"] = self.executor.node(handle)
            self.adopt_log(entry)


# -- the command line ----------------------------------------------------------------------------

def is_batch(folder: Path) -> bool:
    return (folder / STATE).is_file()


def main(args, cwd: Path, flag_settings) -> int:
    """--batch PATH, or --resume of a batch folder. A resumed batch keeps the flags it was started
    with (its servers too), except those given again."""
    if args.run_id:
        return fail("--run-id is for a single run; a batch names its runs by task (--batch-id names the batch)", 2)
    resume = cwd / args.resume if args.resume else None
    try:
        if resume:
            state = json.loads((resume / STATE).read_text(encoding="utf-8"))
            for name, value in {**state["flags"], "server": state.get("server")}.items():
                if getattr(args, name) is None and value is not None:
                    setattr(args, name, value)
            state["flags"], state["server"] = passed_flags(args), args.server
        else:
            if args.limit is not None and args.limit < 1:
                raise ConfigError("--limit must be at least 1")
            state = {"tasks": task_ids(find_tasks(args.batch, cwd)[:args.limit]), "flags": passed_flags(args),
                     "server": args.server, "settings": {"tasks": args.batch, "limit": args.limit}}
        config, _ = load_config(cwd / args.config if args.config else None, flag_settings(args))
        refused = approval.refusal(args.approve, False, config, batch=True)
        if refused:
            raise ConfigError(refused)
        sandbox = Sandbox(config.sandbox)  # made once here (the shared venv too), before any run starts
        servers = open_servers(config, lambda line: print(line, file=sys.stderr))
    except (ConfigError, SandboxError) as e:
        return fail(str(e), 2)
    except KeyboardInterrupt:
        return fail("interrupted before any run started", 1)
    except (OSError, ValueError, KeyError, TypeError) as e:
        return fail(f"{resume}: not a batch folder ({e})" if resume else str(e), 2)
    if not any(s.alive for s in servers):
        return fail("no model server answers at " + ", ".join(s.url or "" for s in servers), 3)
    if args.jobs is not None and args.jobs < 1:
        return fail("--jobs must be at least 1", 2)
    if servers[0].url is None and args.jobs:
        servers[0].slots = args.jobs  # no server named: each run finds its own (the demo model runs in it)
    slots = sum(s.slots for s in servers if s.alive)
    if args.jobs and args.jobs > slots:
        print(f"note: --jobs {args.jobs}, but the servers have {slots} slots together; runs wait for a free slot "
              "(URL#N gives a server N slots)", file=sys.stderr)
    jobs = min(args.jobs or slots, slots)
    if jobs > 1 and sandbox.confinement.layer != "bwrap":
        return fail(f"--jobs {jobs} needs the bwrap sandbox layer: under the basic layer parallel runs share the test "
                    "user and its scratch area and could change each other's files; install bubblewrap "
                    "(apt-get install bubblewrap) or use --jobs 1", 2)
    try:
        executor = make_executor(config)
    except ConfigError as e:
        return fail(str(e), 2)
    try:
        batch_dir = resume or new_batch_dir(Path(config.runs_dir), args.batch_id)
    except ConfigError as e:
        executor.close()
        return fail(str(e), 2)
    state["settings"].update({"servers": [f"{s.url or 'default'}#{s.slots}" for s in servers], "jobs": jobs,
                              "backend": config.backend, "protocol": config.protocol, "model": config.model,
                              "max_steps": config.max_steps, "sandbox": sandbox.confinement.layer})
    state["settings"]["executor"] = config.executor
    write_atomic(batch_dir / STATE, json.dumps(state, indent=2) + "\n")
    try:
        return Batch(batch_dir, state, servers, jobs, cwd, args.verbose, executor).run()
    finally:
        executor.close()


def make_executor(config: Config):
    """The executor the settings name; Ray only when asked for (an optional extra)."""
    if config.executor == "local":
        return LocalExecutor()
    import ray_executor
    try:
        return ray_executor.RayExecutor(config.ray_address, config.ray_run_folders)
    except ray_executor.RayMissing as e:
        raise ConfigError(str(e)) from None
    except (ConnectionError, ValueError, RuntimeError) as e:
        token = "" if os.environ.get("RAY_AUTH_MODE") == "token" else \
            " (a cluster with token authentication needs RAY_AUTH_MODE=token and its token here too)"
        raise ConfigError(f"--executor ray: no Ray cluster to join at {config.ray_address or 'auto'}: {e}{token}") from None


def passed_flags(args) -> dict:
    """The flags every run of the batch gets as given (paths stay relative to the same folder)."""
    return {name: (str(getattr(args, name)) if getattr(args, name) is not None else None) for name in PASSED_FLAGS}


def new_batch_dir(runs_dir: Path, batch_id: Optional[str]) -> Path:
    """A new batch folder; the default name never meets an earlier batch, a named one must be new."""
    runs_dir.mkdir(parents=True, exist_ok=True)
    if batch_id:
        folder = runs_dir / safe_name(batch_id)
        try:
            folder.mkdir(mode=0o700)
        except FileExistsError:
            raise ConfigError(f"{folder} already exists; continue it with --resume {folder}, or pick another --batch-id") from None
        return folder
    stamp = datetime.now().strftime("batch-%Y%m%d-%H%M%S")
    for n in range(1, 1000):
        folder = runs_dir / (stamp if n == 1 else f"{stamp}-{n}")
        try:
            folder.mkdir(mode=0o700)
            return folder
        except FileExistsError:
            continue
    raise ConfigError(f"{runs_dir}: cannot make a new batch folder")

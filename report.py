"""HTML pages of runs, batches and comparisons: one self-contained file each (inline CSS and SVG,
no script, nothing fetched; a Content-Security-Policy says so to the browser too). Every string
that came from a model, a task or a test run is escaped, so a `<script>` in a thought is text."""
from __future__ import annotations

import html
import json
import os
import sys
from pathlib import Path
from typing import Iterable, Optional
from urllib.parse import quote

from rich.table import Table
from rich.text import Text

import console
import replay
import verdict

CSS = """
body{font:14px/1.45 system-ui,sans-serif;margin:1.5em auto;max-width:1100px;padding:0 1em;color:#222}
h1{font-size:1.5em}h2{font-size:1.2em;margin-top:1.6em;border-bottom:1px solid #ddd}
table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #ddd;padding:.25em .6em;text-align:left;vertical-align:top}
th{background:#f4f4f4}td.num{text-align:right}
pre{background:#f7f7f7;padding:.5em;overflow-x:auto;white-space:pre-wrap;word-break:break-word;margin:.3em 0}
.solved,.ok{color:#117a2b;font-weight:600}.bad{color:#b3261e;font-weight:600}.muted{color:#777}
.step{border-left:4px solid #ccc;padding:.2em .9em;margin:1em 0}.step.red{border-color:#b3261e}.step.green{border-color:#117a2b}
.add{color:#117a2b}.del{color:#b3261e}.hunk{color:#777}
.thought{font-style:italic}.action{font-family:monospace;font-weight:600}
"""
CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:"


def e(value) -> str:
    return html.escape("" if value is None else str(value), quote=True)


def page(title: str, body: str) -> str:
    return (f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
            f'<meta http-equiv="Content-Security-Policy" content="{CSP}">'
            f'<meta name="viewport" content="width=device-width, initial-scale=1">'
            f"<title>{e(title)}</title><style>{CSS}</style></head>\n<body>\n{body}\n</body></html>\n")


def table(headers: Iterable[str], rows: Iterable[Iterable[str]], cls: str = "") -> str:
    """Cells are HTML already (escaped by the caller)."""
    head = "".join(f"<th>{e(h)}</th>" for h in headers)
    body = "".join("<tr>" + "".join(f"<td>{c}</td>" for c in row) + "</tr>" for row in rows)
    head = f"<thead><tr>{head}</tr></thead>" if any(headers) else ""
    return f'<table class="{cls}">{head}<tbody>{body}</tbody></table>'


def status_html(status) -> str:
    return f'<span class="{"solved" if status == "solved" else "bad"} status">{e(status or "running")}</span>'


def tests_html(judged: Optional[dict]) -> str:
    """A judged suite (hidden or protected tests) in one line."""
    if not isinstance(judged, dict):
        return '<span class="muted">none</span>'
    counts = e(verdict.counts(judged))
    return (f'<span class="ok">{counts}</span>' if judged.get("ok")
            else f'<span class="bad">{counts}</span> <span class="muted">({e(judged.get("outcome"))})</span>')


def pre(text, cls: str = "") -> str:
    return f'<pre class="{cls}">{e(text)}</pre>'


def details(summary: str, inner: str, open_: bool = False) -> str:
    return f'<details{" open" if open_ else ""}><summary>{summary}</summary>{inner}</details>'


# -- one run ---------------------------------------------------------------------------------

def bar_chart(name: str, bars: list[tuple[str, str, list[tuple[str, float, str]]]], note: str,
              bar_width: int = 34, height: int = 140) -> str:
    """Stacked bars as an inline SVG: each bar is (label under it, tooltip, [(part, value, colour)])."""
    top = max(max((sum(v for _, v, _ in parts) for _, _, parts in bars), default=0), 1)
    width, base = 40 + bar_width * len(bars), height - 20
    shapes = []
    for i, (label, tip, parts) in enumerate(bars):
        x, y, rects = 36 + i * bar_width, float(base), []
        for part, value, colour in parts:
            h = (base - 10) * value / top
            y -= h
            rects.append(f'<rect class="{part}" x="{x}" y="{y:.1f}" width="{bar_width - 8}" height="{h:.1f}" fill="{colour}"/>')
        shapes.append(f'<g class="bar"><title>{e(tip)}</title>{"".join(rects)}<text x="{x + (bar_width - 8) / 2}" '
                      f'y="{height - 5}" font-size="10" text-anchor="middle">{e(label)}</text></g>')
    axis = (f'<line x1="32" y1="{base}" x2="{width}" y2="{base}" stroke="#999"/>'
            f'<text x="28" y="14" font-size="10" text-anchor="end">{top:g}</text>'
            f'<text x="28" y="{base}" font-size="10" text-anchor="end">0</text>')
    return (f'<svg class="chart {name}" role="img" aria-label="{e(note)}" width="{width}" height="{height}" '
            f'viewBox="0 0 {width} {height}" xmlns="http://www.w3.org/2000/svg">{axis}{"".join(shapes)}</svg>'
            f'<p class="muted">{e(note)}</p>')


def tests_chart(test_runs: list[dict]) -> str:
    if not test_runs:
        return '<p class="muted">No test runs.</p>'
    return bar_chart("tests", [(str(r.get("step")), f"step {r.get('step')}: {verdict.counts(r)}, {r.get('outcome')}",
                                [("passed", r.get("passed") or 0, "#2e9e4f"),
                                 ("failed", (r.get("failed") or 0) + (r.get("errors") or 0), "#d9534f")])
                               for r in test_runs],
                     "Each bar is one test run (under it: the step); green passed, red failed or errors.")


def tokens_chart(steps: list[replay.Step]) -> str:
    if not steps:
        return '<p class="muted">No steps.</p>'
    return bar_chart("tokens", [(str(s.number), f"step {s.number}: {s.tokens[0]} prompt + {s.tokens[1]} completion tokens, "
                                                f"{s.seconds:.1f} s", [("prompt", s.tokens[0], "#9aa7b8"),
                                                                       ("completion", s.tokens[1], "#3b6fb6")])
                                for s in steps],
                     "Tokens of each step: grey the prompt, blue the completion (hover for the seconds).")


def diff_html(change: replay.Change) -> str:
    rows = []
    for line in change.diff():
        cls = "add" if line.startswith("+") else "del" if line.startswith("-") else "hunk" if line.startswith("@@") else ""
        rows.append(f'<span class="{cls}">{e(line)}</span>')
    what = ("new file" if change.before is None else "diff against the previous version") if change.whole \
        else "the edit (the file's earlier text is not in the transcript)"
    if change.made is False:
        what += ", not made (see the observation)"
    return details(f"{e(change.path)}: {what}", f'<pre class="diff">{chr(10).join(rows)}</pre>', open_=True)


def event_html(event: dict) -> str:
    kind = event["type"]
    if kind == "observation":
        return details("observation", pre(event.get("text")))
    if kind == "test_run":
        cls = "ok" if event.get("ok") else "bad"
        head = f'tests: <span class="{cls}">{e(event.get("outcome"))}, {e(verdict.counts(event))}</span> ({e(event.get("seconds"))} s)'
        return f'<div class="test-run">{details(head, pre(event.get("output")), open_=not event.get("ok"))}</div>'
    if kind == "finish_refused":
        return f'<p class="bad">finish refused</p>{pre(event.get("reason"))}'
    if kind == "finish_accepted":
        return f'<p class="ok">finish accepted</p>{pre(event.get("summary"))}'
    fields = {k: v for k, v in event.items() if k not in ("t", "step", "type")}
    rows = [(e(k), pre(v if isinstance(v, str) else json.dumps(v, indent=1, default=str))) for k, v in fields.items()]
    return f'<div class="event">{details(e(kind), table(("field", "value"), rows))}</div>'


def step_html(step: replay.Step) -> str:
    runs = step.of_type("test_run")
    colour = "" if not runs else "green" if runs[-1].get("ok") else "red"
    prompt_tokens, completion_tokens = step.tokens
    head = (f'<h3>Step {step.number} <span class="muted">({prompt_tokens} prompt + {completion_tokens} completion '
            f'tokens, {step.seconds:.1f} s)</span></h3>')
    parts = []
    if step.action is not None:
        parts.append(f'<p class="thought">{e(step.action.thought)}</p><p class="action">{e(step.action.describe())}</p>')
    elif step.reply is not None:
        parts.append(f'<p class="bad">invalid reply ({e(step.reply.get("kind"))}): {e(step.reply.get("error"))}</p>'
                     + details("the reply", pre(step.reply.get("text"))))
    if step.change:
        parts.append(diff_html(step.change))
    parts += [event_html(event) for event in step.events]
    return f'<section class="step {colour}" id="step-{step.number}">{head}{"".join(parts)}</section>'


def passed_of(test_run: dict) -> str:
    ran = sum(test_run.get(k) or 0 for k in ("passed", "failed", "errors"))
    return f'<span class="{"ok" if test_run.get("ok") else "bad"}">{e(test_run.get("passed"))}/{ran}</span>'


def run_page(run: replay.Run) -> str:
    result, start, end = run.result or {}, run.start, run.end or {}
    status = result.get("status") or end.get("status")
    name = result.get("task_id") or start.get("task_id") or run.folder.name
    tokens, seconds = result.get("tokens") or {}, result.get("seconds") or {}
    facts = [("status", status_html(status)), ("reason", e(result.get("reason") or end.get("reason") or "the run has not ended")),
             ("finish accepted", e(result.get("finish_accepted"))),
             ("hidden tests, judged", tests_html(result.get("hidden_tests"))),
             ("protected tests, judged", tests_html(result.get("protected_tests"))),
             ("verified", e(result.get("verified"))), ("steps", e(result.get("steps", len(run.steps)))),
             ("invalid replies", e(result.get("invalid_replies"))),
             ("tokens", e(f"{tokens.get('prompt', 0)} prompt, {tokens.get('completion', 0)} completion")),
             ("seconds", e(f"{seconds.get('llm', 0)} model, {seconds.get('tests', 0)} tests, {seconds.get('total', 0)} total")),
             ("model", e(start.get("backend"))), ("protocol", e(start.get("protocol"))), ("sandbox", e(start.get("sandbox")))]
    judged = "".join(details(f'{e(j.get("suite"))}: {tests_html(j)}', pre(j.get("output"))) for j in run.of_type("judged_tests"))
    step_rows = [(f'<a href="#step-{s.number}">{s.number}</a>',
                  e(s.action.describe() if s.action else f"invalid reply ({(s.reply or {}).get('kind')})"),
                  str(s.tokens[0]), str(s.tokens[1]), f"{s.seconds:.1f}",
                  " ".join(passed_of(r) for r in s.of_type("test_run")))
                 for s in run.steps]
    body = (f'<h1>Run {e(name)}: {status_html(status)}</h1>'
            f'<h2>Verdict</h2>{table(("", ""), facts, "verdict")}{judged}'
            f'<h2>Task</h2>{pre(start.get("prompt"))}'
            f'<h2>Tests across the steps</h2>{tests_chart(run.of_type("test_run"))}'
            f'<h2>Tokens per step</h2>{tokens_chart(run.steps)}'
            f'<h2>Steps</h2>{table(("step", "action", "prompt tokens", "completion tokens", "seconds", "tests passed"), step_rows, "steps")}'
            f'<h2>Timeline</h2>{"".join(step_html(s) for s in run.steps)}')
    return page(f"Run {name}: {status or 'running'}", body)


def write_run_page(run_dir: Path) -> Path:
    out = run_dir / "report.html"
    out.write_text(run_page(replay.read_run(run_dir)), encoding="utf-8")
    return out


# -- batches ---------------------------------------------------------------------------------

def summary_rows(summary: dict) -> list[dict]:
    return [r for r in summary["runs"] if isinstance(r, dict)]


def ran_on(run: dict) -> str:
    """Where a run ran: `local <host>` or `ray <node id>` (summaries from before the executor: empty)."""
    return " ".join(str(run[k]) for k in ("executor", "node") if run.get(k))


def batch_page(batch_dir: Path, summary: dict) -> str:
    rows = []
    for run in summary_rows(summary):
        task_id = str(run.get("task_id") or "")
        link = (f'<a href="{e(quote(task_id))}/report.html">{e(task_id)}</a>'
                if task_id and (batch_dir / task_id / "report.html").is_file() else e(task_id or run.get("task")))
        rows.append((link, status_html(run.get("status")), e(run.get("reason")), e(run.get("steps")),
                     e(run.get("invalid_replies")), e(run.get("finish_accepted")), tests_html(run.get("hidden_tests")),
                     e(f"{replay.total(run.get('tokens')):.0f}"), e(f"{replay.total(run.get('seconds')):.1f}"),
                     e(ran_on(run))))
    totals = summary.get("totals") if isinstance(summary.get("totals"), dict) else {}
    name = summary.get("batch_id") or batch_dir.name
    body = (f"<h1>Batch {e(name)}</h1><h2>Totals</h2>{table(('', ''), [(e(k), e(console.plain(v))) for k, v in totals.items()], 'totals')}"
            f"<h2>Runs</h2>{table(('task', 'status', 'reason', 'steps', 'invalid replies', 'finish accepted', 'hidden tests', 'tokens', 'seconds', 'ran on'), rows, 'runs')}"
            f"<h2>Settings</h2>{pre(json.dumps(summary.get('settings'), indent=1, default=str))}")
    return page(f"Batch {name}", body)


def write_batch_page(batch_dir: Path, summary: Optional[dict] = None, runs: bool = True) -> Path:
    """runs/<batch_id>/report.html, and (runs) each run's own page it links to; a batch that
    rewrites its page as each run ends passes runs=False (every run writes its own page)."""
    summary = summary or replay.read_summary(batch_dir)
    for run in summary_rows(summary) if runs else []:
        folder = batch_dir / str(run.get("task_id") or "")
        if run.get("task_id") and replay.is_run(folder):
            write_run_page(folder)
    out = batch_dir / "report.html"
    out.write_text(batch_page(batch_dir, summary), encoding="utf-8")
    return out


# -- comparing batches -----------------------------------------------------------------------

def batch_totals(summary: dict) -> dict:
    """What a user compares batches by; seconds per solved task is every run's seconds (the cost
    of the batch, not its wall time) over the solved ones."""
    runs = summary_rows(summary)
    solved = sum(r.get("status") == "solved" for r in runs)
    seconds = sum(replay.total(r.get("seconds")) for r in runs)
    return {"tasks": len(runs), "solved": solved, "finish accepted": sum(bool(r.get("finish_accepted")) for r in runs),
            "steps": sum(replay.total(r.get("steps")) for r in runs),
            "tokens": int(sum(replay.total(r.get("tokens")) for r in runs)),
            "seconds per solved task": round(seconds / solved, 1) if solved else None}


def compare(batches: list[tuple[str, dict]]) -> tuple[list[str], list[list[Optional[dict]]], list[dict]]:
    """Task names in order of first appearance, each task's run in every batch, every batch's totals."""
    tasks: dict[str, list[Optional[dict]]] = {}
    for i, (_, summary) in enumerate(batches):
        for run in summary_rows(summary):
            key = str(run.get("task") or run.get("task_id"))
            tasks.setdefault(key, [None] * len(batches))[i] = run
    return list(tasks), list(tasks.values()), [batch_totals(s) for _, s in batches]


def compare_page(batches: list[tuple[str, dict]], links: list[str]) -> str:
    """links: each batch's folder, relative to the page (a run's status links to its page)."""
    names, cells, totals = compare(batches)
    headers = ["task", *(name for name, _ in batches)]

    def cell(run: Optional[dict], link: str) -> str:
        if not run:
            return '<span class="muted">-</span>'
        status = status_html(run.get("status"))
        if run.get("task_id"):
            status = f'<a href="{e(link)}/{e(quote(str(run["task_id"])))}/report.html">{status}</a>'
        return f'{status} <span class="muted">{e(run.get("steps"))} steps</span>'

    rows = [[e(task)] + [cell(run, link) for run, link in zip(runs, links)] for task, runs in zip(names, cells)]
    total_rows = [[e(key)] + [e(t[key]) for t in totals] for key in totals[0]]
    body = (f"<h1>Comparison of {len(batches)} batches</h1><h2>Totals</h2>{table(['', *headers[1:]], total_rows, 'totals')}"
            f"<h2>Per task</h2>{table(headers, rows, 'compare')}")
    return page("Comparison: " + " vs ".join(name for name, _ in batches), body)


def compare_table(batches: list[tuple[str, dict]]) -> Table:
    names, cells, totals = compare(batches)
    out = Table(title="Comparison")
    for header in ["task", *(console.short(name, 40) for name, _ in batches)]:
        out.add_column(header, overflow="fold")
    for task, runs in zip(names, cells):
        out.add_row(console.short(task, 60), *(Text(console.short(r.get("status"), 20), style="green" if r.get("status") == "solved" else "red")
                                               if r else Text("-", style="dim") for r in runs))
    out.add_section()
    for key in totals[0]:
        out.add_row(Text(key, style="bold"), *(console.plain(t[key]) for t in totals))
    return out


# -- the command line: --report, --compare -----------------------------------------------------

def main_report(path: Path) -> int:
    if replay.is_run(path):
        print(f"Report: {write_run_page(path)}")
        return 0
    summary = replay.read_summary(path)
    if summary is None:
        return _fail(f"{path}: not a run folder (no transcript.jsonl) nor a batch folder (no summary.json)")
    print(f"Report: {write_batch_page(path, summary)}")
    return 0


def main_compare(paths: list[Path]) -> int:
    """compare.html goes into the folder that holds the first batch (runs/, usually)."""
    if len(paths) < 2:
        return _fail("--compare needs two batch folders or more")
    batches = []
    for path in paths:
        summary = replay.read_summary(path)
        if summary is None:
            return _fail(f"{path}: not a batch folder (no summary.json with runs)")
        batches.append((str(summary.get("batch_id") or path.name), summary))
    console.make_console().print(compare_table(batches))
    out = paths[0].resolve().parent / "compare.html"
    links = [quote(os.path.relpath(path.resolve(), out.parent)) for path in paths]
    out.write_text(compare_page(batches, links), encoding="utf-8")
    print(f"Report: {out}")
    return 0


def _fail(message: str) -> int:
    print(f"error: {message}", file=sys.stderr)
    return 2

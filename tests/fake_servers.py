"""Scripted stand-ins for model servers, on a free loopback port.

They are NOT models: each is a scripted test double that plays a fixed list of replies, in
order, so a test can make "the model" do exactly what it needs — including misbehaving on
purpose (invalid JSON, prose, editing protected tests, never finishing). They speak the wire
format of the real servers, with the real servers' quirks (KoboldCPP's constant `usage`,
"length" on stop sequences, one generation at a time, and generating on after the client gave
up until /api/extra/abort; llama-server's `timings`; Ollama's `done_reason`), and they record
every request so tests can check the shape the agent sent.

A scripted reply is a string (the model's text), or a dict:
  {"text": ..., "truncated": True}   the reply was cut at max tokens
  {"status": 503}                    the server answers with this HTTP status instead
  {"delay": 30, ...}                 the reply comes after that many seconds (sooner if aborted)
  {"gate": threading.Event(), ...}   the reply comes once the test sets the event (or aborted; at most 120 s)
  {"reset": True}                    the connection is dropped without an answer (KoboldCPP only)
  {"tool": name, "arguments": {...}, "content": "..."}  a native tool call (tools protocol)
"""
from __future__ import annotations

import json
import socket
import subprocess
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Optional, Union

Script = list[Union[str, dict]]


class ScriptedServer:
    kind = "base"

    def __init__(self, replies: Script = (), context: int = 4096):
        self.replies = list(replies)
        self.context = context
        self.requests: list[dict] = []  # {"method", "path", "body"}
        self.generations = 0
        self.last: dict = {}
        self._lock = threading.Lock()
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def __enter__(self) -> "ScriptedServer":
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    def bodies(self, path: str) -> list[dict]:
        return [r["body"] for r in self.requests if r["path"] == path]

    def next_reply(self, stop: Optional[threading.Event] = None) -> dict:
        """The next scripted reply; when the script runs out, the model keeps saying prose.
        A delayed reply ends early when `stop` is set (KoboldCPP's abort)."""
        with self._lock:
            script = self.script()
            item = script.pop(0) if script else "I am done."
            self.generations += 1
        if isinstance(item, str):
            item = {"text": item}
        if item.get("gate") is not None:  # a model still thinking until the test has seen what it needs
            deadline = time.monotonic() + item.get("delay", 120)
            while not item["gate"].wait(0.05) and not (stop and stop.is_set()) and time.monotonic() < deadline:
                pass
        elif item.get("delay"):  # a slow model, to interrupt a run mid-request
            (stop or threading.Event()).wait(item["delay"])
        return item

    def script(self) -> list:
        """The replies left for the request being served."""
        return self.replies

    def route(self, method: str, path: str, body: Optional[dict]) -> tuple[int, Any]:
        raise NotImplementedError

    def _handler(self):
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):  # keep test output clean
                pass

            def _serve(self, method: str) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length) if length else b""
                try:
                    body = json.loads(raw) if raw else None
                except json.JSONDecodeError:
                    body = {"_invalid_json": raw.decode(errors="replace")}
                server.requests.append({"method": method, "path": self.path, "body": body})
                status, payload = server.route(method, self.path, body)
                if status == "reset":  # drop the connection without an answer
                    self.close_connection = True
                    return
                data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up waiting (a timeout, Ctrl-C)

            def do_GET(self):
                self._serve("GET")

            def do_POST(self):
                self._serve("POST")

        return Handler


def _missing(body: Optional[dict], fields: dict[str, type]) -> Optional[str]:
    if not isinstance(body, dict):
        return "body must be a JSON object"
    for name, kind in fields.items():
        if not isinstance(body.get(name), kind):
            return f"field {name!r} must be {kind.__name__}"
    return None


class FakeKoboldCpp(ScriptedServer):
    """KoboldCPP 1.76 as seen here: chat completions with a `grammar` field, native generate,
    perf, tokencount; `usage` is a constant 100/100 and stop-sequence hits say "length".

    One generation runs at a time and the next request waits behind it; a generation goes on
    after its client gave up, until POST /api/extra/abort with its `genkey` (or with no key)
    ends it. `aborts` records the body of every abort request, `abort_delay` slows its answer."""

    kind = "koboldcpp"

    def __init__(self, replies: Script = (), context: int = 4096, chat_endpoint: bool = True, version: str = "1.76",
                 abort_delay: float = 0.0):
        super().__init__(replies, context)
        self.chat_endpoint = chat_endpoint
        self.version = version
        self.abort_delay = abort_delay
        self.aborts: list[Any] = []
        self._busy = threading.Lock()  # one generation at a time
        self._running: Optional[tuple[str, threading.Event]] = None  # (genkey, stop) of the running one

    def _generate(self, body: dict, length_field: str) -> tuple[int, Any, Optional[dict]]:
        problem = _missing(body, {length_field: int})
        if problem:
            return 400, {"error": problem}, None
        with self._busy:
            self._running = (str(body.get("genkey") or ""), threading.Event())
            try:
                item = self.next_reply(self._running[1])
            finally:
                self._running = None
        if item.get("reset"):
            return "reset", None, None
        if "status" in item:
            return item["status"], {"error": "scripted failure"}, None
        self.last = {"tokens": max(1, len(item.get("text", "")) // 4), "stop_reason": 0 if item.get("truncated") else 2}
        return 200, None, item

    def route(self, method, path, body):
        if method == "GET" and path == "/api/extra/version":
            return 200, {"result": "KoboldCpp", "version": self.version, "protected": False}
        if method == "GET" and path == "/api/extra/true_max_context_length":
            return 200, {"value": self.context}
        if method == "GET" and path == "/api/v1/model":
            return 200, {"result": "koboldcpp/fake-coder"}
        if method == "GET" and path == "/v1/models" and self.chat_endpoint:
            return 200, {"object": "list", "data": [{"id": "koboldcpp/fake-coder", "object": "model"}]}
        if method == "GET" and path == "/api/extra/perf":
            return 200, {"last_process": 0.1, "last_eval": 0.2, "last_token_count": self.last.get("tokens", 0),
                         "stop_reason": self.last.get("stop_reason", -1), "queue": 0, "idle": 1}
        if method == "POST" and path == "/api/extra/tokencount":
            text = (body or {}).get("prompt", "")
            return 200, {"value": len(text) // 4, "ids": []}
        if method == "POST" and path == "/api/extra/abort":
            self.aborts.append(body)
            time.sleep(self.abort_delay)
            key = str(body.get("genkey") or "") if isinstance(body, dict) else ""
            running = self._running
            if running and key in ("", running[0]):
                running[1].set()
                return 200, {"success": "true", "done": "true"}
            return 200, {"success": "false", "done": "false"}
        if method == "POST" and path == "/v1/chat/completions" and self.chat_endpoint:
            problem = _missing(body, {"messages": list})
            if problem:
                return 400, {"error": problem}
            status, error, item = self._generate(body, "max_tokens")
            if item is None:
                return status, error
            message: dict = {"role": "assistant", "content": item.get("text", item.get("content", ""))}
            if "tool" in item:
                message["tool_calls"] = [{"id": "call_1", "type": "function", "function": {
                    "name": item["tool"], "arguments": json.dumps(item.get("arguments", {}))}}]
            return 200, {"id": "chatcmpl-1", "object": "chat.completion", "model": "koboldcpp/fake-coder",
                         "choices": [{"index": 0, "message": message, "finish_reason": "length"}],
                         "usage": {"prompt_tokens": 100, "completion_tokens": 100, "total_tokens": 200}}
        if method == "POST" and path == "/api/v1/generate":
            problem = _missing(body, {"prompt": str})
            if problem:
                return 400, {"error": problem}
            status, error, item = self._generate(body, "max_length")
            if item is None:
                return status, error
            return 200, {"results": [{"text": item.get("text", ""), "finish_reason": "length"}]}
        return 404, {"detail": "Not Found"}


class PerTaskKoboldCpp(FakeKoboldCpp):
    """A scripted KoboldCPP for batches (NOT a model): one script per task, chosen by a key (a
    word of the task's prompt) found in the request's first user message (the task), so runs
    that share the server each get their own replies whatever order they arrive in. `served`
    counts each key's generations. Run as a process (`python tests/fake_servers.py SCRIPTS.json`, it prints its
    URL) to be killed mid-batch like a real server."""

    def __init__(self, scripts: dict[str, Script], **kwargs):
        super().__init__([], **kwargs)
        self.scripts = {key: list(replies) for key, replies in scripts.items()}
        self.served = {key: 0 for key in scripts}
        self._request = threading.local()

    def _generate(self, body: dict, length_field: str):
        task = [m.get("content") for m in body.get("messages") or [] if isinstance(m, dict) and m.get("role") == "user"]
        text = str(task[0] if task else body.get("prompt") or "")  # the task message comes first
        self._request.key = next((key for key in self.scripts if key in text), None)
        return super()._generate(body, length_field)

    def script(self) -> list:
        key = getattr(self._request, "key", None)
        if key is None:
            return []
        self.served[key] += 1
        return self.scripts[key]


class FakeLlamaServer(ScriptedServer):
    """llama.cpp's llama-server: /health (503 while "loading"), /props, /tokenize, and chat
    completions that carry real `usage` (with cached tokens) and `timings`. Both `grammar` and
    `json_schema` -> 500."""

    kind = "llama-server"

    def __init__(self, replies: Script = (), context: int = 4096, loading_probes: int = 0, slots: int = 1):
        super().__init__(replies, context)
        self.loading_probes = loading_probes
        self.slots = slots  # `--parallel N`: /props total_slots

    def route(self, method, path, body):
        if self.loading_probes and path != "/health":
            return 503, {"error": {"code": 503, "message": "Loading model", "type": "unavailable_error"}}
        if method == "GET" and path == "/health":
            if self.loading_probes:
                self.loading_probes -= 1
                return 503, {"error": {"code": 503, "message": "Loading model", "type": "unavailable_error"}}
            return 200, {"status": "ok"}
        if method == "GET" and path == "/props":
            return 200, {"default_generation_settings": {"n_ctx": self.context}, "total_slots": self.slots,
                         "chat_template": "{% for m in messages %}...{% endfor %}", "build_info": "b9999-fake"}
        if method == "GET" and path == "/v1/models":
            return 200, {"object": "list", "data": [{"id": "fake-coder.gguf", "object": "model", "owned_by": "llamacpp",
                                                    "meta": {"n_ctx_train": 32768}}]}
        if method == "POST" and path == "/tokenize":
            return 200, {"tokens": list(range(len((body or {}).get("content", "")) // 4))}
        if method == "POST" and path == "/v1/chat/completions":
            problem = _missing(body, {"messages": list, "max_tokens": int})
            if problem:
                return 400, {"error": {"code": 400, "message": problem, "type": "invalid_request_error"}}
            if "grammar" in body and "json_schema" in body:
                return 500, {"error": {"code": 500, "message": "Either \"json_schema\" or \"grammar\" can be specified, but not both"}}
            if "tools" in body and "grammar" in body:
                return 400, {"error": {"code": 400, "message": "Cannot use custom grammar constraints with tools."}}
            item = self.next_reply()
            if "status" in item:
                return item["status"], {"error": {"code": item["status"], "message": "scripted failure"}}
            message: dict = {"role": "assistant", "content": item.get("text", item.get("content", ""))}
            finish = "length" if item.get("truncated") else "stop"
            if "tool" in item:
                message["tool_calls"] = [{"id": "c1", "type": "function", "function": {
                    "name": item["tool"], "arguments": json.dumps(item.get("arguments", {}))}}]
                finish = "tool_calls"
            prompt_n = 10 + sum(len(m.get("content") or "") for m in body["messages"]) // 4  # + template
            cached = prompt_n - 5 if self.generations > 1 else 0  # an append-only history reuses the cache
            predicted = max(1, len(message["content"]) // 4)
            return 200, {"choices": [{"index": 0, "message": message, "finish_reason": finish}],
                         "model": "fake-coder.gguf", "object": "chat.completion",
                         "usage": {"prompt_tokens": prompt_n, "completion_tokens": predicted,
                                   "total_tokens": prompt_n + predicted,
                                   "prompt_tokens_details": {"cached_tokens": cached}},
                         "timings": {"cache_n": cached, "prompt_n": prompt_n - cached, "prompt_ms": 12.5,
                                     "predicted_n": predicted, "predicted_ms": 40.0}}
        return 404, {"error": {"code": 404, "message": "File Not Found", "type": "not_found_error"}}


class FakeOllama(ScriptedServer):
    """Ollama: /api/version, /api/tags, and /api/chat with `format`, `options.num_ctx`, and
    `done_reason` in the reply."""

    kind = "ollama"

    def route(self, method, path, body):
        if method == "GET" and path == "/api/version":
            return 200, {"version": "0.12.0"}
        if method == "GET" and path == "/api/tags":
            return 200, {"models": [{"name": "qwen2.5-coder:7b", "model": "qwen2.5-coder:7b"}]}
        if method == "POST" and path == "/api/chat":
            problem = _missing(body, {"model": str, "messages": list, "options": dict})
            if problem:
                return 400, {"error": problem}
            item = self.next_reply()
            if "status" in item:
                return item["status"], {"error": "scripted failure"}
            message: dict = {"role": "assistant", "content": item.get("text", item.get("content", ""))}
            if "tool" in item:
                message["tool_calls"] = [{"function": {"name": item["tool"], "arguments": item.get("arguments", {})}}]
            return 200, {"model": body["model"], "message": message, "done": True,
                         "done_reason": "length" if item.get("truncated") else "stop",
                         "prompt_eval_count": 50, "eval_count": 20}
        return 404, {"error": "404 page not found"}


class FakeSystemOne(ScriptedServer):
    """A scripted stand-in for a decision model's `/v1/systemone` server (Jeff's API), NOT a
    model: each request gets the next scripted answer, so a test can make the decider say
    routine, look closely, answer late or answer garbage on purpose. A scripted answer is a dict:
      {"choice": "1", "p": 0.05}     the answer to question q: that choice, p for option "2"
      {"delay": 5, ...}              the answer comes after that many seconds
      {"status": 500}                this HTTP status instead
      {"raw": b"..."}                this body instead of JSON (a malformed reply)
      {"look_if": "subprocess", "p": 0.96}   choice 2 with p when the state holds that text, else
                                     routine (0.05): a decider that reads what it is shown
    When the script runs out it keeps answering routine (0.05). Requests are kept in .requests."""

    kind = "systemone"

    def route(self, method, path, body):
        if method != "POST" or path != "/v1/systemone":
            return 404, {"detail": "Not Found"}
        problem = _missing(body, {"model": str, "state": str, "questions": dict})
        if problem:
            return 400, {"detail": problem}
        item = self.next_reply()
        item = {"choice": "1", "p": 0.05} if "text" in item else item  # the script ran out
        if "status" in item:
            return item["status"], {"detail": "scripted failure"}
        if "raw" in item:
            return 200, item["raw"]
        if "look_if" in item:
            item = {"choice": "2", "p": item["p"]} if item["look_if"] in body["state"] else {"choice": "1", "p": 0.05}
        p = item["p"]
        answer = {"type": "choice", "choice": item["choice"], "probabilities": {"1": round(1 - p, 4), "2": p},
                  "confidence": round(abs(2 * p - 1), 4)}
        return 200, {"model": body["model"], "answers": {"q": answer},
                     "usage": {"input_tokens": len(body["state"]) // 4, "output_tokens": 0}}


def action(name: str, thought: str = "next step", **fields: str) -> str:
    """A scripted model reply in our action format."""
    return json.dumps({"thought": thought, "action": name, **fields})


# -- real server processes (llama-cpp-python's server, llama-server): shared by tests and bench/ --

def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(cmd: list[str], url: str, probe: str, attempts: int = 240) -> subprocess.Popen:
    """Start a real model server and wait until `url + probe` answers 200; raise if it exits or
    never answers (the process is killed then)."""
    import httpx
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for _ in range(attempts):
        try:
            if httpx.get(url + probe, timeout=2).status_code == 200:
                return proc
        except httpx.TransportError:
            pass
        if proc.poll() is not None:
            raise RuntimeError(f"{cmd[0]} exited at start")
        time.sleep(0.5)
    proc.kill()
    raise RuntimeError(f"{cmd[0]} did not start")


class ScriptedBackend:
    """An in-process stand-in for a model server (NOT a model): plays `replies` in order, so loop
    tests can build an Orchestrator directly, without a subprocess or HTTP. The wire formats are
    tested with the scripted HTTP servers above."""

    name, protocols = "scripted", ("grammar",)

    def __init__(self, replies: Script, context: int = 4096):
        import llm_client
        self.replies, self.context_size, self.model, self.sent = list(replies), context, "scripted", []
        self._reply = llm_client.Reply

    def pick_protocol(self) -> str:
        return "grammar"

    def describe(self) -> str:
        return "scripted backend"

    def count_tokens(self, text: str):
        return None

    def complete(self, messages, fmt, protocol):
        self.sent.append([dict(m) for m in messages])
        item = self.replies.pop(0) if self.replies else "I am done."
        item = {"text": item} if isinstance(item, str) else item
        return self._reply(item.get("text", ""), "stop", bool(item.get("truncated")), prompt_tokens=10,
                           completion_tokens=len(item.get("text", "")) // 4, backend=self.name, model=self.model)


if __name__ == "__main__":  # a scripted server in a process of its own, to be killed
    import sys
    with open(sys.argv[1]) as f:
        server = PerTaskKoboldCpp(json.load(f))
    print(server.url, flush=True)
    server.httpd.serve_forever()

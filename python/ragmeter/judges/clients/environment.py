"""Configuration from arguments and the environment: base URL, model, API key.

Names of the environment variables and the rules for their defaults live here, once.
"""

from __future__ import annotations

import ipaddress
import os
import re
import urllib.parse

from ...exceptions import InvalidInputError, JudgeConfigurationError
from .secrets import Secret, checked_secret, redact, split_credentials

__all__ = [
    "ENV_API_KEY",
    "ENV_BASE_URL",
    "ENV_EMBEDDING_MODEL",
    "ENV_MODEL",
    "LOOPBACK_TIMEOUT_S",
    "OPENAI_BASE_URL",
    "REMOTE_TIMEOUT_S",
    "default_concurrency",
    "default_timeout",
    "env_value",
    "is_local_url",
    "is_openai_url",
    "resolve_api_key",
    "resolve_base_url",
    "resolve_endpoint",
    "resolve_judge_model",
    "resolve_model",
]

ENV_API_KEY = "OPENAI_API_KEY"
ENV_BASE_URL = "OPENAI_BASE_URL"
ENV_MODEL = "RAGMETER_JUDGE_MODEL"
ENV_EMBEDDING_MODEL = "RAGMETER_EMBEDDING_MODEL"
OPENAI_BASE_URL = "https://api.openai.com/v1"


def env_value(name: str) -> str | None:
    value = os.environ.get(name, "").strip()
    return value or None


LOOPBACK_CONCURRENCY = 2
#: The default ``timeout_s`` of a request to a server on this machine, and to any other. A
#: small model on a laptop's CPU takes 40-100 s for a long answer, and a request waits in the
#: server's queue behind the one it is working on (with 2 in flight, twice that): 60 s cut off
#: 13 of 166 requests of a run with every default against SmolLM2-135M on llama-cpp-python.
LOOPBACK_TIMEOUT_S = 300.0
REMOTE_TIMEOUT_S = 60.0


def is_local_url(base_url: str) -> bool:
    """Whether ``base_url`` points at this machine (loopback address, localhost, 0.0.0.0)."""
    host = urllib.parse.urlsplit(base_url).hostname or ""
    if host in ("localhost", "0.0.0.0") or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def default_concurrency(base_url: str, remote: int, given: int | None) -> int:
    """``given``, else 2 for a server on this machine, else ``remote``.

    A local server (llama.cpp, llama-cpp-python, Ollama on a CPU) usually answers one request
    at a time: requests sent beyond that wait in its queue while their timeouts run.
    """
    if given is not None:
        return given
    return LOOPBACK_CONCURRENCY if is_local_url(base_url) else remote


def default_timeout(base_url: str, given: float | None) -> float:
    """``given``, else ``LOOPBACK_TIMEOUT_S`` (300 s) for a server on this machine, else
    ``REMOTE_TIMEOUT_S`` (60 s)."""
    if given is not None:
        return given
    return LOOPBACK_TIMEOUT_S if is_local_url(base_url) else REMOTE_TIMEOUT_S


def is_openai_url(base_url: str) -> bool:
    return "api.openai.com" in base_url


def resolve_base_url(base_url: str | None) -> str:
    """``base_url``, else ``$OPENAI_BASE_URL``, else OpenAI's; checked, without trailing ``/``."""
    url = (base_url or env_value(ENV_BASE_URL) or OPENAI_BASE_URL).strip()
    if not re.match(r"^https?://", url):
        shown = redact(url)
        raise InvalidInputError(
            f"base_url must start with http:// or https://, got {shown!r} "
            "(for example http://127.0.0.1:8000/v1)"
        )
    return url.rstrip("/")


def resolve_endpoint(base_url: str | None) -> tuple[str, Secret | None]:
    """The base URL without credentials, and its ``user:password@`` part as HTTP Basic auth.

    Credentials in a URL are sent as HTTP Basic auth (as httpx and curl do) and never shown:
    reprs, identities (cache keys, manifests) and messages hold the URL without them.
    """
    return split_credentials(resolve_base_url(base_url))


def resolve_api_key(api_key: str | Secret | None, base_url: str, *, what: str) -> Secret | None:
    """``api_key``, else ``$OPENAI_API_KEY``, checked; required only for api.openai.com."""
    key = checked_secret(api_key, argument="api_key")
    if key is None:
        key = checked_secret(env_value(ENV_API_KEY), argument=ENV_API_KEY)
    if key is None and is_openai_url(base_url):
        raise JudgeConfigurationError(
            f"{what} talks to {base_url} but no API key is set: pass api_key=... or set "
            f"{ENV_API_KEY}; for a local OpenAI-compatible server set {ENV_BASE_URL} "
            "(for example http://127.0.0.1:8000/v1) instead"
        )
    return key


NO_JUDGE_MESSAGE = (
    "No LLM judge is configured. Pass judge= (an OpenAICompatibleJudge, an openai.OpenAI client "
    f"or any callable), or set the environment variables {ENV_MODEL}=<model name> and either "
    f"{ENV_API_KEY}=<key> (for api.openai.com) or {ENV_BASE_URL}=<http://host:port/v1> (for a "
    "local or other OpenAI-compatible server)."
)


def resolve_model(model: str | None, *, env: str = ENV_MODEL, what: str = "judge") -> str:
    """``model``, else ``$RAGMETER_JUDGE_MODEL`` (or ``env``); the error says what to set."""
    resolved = model or env_value(env)
    if not resolved:
        raise JudgeConfigurationError(
            f"No model is configured for the {what}: pass model=... or set {env}=<model name>"
        )
    return resolved


def resolve_judge_model(model: str | None, base_url: str | None, api_key: object) -> str:
    """The judge's model; when none is set, the error says what is missing.

    With nothing configured at all the error lists every way to configure a judge; with a base
    URL or a key configured (argument or environment) it says that only the model is missing.
    """
    resolved = model or env_value(ENV_MODEL)
    if resolved:
        return resolved
    url = base_url or env_value(ENV_BASE_URL)
    if url is None and api_key is None and env_value(ENV_API_KEY) is None:
        raise JudgeConfigurationError(NO_JUDGE_MESSAGE)
    where = url or OPENAI_BASE_URL
    raise JudgeConfigurationError(
        f"The judge for {where} has no model: pass model=... (the name the server serves; "
        f"GET {where.rstrip('/')}/models lists them) or set {ENV_MODEL}=<model name>"
    )

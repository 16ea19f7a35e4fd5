"""Objects of the ``openai`` SDK: recognising its clients and mapping its exceptions."""

from __future__ import annotations

from typing import Any

from ...exceptions import JudgeTransportError
from .limits import classify_status, parse_retry_after
from .secrets import redact

__all__ = ["is_openai_client", "map_client_error"]


def map_client_error(exc: Exception, base_url: str) -> JudgeTransportError:
    status = getattr(exc, "status_code", None)
    name = type(exc).__name__
    text = redact(str(getattr(exc, "message", "") or exc), None)
    if isinstance(status, int):
        retryable, fatal = classify_status(status, text)
        response = getattr(exc, "response", None)
        headers = getattr(response, "headers", {}) or {}
        return JudgeTransportError(
            f"{base_url}/chat/completions answered HTTP {status}: {text[:300]}",
            status=status,
            retryable=retryable,
            fatal=fatal,
            retry_after=parse_retry_after(dict(headers)),
            body=text[:2000],
        )
    if "Timeout" in name:
        return JudgeTransportError(
            f"{base_url} did not answer in time ({name})", kind="timeout", retryable=True
        )
    if "Connection" in name:
        return JudgeTransportError(
            f"{base_url} could not be reached ({name}: {text[:200]})",
            kind="connection",
            retryable=True,
        )
    return JudgeTransportError(f"{base_url}: {name}: {text[:300]}", kind="client")


def is_openai_client(obj: Any) -> bool:
    module = type(obj).__module__ or ""
    return module.split(".")[0] == "openai" and hasattr(obj, "chat")

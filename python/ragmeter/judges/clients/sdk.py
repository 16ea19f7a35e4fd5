"""Objects of the ``openai`` SDK: recognising its clients and mapping its exceptions."""

from __future__ import annotations

import socket
from typing import Any

from ...exceptions import JudgeTransportError
from .limits import classify_status, parse_retry_after
from .secrets import Secret, guard_library_logs, redact

__all__ = ["guard_client", "is_openai_client", "map_client_error"]


def _connect_failure(exc: BaseException) -> bool:
    """Whether the chain of ``exc`` holds a failure to open a connection (refused, DNS)."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if isinstance(current, ConnectionRefusedError | socket.gaierror) or type(
            current
        ).__name__ in ("ConnectError", "ConnectTimeout"):
            return True
        current = current.__cause__ or current.__context__
    return False


def map_client_error(
    exc: Exception, base_url: str, *, path: str = "chat/completions"
) -> JudgeTransportError:
    """The :class:`~ragmeter.JudgeTransportError` for an exception of the ``openai`` SDK."""
    status = getattr(exc, "status_code", None)
    name = type(exc).__name__
    text = redact(str(getattr(exc, "message", "") or exc))
    url = f"{base_url}/{path}"
    if isinstance(status, int):
        retryable, fatal = classify_status(status, text)
        response = getattr(exc, "response", None)
        headers = getattr(response, "headers", {}) or {}
        return JudgeTransportError(
            f"{url} answered HTTP {status}: {text[:300]}",
            status=status,
            retryable=retryable,
            fatal=fatal,
            retry_after=parse_retry_after(dict(headers)),
            body=text[:2000],
        )
    if "Timeout" in name:
        return JudgeTransportError(
            f"{url} did not answer in time ({name})", kind="timeout", retryable=True
        )
    if _connect_failure(exc):
        return JudgeTransportError(
            f"{url} could not be reached ({name}: {text[:200]})", kind="connect", retryable=True
        )
    if "Connection" in name:
        return JudgeTransportError(
            f"{url} broke off the exchange ({name}: {text[:200]})",
            kind="connection",
            retryable=True,
        )
    return JudgeTransportError(f"{url}: {name}: {text[:300]}", kind="client")


def guard_client(client: Any) -> list[Secret]:
    """Register the key of an ``openai`` client for redaction; guard the SDK's logs."""
    guard_library_logs()
    key = getattr(client, "api_key", None)
    return [Secret(key)] if isinstance(key, str) and key else []


def is_openai_client(obj: Any) -> bool:
    module = type(obj).__module__ or ""
    return module.split(".")[0] == "openai" and hasattr(obj, "chat")

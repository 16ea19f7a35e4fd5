"""Credentials that never show: :class:`Secret`, redaction, and guards on library logs.

Every :class:`Secret` registers itself, and :func:`redact` removes every registered secret from
a text in each form a server or library may echo it in: as is, JSON-escaped (``\\/``),
URL-encoded, base64-encoded, and any fragment of eight characters or more; plus anything shaped
like a bearer token. Error messages, row messages, exports and the log records of httpx,
httpcore and openai pass through it. Keys are checked when they come in: surrounding whitespace
(the newline of a key read from a file) is stripped, whitespace or control characters inside
are refused, so no HTTP library ever rejects, and logs, a header holding one.
"""

from __future__ import annotations

import base64
import hmac
import json
import logging
import re
import threading
import urllib.parse
import weakref

from ...exceptions import InvalidInputError

__all__ = [
    "Secret",
    "checked_secret",
    "guard_library_logs",
    "redact",
    "split_credentials",
]

_TOKEN_PATTERN = re.compile(r"(sk-|Bearer\s+|Basic\s+)[A-Za-z0-9_\-*.+/=~%]{4,}")
_FRAGMENT = 8
_SHORTEST = 6
_LIBRARY_LOGGERS = ("httpx", "httpcore", "h11", "hpack", "anyio", "openai")
# Loggers those libraries create when their modules load, which may be after a client is built:
# getLogger() now makes the very objects the libraries will get, filter attached.
_KNOWN_LOGGERS = (
    "httpx",
    "httpcore.connection",
    "httpcore.http11",
    "httpcore.http2",
    "httpcore.proxy",
    "httpcore.socks",
    "openai",
    "openai._base_client",
    "openai._response",
    "openai._legacy_response",
)


class Secret:
    """A string that is never shown: ``repr`` and ``str`` are ``'***'``.

    Examples
    --------
    >>> key = Secret("sk-example-0123456789")
    >>> key, f"{key}", key.reveal()[:3]
    (Secret('***'), "Secret('***')", 'sk-')
    >>> redact("the server said: bad key sk-example-0123456789")
    'the server said: bad key ***'
    """

    __slots__ = ("__weakref__", "_forms", "_value")

    def __init__(self, value: str, *, parts: tuple[str, ...] = ()):
        self._value = str(value)
        # ``parts``: other strings that give the secret away (a password inside a token).
        self._forms = tuple(
            sorted({f for v in (self._value, *parts) for f in _forms(v)}, key=len, reverse=True)
        )
        with _REGISTRY_LOCK:
            _REGISTRY.add(self)

    def reveal(self) -> str:
        """The secret's value (for the one header that needs it)."""
        return self._value

    def __repr__(self) -> str:
        return "Secret('***')"

    __str__ = __repr__

    def __eq__(self, other: object) -> bool:
        # Compared with the str it holds (embedchain's tests ask config.api_key == "key"), in
        # constant time; never shown.
        if isinstance(other, Secret):
            other = other._value
        if not isinstance(other, str):
            return NotImplemented
        return hmac.compare_digest(self._value.encode(), other.encode())

    # Kept hashable by identity: the registry of secrets to redact is a WeakSet.
    __hash__ = object.__hash__

    def __bool__(self) -> bool:
        return bool(self._value)


_REGISTRY: weakref.WeakSet[Secret] = weakref.WeakSet()
_REGISTRY_LOCK = threading.Lock()


def _forms(value: str) -> tuple[str, ...]:
    if len(value) < _SHORTEST:  # would blank out ordinary words; such a secret is no secret
        return ()
    forms = {
        value,
        json.dumps(value)[1:-1],
        json.dumps(value)[1:-1].replace("/", "\\/"),
        urllib.parse.quote(value, safe=""),
        urllib.parse.quote_plus(value, safe=""),
        base64.b64encode(value.encode("utf-8")).decode("ascii").rstrip("="),
    }
    return tuple(sorted(forms, key=len, reverse=True))


def _redact_fragments(text: str, form: str) -> str:
    """``text`` with every run of 8+ characters that belongs to ``form`` replaced by ``***``.

    Catches a key cut short: a server echoing "the first 20 characters", or a key split at a
    ``+`` by a pattern that stops there.
    """
    grams = {form[i : i + _FRAGMENT] for i in range(len(form) - _FRAGMENT + 1)}
    out: list[str] = []
    i = 0
    while i < len(text):
        if text[i : i + _FRAGMENT] in grams:
            end = i + _FRAGMENT
            while end < len(text) and text[i : end + 1] in form:
                end += 1
            out.append("***")
            i = end
        else:
            out.append(text[i])
            i += 1
    return "".join(out)


def redact(text: str) -> str:
    """``text`` without any registered secret (in any form) or anything shaped like a token."""
    with _REGISTRY_LOCK:
        forms = sorted({f for secret in _REGISTRY for f in secret._forms}, key=len, reverse=True)
    for form in forms:
        if form in text:
            text = text.replace(form, "***")
    for form in forms:
        if len(form) >= _FRAGMENT:
            text = _redact_fragments(text, form)
    return _TOKEN_PATTERN.sub(lambda m: m.group(1) + "***", text)


def checked_secret(value: str | Secret | None, *, argument: str) -> Secret | None:
    """A :class:`Secret` of ``value`` stripped of surrounding whitespace; ``None`` when empty.

    Raises :class:`~ragmeter.InvalidInputError` (naming ``argument``, never the value) when the
    value holds whitespace, a control character or a non-ASCII character inside.
    """
    if value is None:
        return None
    raw = value.reveal() if isinstance(value, Secret) else value
    if not isinstance(raw, str):
        raise InvalidInputError(f"{argument} must be a str, got {type(raw).__name__}")
    stripped = raw.strip()
    for position, char in enumerate(stripped):
        if not "!" <= char <= "~":
            what = "whitespace" if char.isspace() else "a control or non-ASCII character"
            raise InvalidInputError(
                f"{argument} holds {what} at position {position} (of {len(stripped)} "
                "characters): an HTTP header cannot carry it. Check how the key was read (a "
                "file holding more than the key, a pasted line break)"
            )
    if not stripped:
        return None
    if isinstance(value, Secret) and stripped == raw:
        return value
    return Secret(stripped)


def split_credentials(url: str) -> tuple[str, Secret | None]:
    """``url`` without its ``user:password@`` part, and the HTTP Basic token of that part.

    Examples
    --------
    >>> clean, token = split_credentials("http://me:sk-pw-0123456789@127.0.0.1:8000/v1")
    >>> clean, token
    ('http://127.0.0.1:8000/v1', Secret('***'))
    """
    parts = urllib.parse.urlsplit(url)
    if "@" not in parts.netloc:
        return url, None
    userinfo, _, hostport = parts.netloc.rpartition("@")
    user, _, password = userinfo.partition(":")
    user, password = urllib.parse.unquote(user), urllib.parse.unquote(password)
    clean = urllib.parse.urlunsplit(parts._replace(netloc=hostport))
    token = base64.b64encode(f"{user}:{password}".encode()).decode("ascii")
    return clean, Secret(f"Basic {token}", parts=(token, password, userinfo))


class _RedactingFilter(logging.Filter):
    """Rewrites a log record whose message holds a secret or a token."""

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            message = record.getMessage()
        except Exception:  # a malformed record is the logging module's business
            return True
        cleaned = redact(message)
        if cleaned != message:
            record.msg, record.args = cleaned, None
        return True


_FILTER = _RedactingFilter()
# How many loggers existed when the filter was last attached to every library logger.
_LOGGERS_SEEN = -1


def guard_library_logs() -> None:
    """Attach the redacting filter to every logger of httpx, httpcore, h11 and openai.

    Logger filters are not inherited, so each existing logger of those libraries gets its own;
    called whenever a client is built, after the libraries' modules (and loggers) exist. The
    loggers are looked at again only when there are new ones (the logging module never removes
    a logger): this runs once per request.
    """
    global _LOGGERS_SEEN
    count = len(logging.root.manager.loggerDict)
    if count == _LOGGERS_SEEN:
        return
    names = [
        name
        for name in list(logging.root.manager.loggerDict)
        if name.split(".", 1)[0] in _LIBRARY_LOGGERS
    ]
    for name in (*_LIBRARY_LOGGERS, *_KNOWN_LOGGERS, *names):
        logger = logging.getLogger(name)
        if _FILTER not in logger.filters:
            logger.addFilter(_FILTER)
    # getLogger above may have made the known loggers: count after them.
    _LOGGERS_SEEN = len(logging.root.manager.loggerDict)

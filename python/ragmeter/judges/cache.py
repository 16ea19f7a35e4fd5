"""A content-addressed sqlite cache of judge and embedding calls.

The key is the sha256 of the canonical JSON of everything that can change an answer: the judge's
identity (name, base URL, model; never a key), the messages, the answer schema, temperature,
seed, max_tokens, the sample index ``n_index`` and the cache format version. Only answers that
were parsed and validated are stored, each in its own transaction, so an interrupted run keeps
every finished call and a rerun resumes where it stopped.

Modes: ``read_write`` (default), ``read_only`` (hits are used, nothing is written: CI replays),
``refresh`` (every call is made again and overwrites the stored answer), ``off``.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import threading
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

from ..exceptions import InvalidInputError

__all__ = ["CACHE_FORMAT_VERSION", "CacheMode", "JudgeCache", "cache_key", "open_cache"]

CacheMode = Literal["read_write", "read_only", "refresh", "off"]
CACHE_MODES: tuple[str, ...] = ("read_write", "read_only", "refresh", "off")
CACHE_FORMAT_VERSION = 1


def canonical_json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def cache_key(payload: Mapping[str, Any]) -> str:
    """sha256 hex digest of the canonical JSON of ``payload`` plus the cache format version."""
    material = canonical_json({"cache_format": CACHE_FORMAT_VERSION, **payload})
    return hashlib.sha256(material.encode("utf-8")).hexdigest()


class JudgeCache:
    """sqlite store of validated judge answers and embeddings (WAL, one writer at a time)."""

    def __init__(self, path: str | os.PathLike[str] = ":memory:", mode: CacheMode = "read_write"):
        if mode not in CACHE_MODES:
            raise InvalidInputError(f"cache mode must be one of {CACHE_MODES}, got {mode!r}")
        self.path = str(path)
        self.mode: CacheMode = mode
        self._lock = threading.Lock()
        self._conn: sqlite3.Connection | None = None
        if mode != "off":
            if self.path != ":memory:":
                Path(self.path).expanduser().parent.mkdir(parents=True, exist_ok=True)
            self._conn = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
            if self.path != ":memory:":
                self._conn.execute("PRAGMA journal_mode=WAL")
                self._conn.execute("PRAGMA synchronous=NORMAL")
            self._conn.execute("PRAGMA busy_timeout=10000")
            self._conn.execute(
                "CREATE TABLE IF NOT EXISTS calls ("
                " key TEXT PRIMARY KEY, kind TEXT NOT NULL, value TEXT NOT NULL,"
                " created_at REAL NOT NULL)"
            )

    def __repr__(self) -> str:
        return f"JudgeCache(path={self.path!r}, mode={self.mode!r})"

    @property
    def readable(self) -> bool:
        return self.mode in ("read_write", "read_only")

    @property
    def writable(self) -> bool:
        return self.mode in ("read_write", "refresh")

    def get(self, key: str) -> dict[str, Any] | None:
        if self._conn is None or not self.readable:
            return None
        with self._lock:
            row = self._conn.execute("SELECT value FROM calls WHERE key = ?", (key,)).fetchone()
        return None if row is None else json.loads(row[0])

    def put(self, key: str, kind: str, value: Mapping[str, Any]) -> None:
        if self._conn is None or not self.writable:
            return
        text = canonical_json(value)
        with self._lock:
            self._conn.execute(
                "INSERT OR REPLACE INTO calls (key, kind, value, created_at) VALUES (?, ?, ?, ?)",
                (key, kind, text, time.time()),
            )

    def __len__(self) -> int:
        if self._conn is None:
            return 0
        with self._lock:
            return int(self._conn.execute("SELECT COUNT(*) FROM calls").fetchone()[0])

    def describe(self) -> dict[str, Any]:
        """Path, mode and number of entries, for the run manifest."""
        return {"path": self.path, "mode": self.mode, "entries": len(self)}

    def close(self) -> None:
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None

    def __enter__(self) -> JudgeCache:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def open_cache(
    cache: JudgeCache | str | os.PathLike[str] | None, mode: CacheMode | None = None
) -> JudgeCache:
    """Normalise the ``cache=`` argument: ``None`` is off, a path opens a sqlite file."""
    if cache is None:
        return JudgeCache(mode="off")
    if isinstance(cache, JudgeCache):
        if mode is not None and mode != cache.mode:
            raise InvalidInputError(
                f"cache_mode={mode!r} conflicts with the JudgeCache's mode {cache.mode!r}: "
                "open the JudgeCache with the mode you want"
            )
        return cache
    if isinstance(cache, str | os.PathLike):
        return JudgeCache(cache, mode or "read_write")
    raise InvalidInputError(
        f"cache must be None, a path or a JudgeCache, got {type(cache).__name__}"
    )

"""A content-addressed sqlite cache of judge and embedding calls.

The key is the sha256 of the canonical JSON of everything that can change an answer: the
judge's identity (its kind, name and model, and its endpoint: the base URL with its port, or the
``identity=`` given in its place; never an API key), the messages, the answer schema,
temperature, seed, max_tokens, the sample index ``n_index``, the repeat (when above 0) and the
cache format version; an embedding's key holds the embedder's identity and the text. Headers,
timeouts, retry policies and concurrency are not in it. The same server restarted on another
port is another endpoint unless the judge and the embedder are given one ``identity=``. Only
answers that were parsed and validated are stored, and an evaluation writes them all also when
it fails or is interrupted, so a rerun resumes where it stopped (a process killed outright loses
the answers not yet written: those of its last ``WRITE_DELAY_S``).

Modes: ``read_write`` (default), ``read_only`` (hits are used, nothing is written: CI replays),
``refresh`` (every call is made again and overwrites the stored answer), ``off``.

Writes to a file go through one writer thread with its own connection, in batched
transactions, so the event loop never waits for sqlite; answers waiting to be written are
already visible to :meth:`JudgeCache.get`. The writer gathers what arrives within
``WRITE_DELAY_S`` (50 ms) of an answer into one transaction: a commit costs the process about
0.1 ms of CPU, about what the rest of a call to a fast local judge costs, and answers arrive
a few milliseconds apart. :meth:`JudgeCache.flush` waits for them, without that delay (every
evaluation does at its end, also when it fails).
"""

from __future__ import annotations

import errno
import hashlib
import json
import os
import queue
import sqlite3
import sys
import threading
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

from ...exceptions import InvalidInputError, JudgeCacheError

if sys.platform != "win32":
    import resource

__all__ = ["CACHE_FORMAT_VERSION", "CacheMode", "JudgeCache", "cache_key", "open_cache"]

CacheMode = Literal["read_write", "read_only", "refresh", "off"]
CACHE_MODES: tuple[str, ...] = ("read_write", "read_only", "refresh", "off")
CACHE_FORMAT_VERSION = 1
_INSERT = "INSERT OR REPLACE INTO calls (key, kind, value, created_at) VALUES (?, ?, ?, ?)"
_COLUMNS = ("key", "kind", "value", "created_at")
_WHAT_TO_DO = (
    "pass another path as cache= (or delete the file, if it is a judge cache that was damaged: "
    "the next run judges everything again)"
)


#: sqlite's primary result codes that mean the storage failed, not the file's content: the
#: disk (or a quota) is full, a write or read failed (also a file-size limit, RLIMIT_FSIZE, and
#: a full tmpfs, where sqlite cannot grow the ``-shm`` file), the file cannot be opened or is
#: on a read-only file system. Deleting the cache would not help and would lose paid answers.
_STORAGE_CODES = frozenset(
    (sqlite3.SQLITE_FULL, sqlite3.SQLITE_IOERR, sqlite3.SQLITE_CANTOPEN, sqlite3.SQLITE_READONLY)
)
#: Free space below which a disk counts as full: sqlite needs room for its ``-shm`` file
#: (32 KiB) and a transaction's pages.
_NEARLY_FULL_BYTES = 1 << 20


def _free_bytes(path: str) -> int | None:
    """Bytes free to this user on the disk holding ``path``'s folder, or None if unknown."""
    if not hasattr(os, "statvfs"):
        return None
    try:
        stats = os.statvfs(Path(path).expanduser().absolute().parent)
    except OSError:
        return None
    return stats.f_bavail * stats.f_frsize


def _file_size_limit() -> int | None:
    """This process's limit on the size of a file it writes (``ulimit -f``), or None."""
    if sys.platform == "win32":
        return None
    soft, _hard = resource.getrlimit(resource.RLIMIT_FSIZE)
    return None if soft == resource.RLIM_INFINITY else soft


def _storage_error(path: str, error: BaseException, doing: str) -> OSError | None:
    """The error to raise when sqlite failed on ``path`` because of its storage (a full disk,
    a file-size limit, an I/O error), saying which; None when the failure is the file's content
    (not a database, damaged), the one case where another path or deleting the file helps.

    The cause is found from the facts at hand: sqlite's result code, the free space on the
    disk and this process's file-size limit; the cache is never said to be damaged then.
    """
    if not isinstance(error, sqlite3.Error):
        return None
    code = getattr(error, "sqlite_errorcode", None)
    if code is None or code & 0xFF not in _STORAGE_CODES:
        return None
    free = _free_bytes(path)
    limit = _file_size_limit()
    keep = "the cache was left as it is and its stored answers are used once this is fixed"
    if code & 0xFF == sqlite3.SQLITE_FULL or (free is not None and free < _NEARLY_FULL_BYTES):
        room = "" if free is None else f" ({free} bytes free)"
        return OSError(
            errno.ENOSPC,
            f"the disk holding the judge cache {path} is full{room}, so the cache could not be "
            f"{doing} (sqlite: {error}); {keep}: free some space and run again",
            path,
        )
    if limit is not None and code & 0xFF == sqlite3.SQLITE_IOERR:
        return OSError(
            errno.EFBIG,
            f"the judge cache {path} could not be {doing}: this process may not write files "
            f"larger than {limit} bytes (its file-size limit, ulimit -f / RLIMIT_FSIZE; sqlite: "
            f"{error}); {keep}: raise the limit (ulimit -f unlimited) and run again",
            path,
        )
    return OSError(
        errno.EIO,
        f"the judge cache {path} could not be {doing}: the disk or file system refused it "
        f"(sqlite: {error}); {keep}: check that the disk is writable and has space, and run "
        "again",
        path,
    )


# json.dumps with these options builds an encoder per call; one does for all.
_CANONICAL = json.JSONEncoder(sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def canonical_json(value: Any) -> str:
    """Sorted keys, no spaces, non-ASCII as is: the text that keys and stores a cached call."""
    return _CANONICAL.encode(value)


def cache_key(payload: Mapping[str, Any]) -> str:
    """sha256 hex digest of the canonical JSON of ``payload`` plus the cache format version."""
    material = canonical_json({"cache_format": CACHE_FORMAT_VERSION, **payload})
    return hashlib.sha256(material.encode("utf-8")).hexdigest()


def _create_private(path: str) -> None:
    """Create the folder of the cache at ``path`` and, when the file does not exist yet, the
    file itself readable and writable by its owner only (``0o600``, as the atomic writer's
    temporaries): it holds prompts and paid answers. sqlite gives its ``-wal`` and ``-shm``
    files the mode of the database. An existing file keeps its mode."""
    target = Path(path).expanduser()
    target.parent.mkdir(parents=True, exist_ok=True)
    try:
        descriptor = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return
    except OSError:
        return  # sqlite reports why it cannot open the file, in its own words
    os.close(descriptor)


class JudgeCache:
    """sqlite store of validated judge answers, recorded failures and embeddings.

    Pass it (or just a path) as ``evaluate(cache=...)``: a rerun is identical and makes no call
    for what is stored. Writes go through one writer thread in batched WAL transactions;
    :meth:`flush` waits for them.

    An answer's key is the sha256 of the judge's identity (kind, name, model, and ``base_url``
    with its port, or the ``identity=`` given to the judge in its place), the messages, the
    schema, temperature, seed, max_tokens, ``n_index``, the repeat (above 0) and the format
    version; an embedding's, of the embedder's identity and the text. Keys, headers, timeouts
    and retry policies are not in it.

    Parameters
    ----------
    path
        The sqlite file (created with its folder), or ``":memory:"``.
    mode
        ``"read_write"``, ``"read_only"`` (hits used, nothing written: CI replays),
        ``"refresh"`` (every call made again, answers overwritten) or ``"off"``.

    Raises
    ------
    JudgeCacheError
        the file is not a judge cache (not sqlite, another application's
        database, a damaged file); it is left untouched.
    OSError
        the storage failed, not the file: the disk is full (``errno.ENOSPC``), the process's
        file-size limit was reached (``EFBIG``) or the disk refused a read or write
        (``EIO``); the message says which, and the cache is left as it is.
    InvalidInputError
        an unknown mode.

    Examples
    --------
    >>> with JudgeCache(":memory:") as cache:
    ...     cache.put("some-key", "chat", {"parsed": {"value": 1}})
    ...     cache.get("some-key"), cache.get("another-key"), len(cache)
    ({'parsed': {'value': 1}}, None, 1)
    """

    WRITE_BATCH = 512
    WRITE_DELAY_S = 0.05

    def __init__(self, path: str | os.PathLike[str] = ":memory:", mode: CacheMode = "read_write"):
        if mode not in CACHE_MODES:
            raise InvalidInputError(f"cache mode must be one of {CACHE_MODES}, got {mode!r}")
        self.path = str(path)
        self.mode: CacheMode = mode
        self._lock = threading.Lock()
        self._conn: sqlite3.Connection | None = None
        self._pending: dict[str, tuple[str, str]] = {}
        self._pending_lock = threading.Lock()
        self._queue: queue.Queue[str | None] = queue.Queue()
        self._writer: threading.Thread | None = None
        self._writer_error: BaseException | None = None
        # Set while someone waits for the writes (flush, close): the writer then commits what
        # it has at once instead of gathering for WRITE_DELAY_S.
        self._hurry = threading.Event()
        self._flushing = 0
        self.damaged = 0
        if mode != "off":
            if self.path != ":memory:":
                _create_private(self.path)
            try:
                self._conn = self._connect()
                self._check_or_create(self._conn)
            except sqlite3.DatabaseError as exc:
                if self._conn is not None:
                    self._conn.close()
                    self._conn = None
                # A full disk or a file-size limit: the cache is fine, and deleting it (the
                # advice below) would lose paid calls.
                storage = _storage_error(self.path, exc, "opened")
                if storage is not None:
                    raise storage from exc
                raise JudgeCacheError(
                    f"{self.path} is not a judge cache (sqlite: {exc}): {_WHAT_TO_DO}"
                ) from exc

    def _check_or_create(self, conn: sqlite3.Connection) -> None:
        """Create the table in a new database; refuse another application's database."""
        tables = [
            name for (name,) in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")
        ]
        if "calls" in tables:
            columns = tuple(row[1] for row in conn.execute("PRAGMA table_info(calls)"))
            if sorted(columns) != sorted(_COLUMNS):
                raise JudgeCacheError(
                    f"{self.path} is not a judge cache: its table 'calls' has the columns "
                    f"{list(columns)}, not {list(_COLUMNS)}; {_WHAT_TO_DO}"
                )
            return
        if tables:
            raise JudgeCacheError(
                f"{self.path} is an sqlite database of another application (tables "
                f"{sorted(tables)}), not a judge cache; it was left untouched: {_WHAT_TO_DO}"
            )
        conn.execute(
            "CREATE TABLE IF NOT EXISTS calls ("
            " key TEXT PRIMARY KEY, kind TEXT NOT NULL, value TEXT NOT NULL,"
            " created_at REAL NOT NULL)"
        )

    def _connect(self) -> sqlite3.Connection:
        conn = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
        if self.path != ":memory:":
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=NORMAL")
        conn.execute("PRAGMA busy_timeout=10000")
        return conn

    def __repr__(self) -> str:
        return f"JudgeCache(path={self.path!r}, mode={self.mode!r})"

    @property
    def readable(self) -> bool:
        """Whether hits are served (``read_write``, ``read_only``)."""
        return self.mode in ("read_write", "read_only")

    @property
    def writable(self) -> bool:
        """Whether answers are stored (``read_write``, ``refresh``)."""
        return self.mode in ("read_write", "refresh")

    def get(self, key: str) -> dict[str, Any] | None:
        """The stored value of ``key``, or ``None``: absent, unreadable or damaged (a miss).

        A damaged row (not a JSON object) counts in ``damaged``; the caller computes the answer
        again and :meth:`put` overwrites the row.
        """
        if self._conn is None or not self.readable:
            return None
        with self._pending_lock:
            pending = self._pending.get(key)
        if pending is not None:
            return json.loads(pending[1])  # type: ignore[no-any-return]
        try:
            with self._lock:
                row = self._conn.execute("SELECT value FROM calls WHERE key = ?", (key,)).fetchone()
        except sqlite3.DatabaseError as exc:
            storage = _storage_error(self.path, exc, "read")
            if storage is not None:
                raise storage from exc
            raise JudgeCacheError(
                f"the judge cache {self.path} cannot be read (sqlite: {exc}): {_WHAT_TO_DO}"
            ) from exc
        if row is None:
            return None
        try:
            value = json.loads(row[0])
        except (TypeError, ValueError):
            value = None
        if not isinstance(value, dict):
            self.damaged += 1
            return None
        return value

    def put(self, key: str, kind: str, value: Mapping[str, Any]) -> None:
        """Store ``value`` under ``key`` (visible at once, on disk after :meth:`flush`).

        Raises
        ------
        OSError
            an earlier write to the file failed (disk full, permissions).
        """
        if self._conn is None or not self.writable:
            return
        self._raise_writer_error()
        text = canonical_json(value)
        if self.path == ":memory:":
            with self._lock:
                self._conn.execute(_INSERT, (key, kind, text, time.time()))
            return
        with self._pending_lock:
            self._pending[key] = (kind, text)
            if self._writer is None:
                self._writer = threading.Thread(
                    target=self._write_loop, name="ragmeter-judge-cache", daemon=True
                )
                self._writer.start()
        self._queue.put(key)

    def _write_loop(self) -> None:
        conn = self._connect()
        try:
            while True:
                batch = [self._queue.get()]
                if batch[0] is not None and not self._hurry.is_set():
                    self._hurry.wait(self.WRITE_DELAY_S)
                while len(batch) < self.WRITE_BATCH and batch[-1] is not None:
                    try:
                        batch.append(self._queue.get_nowait())
                    except queue.Empty:
                        break
                keys = [k for k in batch if k is not None]
                with self._pending_lock:
                    rows = {k: self._pending[k] for k in keys if k in self._pending}
                try:
                    if rows and self._writer_error is None:
                        now = time.time()
                        conn.execute("BEGIN")
                        conn.executemany(
                            _INSERT, [(k, kind, text, now) for k, (kind, text) in rows.items()]
                        )
                        conn.execute("COMMIT")
                except BaseException as exc:  # surfaced by the next put() or flush()
                    self._writer_error = exc
                with self._pending_lock:
                    for k, entry in rows.items():
                        if self._pending.get(k) is entry:
                            del self._pending[k]
                for _ in batch:
                    self._queue.task_done()
                if None in batch:
                    return
        finally:
            conn.close()

    def _raise_writer_error(self) -> None:
        if self._writer_error is not None:
            storage = _storage_error(self.path, self._writer_error, "written")
            if storage is not None:
                raise storage from self._writer_error
            raise OSError(
                f"the judge cache {self.path!r} could not be written: {self._writer_error}"
            ) from self._writer_error

    def flush(self) -> None:
        """Wait until every answer handed to :meth:`put` is in the database."""
        if self._writer is not None:
            with self._pending_lock:
                self._flushing += 1
                self._hurry.set()
            try:
                self._queue.join()
            finally:
                with self._pending_lock:
                    self._flushing -= 1
                    if not self._flushing and self._writer is not None:
                        self._hurry.clear()
        self._raise_writer_error()

    def __len__(self) -> int:
        if self._conn is None:
            return 0
        self.flush()
        with self._lock:
            return int(self._conn.execute("SELECT COUNT(*) FROM calls").fetchone()[0])

    def describe(self) -> dict[str, Any]:
        """Path, mode and number of entries, for the run manifest."""
        return {"path": self.path, "mode": self.mode, "entries": len(self)}

    def close(self) -> None:
        """Write what is pending, stop the writer thread and close the database."""
        writer = self._writer
        if writer is not None:
            self._hurry.set()
            self._queue.put(None)
            writer.join()
            self._writer = None
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None
        self._raise_writer_error()

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

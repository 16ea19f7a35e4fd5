"""Files of every format ragmeter reads, written from one run, and the damage done to them by
the reader-contract suite (tests/test_reader_contract.py) and the fuzz tests; hostile answers of
an HTTP judge endpoint (:data:`HTTP_ANSWERS`).

Each entry of :data:`VARIANTS` writes one file: a row of ``ragmeter.io._formats.FORMATS``,
possibly compressed, possibly in one encoding of a format (an IPC file or stream, Parquet with
or without page checksums, zstd with or without content checksums). ``verified`` says whether
the format carries an integrity check over all of its content, so that any changed byte must be
refused or read back unchanged; without one, a changed digit is a changed value and only a
crash, or an error that is not a RagmeterError, is a failure.
"""

from __future__ import annotations

import bz2
import gzip
import json
import lzma
import os
import struct
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pyarrow as pa
import pyarrow.csv as pacsv
import pyarrow.feather
import pyarrow.parquet as pq

#: The run every file holds: 3 queries, 30 documents each, distinct scores.
RUN: dict[str, dict[str, float]] = {
    f"q{q}": {f"d{q}-{d}": round(100 - d * 1.25 - q / 8, 3) for d in range(30)} for q in range(3)
}


def trec_text(run: dict[str, dict[str, float]] = RUN) -> bytes:
    lines = []
    for query, docs in run.items():
        for rank, (doc, score) in enumerate(sorted(docs.items(), key=lambda kv: -kv[1]), 1):
            lines.append(f"{query} Q0 {doc} {rank} {score!r} tag\n")
    return "".join(lines).encode()


def run_table(run: dict[str, dict[str, float]] = RUN) -> pa.Table:
    rows = [(q, d, s) for q, docs in run.items() for d, s in docs.items()]
    return pa.table(
        {
            "query_id": [r[0] for r in rows],
            "doc_id": [r[1] for r in rows],
            "score": [r[2] for r in rows],
        }
    )


# -- zstd frames built by hand: pyarrow's encoder, a content checksum, skippable frames -------

_M = (1 << 64) - 1
_P1, _P2, _P3 = 11400714785074694791, 14029467366897019727, 1609587929392839161
_P4, _P5 = 9650029242287828579, 2870177450012600261


def _rotl(x: int, r: int) -> int:
    return ((x << r) | (x >> (64 - r))) & _M


def _round(acc: int, value: int) -> int:
    return (_rotl((acc + value * _P2) & _M, 31) * _P1) & _M


def xxh64(data: bytes, seed: int = 0) -> int:
    """XXH64 (the hash of zstd's content checksum), from its specification; checked against
    the published value of the empty input in the tests."""
    n, i = len(data), 0
    word = lambda at, size: int.from_bytes(data[at : at + size], "little")  # noqa: E731
    if n >= 32:
        v = [(seed + _P1 + _P2) & _M, (seed + _P2) & _M, seed, (seed - _P1) & _M]
        while i + 32 <= n:
            v = [_round(v[k], word(i + 8 * k, 8)) for k in range(4)]
            i += 32
        h = (_rotl(v[0], 1) + _rotl(v[1], 7) + _rotl(v[2], 12) + _rotl(v[3], 18)) & _M
        for x in v:
            h = ((h ^ _round(0, x)) * _P1 + _P4) & _M
    else:
        h = (seed + _P5) & _M
    h = (h + n) & _M
    while i + 8 <= n:
        h = (_rotl(h ^ _round(0, word(i, 8)), 27) * _P1 + _P4) & _M
        i += 8
    if i + 4 <= n:
        h = (_rotl(h ^ ((word(i, 4) * _P1) & _M), 23) * _P2 + _P3) & _M
        i += 4
    while i < n:
        h = (_rotl(h ^ ((data[i] * _P5) & _M), 11) * _P1) & _M
        i += 1
    h ^= h >> 33
    h = (h * _P2) & _M
    h ^= h >> 29
    h = (h * _P3) & _M
    return h ^ (h >> 32)


def zstd_frame(data: bytes, checksum: bool = True) -> bytes:
    """One zstd frame of ``data`` (pyarrow's libzstd encoder), with a content checksum (the
    low 32 bits of XXH64 of the content, flag bit 2 of the frame header descriptor) if
    ``checksum``, as ``zstd`` writes by default."""
    frame = bytearray(pa.compress(data, codec="zstd", asbytes=True))
    if checksum:
        frame[4] |= 0x04
        frame += (xxh64(data) & 0xFFFFFFFF).to_bytes(4, "little")
    return bytes(frame)


def skippable_frame(payload: bytes, nibble: int = 0) -> bytes:
    """A zstd skippable frame (magic 0x184D2A50 + nibble), as pzstd writes before each frame."""
    return (
        (0x184D2A50 + nibble).to_bytes(4, "little") + len(payload).to_bytes(4, "little") + payload
    )


def pzstd_like(data: bytes, parts: int = 3) -> bytes:
    """Data in ``parts`` frames each preceded by a skippable frame holding its size, as
    ``pzstd`` lays out its output."""
    out = b""
    step = -(-len(data) // parts)
    for at in range(0, len(data), step):
        frame = zstd_frame(data[at : at + step])
        out += skippable_frame(len(frame).to_bytes(4, "little"), at // step % 16) + frame
    return out


# -- the variants --------------------------------------------------------------------------


@dataclass(frozen=True)
class Variant:
    """One kind of file: ``format`` is the name of its row of FORMATS."""

    name: str
    format: str
    suffix: str
    write: Callable[[Path], None]
    verified: bool
    table: bool = False

    def path(self, folder: Path) -> Path:
        return folder / f"run{self.suffix}"


def _bytes(data: Callable[[], bytes]) -> Callable[[Path], None]:
    return lambda path: path.write_bytes(data())


def _parquet(checksums: bool) -> Callable[[Path], None]:
    return lambda path: pq.write_table(
        run_table(), path, write_page_checksum=checksums, row_group_size=40, data_page_size=256
    )


def _ipc_stream(path: Path) -> None:
    table = run_table()
    with pa.OSFile(os.fspath(path), "wb") as sink, pa.ipc.new_stream(sink, table.schema) as out:
        for batch in table.to_batches(max_chunksize=20):
            out.write_batch(batch)


def _csv(delimiter: str) -> Callable[[Path], None]:
    return lambda path: pacsv.write_csv(
        run_table(), path, write_options=pacsv.WriteOptions(delimiter=delimiter)
    )


VARIANTS: tuple[Variant, ...] = (
    Variant("trec", "trec", ".txt", _bytes(trec_text), verified=False),
    Variant("trec.gz", "trec", ".txt.gz", _bytes(lambda: gzip.compress(trec_text())), True),
    Variant("trec.bz2", "trec", ".txt.bz2", _bytes(lambda: bz2.compress(trec_text())), True),
    Variant("trec.xz", "trec", ".txt.xz", _bytes(lambda: lzma.compress(trec_text())), True),
    Variant("trec.zst", "trec", ".txt.zst", _bytes(lambda: zstd_frame(trec_text())), True),
    Variant(
        "trec.zst-nocheck",
        "trec",
        ".txt.zst",
        _bytes(lambda: zstd_frame(trec_text(), False)),
        False,
    ),
    Variant("trec.pzstd", "trec", ".txt.zst", _bytes(lambda: pzstd_like(trec_text())), True),
    Variant("json", "json", ".json", _bytes(lambda: json.dumps(RUN).encode()), False),
    Variant("parquet", "parquet", ".parquet", _parquet(False), False, table=True),
    Variant("parquet-crc", "parquet", ".parquet", _parquet(True), True, table=True),
    Variant(
        "ipc-file",
        "ipc",
        ".arrow",
        lambda path: pyarrow.feather.write_feather(
            run_table(), path, compression="uncompressed", chunksize=20
        ),
        False,
        table=True,
    ),
    Variant("ipc-stream", "ipc", ".arrows", _ipc_stream, False, table=True),
    Variant("csv", "csv", ".csv", _csv(","), False, table=True),
    Variant("tsv", "tsv", ".tsv", _csv("\t"), False, table=True),
    Variant(
        "csv.gz",
        "csv",
        ".csv.gz",
        lambda path: path.write_bytes(gzip.compress(_csv_bytes())),
        True,
        table=True,
    ),
)


def _csv_bytes() -> bytes:
    sink = pa.BufferOutputStream()
    pacsv.write_csv(run_table(), sink)
    return sink.getvalue().to_pybytes()


# -- changes made to a file after it was opened -----------------------------------------------


def cut_in_half(path: Path) -> None:
    os.truncate(path, path.stat().st_size // 2)


def replaced(path: Path) -> None:
    """Another file renamed over ``path`` (what careful writers do): other scores."""
    other = path.with_name("other" + "".join(path.suffixes))
    table = run_table({q: {d: s + 1 for d, s in docs.items()} for q, docs in RUN.items()})
    if other.suffix == ".parquet":
        pq.write_table(table, other)
    elif other.suffix in (".arrow", ".arrows"):
        pyarrow.feather.write_feather(table, other)
    elif other.name.endswith(".gz"):
        sink = pa.BufferOutputStream()
        pacsv.write_csv(table, sink)
        other.write_bytes(gzip.compress(sink.getvalue().to_pybytes()))
    else:
        pacsv.write_csv(table, other)
    os.replace(other, path)


def overwritten(path: Path) -> None:
    """The same file rewritten in place with other bytes of the same size."""
    data = bytearray(path.read_bytes())
    for at in range(len(data) // 3, len(data) // 3 * 2):
        data[at] ^= 0x55
    with open(path, "r+b") as handle:
        handle.write(bytes(data))


CHANGES: dict[str, Callable[[Path], None]] = {
    "cut": cut_in_half,
    "replaced": replaced,
    "overwritten": overwritten,
}


# -- hostile HTTP answers (judge transport) ---------------------------------------------------

#: The bound the hostile answers are read with (``max_response_bytes``): small, so each case
#: costs little; the default bound is tested once, in a subprocess with capped memory.
HTTP_LIMIT = 1 << 20


def http_answer(status: int, body: bytes, headers: dict[str, str] | None = None) -> bytes:
    """A raw HTTP/1.1 answer with a Content-Length (unless ``headers`` frame it otherwise)."""
    head = [f"HTTP/1.1 {status} X"]
    given = {k.lower() for k in headers or {}}
    if "transfer-encoding" not in given and "content-length" not in given:
        head.append(f"Content-Length: {len(body)}")
    head += [f"{k}: {v}" for k, v in (headers or {}).items()]
    return ("\r\n".join(head) + "\r\n\r\n").encode() + body


def bomb(size: int, wbits: int) -> bytes:
    """``size`` zero bytes (a whole number of MiB, at least 2) compressed by zlib in one
    stream (``wbits``: 31 gzip, 15 zlib), about 1,000 times smaller: after a full flush every
    MiB of zeros compresses to the same bytes, so one is repeated and the check value of the
    trailer (gzip's CRC-32, zlib's Adler-32) is written for the whole."""
    packer = zlib.compressobj(9, zlib.DEFLATED, wbits)
    mib = bytes(1 << 20)
    first = packer.compress(mib) + packer.flush(zlib.Z_FULL_FLUSH)
    block = packer.compress(mib) + packer.flush(zlib.Z_FULL_FLUSH)
    end = packer.flush()
    n = size >> 20
    if wbits == 31:
        crc = 0
        for _ in range(n):
            crc = zlib.crc32(mib, crc)
        end = end[:-8] + struct.pack("<II", crc, size & 0xFFFFFFFF)
    else:
        # Adler-32 of zeros: the sum of the bytes plus one is 1, the sum of those sums n.
        end = end[:-4] + struct.pack(">I", ((size % 65521) << 16) | 1)
    return first + block * (n - 1) + end


_JSON = b'{"hostile": true, "pad": "' + b"x" * 200 + b'"}'

#: Hostile answers by name: (raw bytes the server sends, then closes; the outcome due: "json"
#: (read as the JSON ``_JSON``), "too large" (refused, naming max_response_bytes, not retried),
#: "protocol" (refused as malformed, retried) or "http" (an HTTP error, its body cut)).
HTTP_ANSWERS: dict[str, tuple[bytes, str]] = {
    "gzip bomb": (
        http_answer(200, bomb(4 * HTTP_LIMIT, 31), {"Content-Encoding": "gzip"}),
        "too large",
    ),
    "deflate bomb": (
        http_answer(200, bomb(4 * HTTP_LIMIT, 15), {"Content-Encoding": "deflate"}),
        "too large",
    ),
    "gzip bomb in an error": (
        http_answer(500, bomb(4 * HTTP_LIMIT, 31), {"Content-Encoding": "gzip"}),
        "too large",
    ),
    "gzip twice": (
        http_answer(
            200,
            gzip.compress(gzip.compress(bytes(4 * HTTP_LIMIT))),
            {"Content-Encoding": "gzip, gzip"},
        ),
        "too large",
    ),
    "Content-Length beyond the bound": (
        b"HTTP/1.1 200 X\r\nContent-Length: 1000000000000\r\n\r\n{}",
        "too large",
    ),
    "chunk beyond the bound": (
        b"HTTP/1.1 200 X\r\nTransfer-Encoding: chunked\r\n\r\n40000000\r\n"
        + bytes(HTTP_LIMIT + 4096),
        "too large",
    ),
    "chunks beyond the bound": (
        b"HTTP/1.1 200 X\r\nTransfer-Encoding: chunked\r\n\r\n"
        + b"10000\r\n"
        + bytes(0x10000)
        + b"\r\n"
        + b"".join(b"10000\r\n" + bytes(0x10000) + b"\r\n" for _ in range(17))
        + b"0\r\n\r\n",
        "too large",
    ),
    "unframed beyond the bound": (
        b"HTTP/1.1 200 X\r\n\r\n" + bytes(HTTP_LIMIT + 4096),
        "too large",
    ),
    "error body beyond the bound": (http_answer(502, b"e" * (HTTP_LIMIT + 1)), "too large"),
    "damaged gzip": (
        http_answer(
            200,
            gzip.compress(_JSON)[:10] + b"\xff" * 40 + gzip.compress(_JSON)[50:],
            {"Content-Encoding": "gzip"},
        ),
        "protocol",
    ),
    "gzip cut short": (
        http_answer(200, gzip.compress(_JSON)[:-12], {"Content-Encoding": "gzip"}),
        "protocol",
    ),
    "an encoding not asked for": (http_answer(200, _JSON, {"Content-Encoding": "br"}), "protocol"),
    "two gzip members": (
        http_answer(
            200, gzip.compress(_JSON[:9]) + gzip.compress(_JSON[9:]), {"Content-Encoding": "gzip"}
        ),
        "json",
    ),
    "raw deflate": (
        http_answer(200, zlib.compress(_JSON, wbits=-15), {"Content-Encoding": "deflate"}),
        "json",
    ),
    "large error body": (
        http_answer(500, b"secret-abcdefghij-" + b"y" * (HTTP_LIMIT - 100)),
        "http",
    ),
}

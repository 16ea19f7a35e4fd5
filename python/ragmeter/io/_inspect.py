"""Inspect AI evaluation logs: ``.eval`` files (a zip of JSON documents) and ``.json`` logs.

Read with the standard library, as the log format documents itself (Inspect's
``inspect_ai/log/_recorders/eval.py`` and ``_log.py``): an ``.eval`` file is a zip holding the
log's header (``header.json``; older logs ``start.json`` and ``results.json``, or
``_journal/start.json``) and one ``samples/<id>_epoch_<n>.json`` per sample and epoch; a
``.json`` log is the whole ``EvalLog`` (``version``, ``eval``, ``results``, ``samples``).

What is read: each sample's ``id`` (the item), its ``epoch`` (the repeat: epoch 1 is repeat
0), each of its ``scores`` (``{scorer: {value, ...}}``; a value that is a mapping gives one
metric per key, ``scorer/key``), ``error`` (the sample is failed for every scorer), and with
``cluster=`` the sample's ``metadata[cluster]``. The system is the log's ``eval.model``; the
manifest's producer is ``inspect_ai`` and the version the log records
(``eval.packages["inspect_ai"]``); each metric's definition is the task and the scorer as the
log's ``results.scores`` records it (name, scorer, params), so logs of different tasks or of
differently configured scorers are refused as incomparable.
"""

from __future__ import annotations

import importlib
import io
import json
import struct
import zipfile
from collections.abc import Mapping
from typing import Any

from .._files import file_errors
from .._optional import import_optional
from ..exceptions import InvalidInputError
from ._harness_rows import HarnessRows, score_number
from ._records import Records

__all__ = ["harness_records", "load", "read_records", "recognises"]

#: The most a member of an ``.eval`` zip may decompress to (a zip bomb is refused).
_MAX_MEMBER = 1 << 30
#: The zip method number of Zstandard (APPNOTE 4.4.5), which Inspect writes since 2026.
_ZSTD = 93


def _zstd_member(archive: zipfile.ZipFile, info: zipfile.ZipInfo, path: str) -> bytes:
    """A Zstandard member's bytes: the standard library's zstd (Python 3.14), else the
    ``zstandard`` package (the ``inspect`` extra)."""
    handle = archive.fp
    assert handle is not None
    handle.seek(info.header_offset)
    header = handle.read(30)
    if len(header) != 30 or header[:4] != b"PK\x03\x04":
        raise InvalidInputError(f"{path}: {info.filename} has a damaged zip header")
    name_length, extra_length = struct.unpack("<HH", header[26:30])
    handle.seek(info.header_offset + 30 + name_length + extra_length)
    compressed = handle.read(info.compress_size)
    try:
        zstd: Any = importlib.import_module("compression.zstd")
        return bytes(zstd.decompress(compressed))
    except ImportError:
        pass
    zstandard: Any = import_optional(
        "zstandard", extra="inspect", purpose="to read Inspect .eval logs compressed with zstd"
    )
    reader = zstandard.ZstdDecompressor().stream_reader(
        io.BytesIO(compressed), read_across_frames=True
    )
    data: bytes = reader.read(_MAX_MEMBER + 1)
    if len(data) > _MAX_MEMBER:
        raise InvalidInputError(f"{path}: {info.filename} decompresses to over {_MAX_MEMBER} bytes")
    return data


def recognises(data: Any) -> bool:
    """Whether parsed JSON is an Inspect log (``eval`` with ``task`` and ``model``)."""
    return (
        isinstance(data, Mapping)
        and isinstance(data.get("eval"), Mapping)
        and "task" in data["eval"]
        and "model" in data["eval"]
        and ("samples" in data or "results" in data)
    )


def _member(archive: zipfile.ZipFile, name: str, path: str) -> Any:
    info = archive.getinfo(name)
    if info.file_size > _MAX_MEMBER:
        raise InvalidInputError(f"{path}: {name} decompresses to {info.file_size} bytes")
    try:
        if info.compress_type == _ZSTD:
            return json.loads(_zstd_member(archive, info, path))
        return json.loads(archive.read(name))
    except (ValueError, NotImplementedError, zipfile.BadZipFile) as exc:
        raise InvalidInputError(f"{path}: {name} is not readable JSON ({exc})") from None


def load(path: str) -> dict[str, Any]:
    """The log at ``path`` (an ``.eval`` zip) as the JSON of a whole ``EvalLog``."""
    try:
        with file_errors("path"):
            archive = zipfile.ZipFile(path)
    except zipfile.BadZipFile:
        raise InvalidInputError(
            f"{path}: is not an Inspect .eval log (not a zip file); a .json log is read too"
        ) from None
    with archive:
        names = archive.namelist()
        log: dict[str, Any] = {}
        for header in ("_journal/start.json", "start.json", "results.json", "header.json"):
            if header in names:
                part = _member(archive, header, path)
                if isinstance(part, Mapping):
                    log.update(part)
        if "eval" not in log:
            raise InvalidInputError(
                f"{path}: holds no Inspect log header (header.json or start.json)"
            )
        log["samples"] = [
            _member(archive, name, path)
            for name in sorted(names)
            if name.startswith("samples/") and name.endswith(".json")
        ]
    return log


def _metric_values(name: str, score: Any, where: str) -> list[tuple[str, float]]:
    value = score.get("value") if isinstance(score, Mapping) else score
    if isinstance(value, Mapping):
        return [
            (f"{name}/{key}", score_number(v, where, f"{name}/{key}")) for key, v in value.items()
        ]
    return [(name, score_number(value, where, f"the score of {name!r}"))]


def harness_records(data: Any, where: str, cluster: str | None = None) -> Records:
    """The long rows of an Inspect log (see the module documentation)."""
    spec = data["eval"]
    packages = spec.get("packages") or {}
    built = HarnessRows(where, "inspect_ai", packages.get("inspect_ai"))
    task = spec.get("task")
    recorded = (data.get("results") or {}).get("scores") or []
    for entry in recorded:
        if isinstance(entry, Mapping) and isinstance(entry.get("name"), str):
            definition = {
                "task": task,
                "scorer": entry.get("scorer"),
                "params": entry.get("params") or {},
            }
            built.define(entry["name"], definition)
    system = spec.get("model")
    samples = data.get("samples")
    if not isinstance(samples, list) or not samples:
        raise InvalidInputError(
            f"{where}: the Inspect log holds no samples (written with --no-log-samples?); "
            "per-item values need them"
        )
    per_sample: list[tuple[Mapping[str, Any], str, dict[str, float]]] = []
    metrics: dict[str, str] = {}  # metric -> its scorer
    for position, sample in enumerate(samples):
        if not isinstance(sample, Mapping) or "id" not in sample:
            raise InvalidInputError(f"{where}: sample {position} has no id")
        here = f"{where}: sample {sample.get('id')!r} epoch {sample.get('epoch')}"
        values: dict[str, float] = {}
        if sample.get("error") is None:
            for name, score in (sample.get("scores") or {}).items():
                for metric, value in _metric_values(name, score, here):
                    values[metric] = value
                    metrics.setdefault(metric, name)
        per_sample.append((sample, here, values))
    for sample, here, values in per_sample:
        epoch = sample.get("epoch", 1)
        if isinstance(epoch, bool) or not isinstance(epoch, int) or epoch < 1:
            raise InvalidInputError(f"{here}: epoch is {epoch!r}, not a number from 1")
        group = None
        if cluster is not None:
            group = (sample.get("metadata") or {}).get(cluster)
            if group is None:
                raise InvalidInputError(f"{here}: its metadata has no {cluster!r} (cluster=)")
        for metric, scorer in metrics.items():
            built.define(metric, {"task": task, "scorer": scorer})
            built.add(
                sample["id"],
                metric,
                values.get(metric, float("nan")),
                here,
                system=system,
                repeat=epoch - 1,
                cluster=group,
                failed=metric not in values,
            )
    return built.records()


def read_records(
    path: str, *, what: str = "", argument: str = "path", noun: str = "row", caller: str = ""
) -> Records:
    """The long rows of the ``.eval`` log at ``path`` (the records reader of its format)."""
    return harness_records(load(path), path)

"""Report files: JSON, JSONL, YAML and TOML writers and readers, with atomic writes.

The format comes from the file suffix:

* ``.json``: the full report as strict JSON (RFC 8259): an undefined value (NaN) is ``null``;
* ``.jsonl``: one JSON object per line, one line per query (or per compared metric), for
  dataframes and log pipelines;
* ``.yaml`` / ``.yml``: the full report, needs PyYAML (``pip install 'ragmeter[yaml]'``);
* ``.toml``: the full report, needs ``tomli-w`` to write (``pip install 'ragmeter[toml]'``);
  TOML has no null, so ``None`` fields are omitted (and read back as ``None``); NaN is
  written as TOML's ``nan``.

Every write goes to a temporary file in the target directory which then replaces the target
(:func:`os.replace`), so an interrupted write never leaves a truncated report.
"""

from __future__ import annotations

import json
import math
import os
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Protocol, TypeVar

from ._optional import import_optional
from .exceptions import InvalidInputError

__all__ = [
    "REPORT_FORMATS",
    "Reportable",
    "atomic_write_text",
    "format_for_path",
    "load_report",
    "read_report",
    "write_report",
]

REPORT_FORMATS: dict[str, str] = {
    ".json": "json",
    ".jsonl": "jsonl",
    ".yaml": "yaml",
    ".yml": "yaml",
    ".toml": "toml",
}


class Reportable(Protocol):
    def to_dict(self) -> dict[str, Any]: ...
    def to_rows(self) -> list[dict[str, Any]]: ...


R = TypeVar("R", covariant=True)
T = TypeVar("T")


class ReportClass(Protocol[R]):
    """A report type that rebuilds itself from what ``read_report`` returns."""

    def from_dict(self, data: Mapping[str, Any], /) -> R: ...
    def from_rows(self, rows: Any, /) -> R: ...


def format_for_path(path: str | os.PathLike[str], format: str | None = None) -> str:
    """The report format of ``path`` (from its suffix), or ``format`` when given."""
    formats = sorted(set(REPORT_FORMATS.values()))
    if format is not None:
        if format not in formats:
            raise InvalidInputError(
                f"format: must be one of {', '.join(map(repr, formats))}, got {format!r}"
            )
        return format
    suffix = Path(path).suffix.lower()
    if suffix not in REPORT_FORMATS:
        raise InvalidInputError(
            f"path: cannot tell the report format of {os.fspath(path)!r} from its suffix "
            f"{suffix!r}; use one of {', '.join(REPORT_FORMATS)} or pass format="
        )
    return REPORT_FORMATS[suffix]


def _strict_json(value: Any) -> Any:
    """NaN and infinities become None: strict JSON has no such numbers."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, Mapping):
        return {key: _strict_json(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_strict_json(item) for item in value]
    return value


def _without_none(value: Any) -> Any:
    """TOML has no null: drop None values from tables (None inside arrays is refused)."""
    if isinstance(value, Mapping):
        return {key: _without_none(item) for key, item in value.items() if item is not None}
    if isinstance(value, list | tuple):
        if any(item is None for item in value):
            raise InvalidInputError(
                "a list holds None, which TOML cannot represent; write JSON or YAML instead"
            )
        return [_without_none(item) for item in value]
    return value


def _plain(value: Any) -> Any:
    """Built-in types only (YAML's safe dumper refuses float subclasses and tuples)."""
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return value
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float):
        return float(value)
    if isinstance(value, Mapping):
        return {key: _plain(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(item) for item in value]
    return value


def render_report(report: Reportable, format: str) -> str:
    """The text of ``report`` in ``format``."""
    if format == "json":
        return json.dumps(
            _strict_json(_plain(report.to_dict())), indent=2, ensure_ascii=False, allow_nan=False
        )
    if format == "jsonl":
        return "".join(
            json.dumps(_strict_json(_plain(row)), ensure_ascii=False, allow_nan=False) + "\n"
            for row in report.to_rows()
        )
    if format == "yaml":
        yaml = import_optional("yaml", extra="yaml", purpose="Writing a YAML report")
        return yaml.safe_dump(_plain(report.to_dict()), sort_keys=False, allow_unicode=True)
    if format == "toml":
        tomli_w = import_optional("tomli_w", extra="toml", purpose="Writing a TOML report")
        return tomli_w.dumps(_without_none(_plain(report.to_dict())))
    raise AssertionError(format)


def atomic_write_text(path: str | os.PathLike[str], text: str) -> Path:
    """Write ``text`` to ``path`` through a temporary file in the same directory, flushed to
    disk and then renamed over ``path``: readers see the old file or the new one, never a
    part of it."""
    target = Path(path)
    directory = target.parent if str(target.parent) else Path(".")
    descriptor, temporary = tempfile.mkstemp(
        dir=directory, prefix=f".{target.name}.", suffix=".tmp"
    )
    try:
        with os.fdopen(descriptor, "w", encoding="utf-8", newline="") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(temporary, 0o666 & ~umask)
        os.replace(temporary, target)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    return target


def write_report(
    report: Reportable, path: str | os.PathLike[str], *, format: str | None = None
) -> Path:
    """Write ``report`` (an evaluation or a comparison) to ``path`` atomically, in the format
    of its suffix (see the module docstring), and return the path."""
    fmt = format_for_path(path, format)
    return atomic_write_text(path, render_report(report, fmt))


def read_report(
    path: str | os.PathLike[str], *, format: str | None = None
) -> dict[str, Any] | list[dict[str, Any]]:
    """Read a report file: a dict for JSON, YAML and TOML, a list of rows for JSONL."""
    fmt = format_for_path(path, format)
    text = Path(path).read_text(encoding="utf-8")
    if fmt == "json":
        data: Any = json.loads(text)
    elif fmt == "jsonl":
        data = [json.loads(line) for line in text.splitlines() if line.strip()]
    elif fmt == "yaml":
        yaml = import_optional("yaml", extra="yaml", purpose="Reading a YAML report")
        data = yaml.safe_load(text)
    else:
        import tomllib

        data = tomllib.loads(text)
    if not isinstance(data, dict | list):
        raise InvalidInputError(f"{os.fspath(path)!r} does not hold a ragmeter report")
    return data


def load_report(
    cls: ReportClass[T], path: str | os.PathLike[str], *, format: str | None = None
) -> T:
    """Read a report file and rebuild ``cls`` from it: from its rows (JSONL) or its dict."""
    data = read_report(path, format=format)
    return cls.from_rows(data) if isinstance(data, list) else cls.from_dict(data)

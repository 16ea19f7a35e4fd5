"""Report files: JSON, JSONL, YAML and TOML writers and readers, with atomic writes.

The format comes from the file suffix:

* ``.json``: the full report as strict JSON (RFC 8259): an undefined value (NaN) is ``null``;
* ``.jsonl``: one JSON object per line, one line per query (or per compared metric), for
  dataframes and log pipelines. Lines end with LF only; the other characters some readers
  take for line ends (U+0085, U+2028, U+2029) are written as ``\\u`` escapes, so any line
  splitter reads one row per line;
* ``.yaml`` / ``.yml``: the full report, needs PyYAML (``pip install 'ragmeter[yaml]'``);
  strings holding a character YAML would read as a line break are double-quoted with escapes;
* ``.toml``: the full report, needs ``tomli-w`` to write (``pip install 'ragmeter[toml]'``);
  TOML has no null, so ``None`` fields are omitted (and read back as ``None``); NaN is
  written as TOML's ``nan``.

Every write goes through :func:`atomic_write_text`: a temporary file in the target directory,
flushed to disk, renamed over the target, so an interrupted write never leaves a truncated
report; an existing report keeps its permissions, and a symlink is written through.

Every saved result carries how much it holds and a checksum of its content
(:func:`with_integrity`): a whole report (JSON, YAML, TOML) ``n_values`` (how many values it
holds) and ``sha256``, right after its head; each JSONL row ``n_rows`` (how many rows the file
has) and ``sha256`` (of all the rows). The checksum is SHA-256 of a canonical serialisation
of the content as the file holds it (keys sorted, NaN and null alike: JSON writes NaN as null;
TOML, which has no null, leaves out the fields that are None).
Reading refuses a file whose count or checksum does not match, naming the file and what
differs: a truncated file (a JSONL cut at a line end included), a changed digit, an edited
field. A file written before saved results had a checksum is read unverified
(:func:`load_report_verified` says so).

Reading validates as writing does: :func:`load_report` rebuilds the report (which checks
metric names, value ranges and types), writes it again in memory and refuses the file unless
it holds exactly what ragmeter would write for it (apart from ``ragmeter_version``). A report
edited by hand or damaged (an out-of-range value, ``"0.5"`` for 0.5, an unknown metric or
field, a changed summary) is an :class:`~ragmeter.InvalidInputError` naming the file and the
field, as is a file that cannot be parsed (including YAML tags such as ``!!python/object``,
which the safe loader refuses, and input nested too deeply to parse).
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any, ClassVar, Protocol, TypeVar, runtime_checkable

from ._core import __version__
from ._files import atomic_write_text
from ._optional import import_optional
from .exceptions import InvalidInputError
from .io._formats import SAVED_SUFFIXES, parse_saved, read_saved_data, saved_format

__all__ = [
    "REPORT_FORMATS",
    "Reportable",
    "SavedResult",
    "atomic_write_text",
    "check_saved_head",
    "format_for_path",
    "load_report",
    "load_report_data",
    "load_report_verified",
    "metric_value",
    "read_report",
    "render_report",
    "report_number",
    "saved_data",
    "saved_head",
    "with_integrity",
    "write_report",
]

#: The formats of saved results by suffix (the rows of :data:`ragmeter.io.FORMATS` that hold
#: saved results).
REPORT_FORMATS: dict[str, str] = SAVED_SUFFIXES


class Reportable(Protocol):
    """What :func:`write_report` writes: an object with a full form and a row form."""

    def to_dict(self) -> dict[str, Any]:
        """The whole report (JSON, YAML and TOML files)."""
        ...

    def to_rows(self) -> list[dict[str, Any]]:
        """One row per query (JSONL files)."""
        ...


@runtime_checkable
class SavedResult(Protocol):
    """What every result type ragmeter saves and reads back has (the HTML report, the CI gate
    and ``ragmeter.schemas`` rely on it): ``KIND``, the file's ``kind`` field;
    ``FORMAT_VERSION``, the format it writes; ``READABLE_VERSIONS``, the formats it reads; the
    full form and the row form (:class:`Reportable`) and their inverses
    (:class:`ReportClass`); ``write(path)`` and ``read(path)`` through :func:`write_report` and
    :func:`load_report`. A saved dict starts with :func:`saved_head` (``kind``,
    ``format_version``, ``ragmeter_version``) and ``from_dict`` checks it with
    :func:`check_saved_head`. :class:`~ragmeter.RetrievalEvaluation`,
    :class:`~ragmeter.stats.Comparison`, :class:`~ragmeter.stats.MultipleComparison`,
    :class:`~ragmeter.MetricResults` (and :class:`~ragmeter.ranking.RunEvaluations`, the
    evaluations of several runs) and :class:`~ragmeter.judges.JudgeResults` are such types.

    A type that also reads files of a form without ``format_version`` (written before it had
    one) says which format a file is with a class method ``format_version_of(data)``."""

    KIND: ClassVar[str]
    FORMAT_VERSION: ClassVar[int]
    READABLE_VERSIONS: ClassVar[tuple[int, ...]]

    def to_dict(self) -> dict[str, Any]:
        """The whole result (JSON, YAML and TOML files)."""
        ...

    def to_rows(self) -> list[dict[str, Any]]:
        """One row per query or per metric (JSONL files)."""
        ...

    def write(self, path: str | os.PathLike[str], *, format: str | None = None) -> Any:
        """Write the result to ``path``, atomically."""
        ...


def saved_head(cls: type[SavedResult] | SavedResult) -> dict[str, Any]:
    """The first fields of a saved result of ``cls``: its ``kind``, the ``format_version`` it
    writes and the ``ragmeter_version`` that wrote it (declared once, by the class)."""
    return {
        "kind": cls.KIND,
        "format_version": cls.FORMAT_VERSION,
        "ragmeter_version": __version__,
    }


def check_saved_head(data: Any, cls: type[SavedResult], what: str) -> int:
    """The format version of ``data``, a saved result of ``cls`` being read, once its ``kind``
    and ``format_version`` are checked (``what`` names the kind in errors).

    Raises:
        InvalidInputError: not a mapping, another kind, a format this version cannot read (a
            newer one: upgrade ragmeter; an unknown one: write the result again).
    """
    if not isinstance(data, Mapping):
        raise InvalidInputError(f"expected {what} (a mapping), got {type(data).__name__}")
    kind = data.get("kind")
    if kind != cls.KIND:
        raise InvalidInputError(f"kind: {_shorten(repr(kind), 80)}; {what} has kind {cls.KIND!r}")
    version = data.get("format_version")
    readable = ", ".join(map(str, cls.READABLE_VERSIONS))
    if isinstance(version, bool) or version not in cls.READABLE_VERSIONS:
        newer = (
            isinstance(version, int)
            and not isinstance(version, bool)
            and version > max(cls.READABLE_VERSIONS)
        )
        advice = (
            "it was written by a newer ragmeter: upgrade ragmeter to read it"
            if newer
            else "write it again with ragmeter"
        )
        raise InvalidInputError(
            f"format_version: {_shorten(repr(version), 80)}; ragmeter {__version__} reads {what} "
            f"of formats {readable} ({advice})"
        )
    return int(version)


R = TypeVar("R", covariant=True)
T = TypeVar("T", bound=Reportable)


class ReportClass(Protocol[R]):
    """A report type that rebuilds itself from what ``read_report`` returns."""

    def from_dict(self, data: Mapping[str, Any], /) -> R:
        """The report from its full form."""
        ...

    def from_rows(self, rows: Any, /) -> R:
        """The report from its rows."""
        ...


def format_for_path(path: str | os.PathLike[str], format: str | None = None) -> str:
    """The report format of ``path`` (from its suffix), or ``format`` when given."""
    return saved_format(path, format)


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


#: Characters ``str.splitlines`` (and YAML) take for line ends besides those JSON escapes.
_UNICODE_LINE_ENDS = ("\x85", "\u2028", "\u2029")


def _json_line(row: Any) -> str:
    import json

    text = json.dumps(_strict_json(_plain(row)), ensure_ascii=False, allow_nan=False)
    # Inside JSON these characters can only be part of a string, where the escape is the
    # same character.
    for character in _UNICODE_LINE_ENDS:
        text = text.replace(character, f"\\u{ord(character):04x}")
    return text + "\n"


def _yaml_text(data: Any) -> str:
    yaml = import_optional("yaml", extra="yaml", purpose="Writing a YAML report")

    class Dumper(yaml.SafeDumper):  # type: ignore[misc,name-defined]
        """Strings with a character YAML reads as a line break are double-quoted, where
        PyYAML escapes it (``\\N``, ``\\L``, ``\\P``); in other styles it would fold.
        A value met twice is written twice, never as an anchor and an alias: the reader
        refuses aliases."""

        def ignore_aliases(self, data: Any) -> bool:
            return True

    def represent_str(dumper: Any, value: str) -> Any:
        quoted = any(character in value for character in _UNICODE_LINE_ENDS)
        return dumper.represent_scalar(
            "tag:yaml.org,2002:str", value, style='"' if quoted else None
        )

    Dumper.add_representer(str, represent_str)
    return str(yaml.dump(data, Dumper=Dumper, sort_keys=False, allow_unicode=True))


# -- fields of a report being read: each check names the field ------------------------------


def report_number(
    value: Any, field: str, *, minimum: float = -math.inf, maximum: float = math.inf
) -> float:
    """A number of a report (an int or float, never a bool or a string) in
    ``[minimum, maximum]``; None (JSON's null, TOML's omission) and NaN read as NaN."""
    if value is None:
        return math.nan
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise InvalidInputError(f"{field}: expected a number, got {_shorten(repr(value), 80)}")
    try:
        number = float(value)
    except OverflowError:
        # An int too large for a float (JSON and YAML integers have no bound): 4,000 digits.
        raise InvalidInputError(
            f"{field}: an integer of {len(str(abs(value)))} digits, too large for a number "
            f"of a report (a float: at most about 1.8e308)"
        ) from None
    if not math.isnan(number) and not minimum <= number <= maximum:
        raise InvalidInputError(f"{field}: {number!r} lies outside [{minimum}, {maximum}]")
    return number


def metric_value(value: Any, field: str, *, difference: bool = False) -> float:
    """A metric value (every metric lies in [0, 1]) or, with ``difference``, a difference of
    two (in [-1, 1]); NaN (undefined) when None or NaN."""
    return report_number(value, field, minimum=-1.0 if difference else 0.0, maximum=1.0)


#: The fields a whole report (JSON, YAML, TOML) carries for its integrity, after its head.
INTEGRITY_FIELDS = ("n_values", "sha256")
#: The fields each row of a JSONL report carries for the integrity of the whole file.
ROW_INTEGRITY_FIELDS = ("n_rows", "sha256")
_HEAD_FIELDS = ("kind", "format_version", "schema_version", "ragmeter_version")


def _content(value: Any) -> Any:
    """The content of report data as it reads back: NaN is null (JSON writes NaN as null, YAML
    and TOML as NaN), tuples are lists, float subclasses floats."""
    if isinstance(value, float) and math.isnan(value):
        return None
    if isinstance(value, Mapping):
        return {str(key): _content(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_content(item) for item in value]
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return value
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float):
        return float(value)
    return value


def _count(value: Any) -> int:
    if isinstance(value, Mapping):
        return sum(_count(item) for item in value.values())
    if isinstance(value, list):
        return sum(_count(item) for item in value)
    return 1


def _digest(content: Any) -> str:
    import hashlib
    import json

    text = json.dumps(
        content, sort_keys=True, ensure_ascii=False, separators=(",", ":"), allow_nan=False
    )
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def with_integrity(data: dict[str, Any] | list[dict[str, Any]]) -> Any:
    """Report data with its count and checksum (see the module documentation): a dict gets
    ``n_values`` and ``sha256`` after its head, each row of a list ``n_rows`` and ``sha256``.

    >>> with_integrity({"kind": "k", "value": 0.5})["n_values"]
    2
    >>> [row["n_rows"] for row in with_integrity([{"a": 1}, {"a": 2}])]
    [2, 2]
    """
    if isinstance(data, list):
        content = [_content(row) for row in data]
        digest = _digest(content)
        return [{**row, "n_rows": len(data), "sha256": digest} for row in data]
    content = _content(data)
    fields = {"n_values": _count(content), "sha256": _digest(content)}
    stamped: dict[str, Any] = {}
    leading = True  # still among the head's fields, which come first
    for key, value in data.items():
        if leading and key not in _HEAD_FIELDS:
            stamped.update(fields)
            leading = False
        stamped[key] = value
    if leading:
        stamped.update(fields)
    return stamped


def _without_integrity(data: Any, name: str) -> tuple[Any, bool]:
    """``data`` without its integrity fields, once they are checked; and whether there were
    any (a file written before saved results had them has none)."""
    if isinstance(data, list):
        stamped = [all(k in row for k in ROW_INTEGRITY_FIELDS) for row in data]
        if not any(stamped) and not any(k in row for row in data for k in ROW_INTEGRITY_FIELDS):
            return data, False
        if not all(stamped):
            line = stamped.index(False) + 1
            raise InvalidInputError(
                f"{name}: row {line} has no n_rows and sha256 where the other rows have them: "
                "rows were edited or joined from several files; write the file again"
            )
        first = {k: data[0][k] for k in ROW_INTEGRITY_FIELDS}
        for line, row in enumerate(data, start=1):
            if {k: row[k] for k in ROW_INTEGRITY_FIELDS} != first:
                raise InvalidInputError(
                    f"{name}: row {line} does not carry the n_rows and sha256 of row 1: rows of "
                    "several files were joined, or the file was edited; write it again"
                )
        rows = [{k: v for k, v in row.items() if k not in ROW_INTEGRITY_FIELDS} for row in data]
        expected = first["n_rows"]
        if isinstance(expected, bool) or not isinstance(expected, int) or expected != len(rows):
            raise InvalidInputError(
                f"{name}: holds {len(rows)} rows where it was written with "
                f"{_shorten(repr(expected), 40)}: the file was truncated or rows were removed "
                "or added; write it again"
            )
        _check_digest(name, first["sha256"], _digest([_content(row) for row in rows]))
        return rows, True
    if not isinstance(data, Mapping) or not any(k in data for k in INTEGRITY_FIELDS):
        return data, False
    missing = [k for k in INTEGRITY_FIELDS if k not in data]
    if missing:
        raise InvalidInputError(f"{name}: {missing[0]}: missing (its integrity is not known)")
    content = {k: v for k, v in data.items() if k not in INTEGRITY_FIELDS}
    canonical = _content(content)
    expected = data["n_values"]
    found = _count(canonical)
    if isinstance(expected, bool) or not isinstance(expected, int) or expected != found:
        raise InvalidInputError(
            f"{name}: holds {found} values where it was written with "
            f"{_shorten(repr(expected), 40)}: the file was truncated or edited; write it again"
        )
    _check_digest(name, data["sha256"], _digest(canonical))
    return content, True


def _check_digest(name: str, recorded: Any, computed: str) -> None:
    if recorded != computed:
        shown = _shorten(repr(recorded), 24)
        raise InvalidInputError(
            f"{name}: its content does not match its checksum (sha256 {shown} recorded, "
            f"{computed[:16]}... computed): the file was edited or damaged after ragmeter "
            "wrote it; write it again"
        )


def saved_data(report: Reportable, format: str = "json") -> Any:
    """The data a saved report holds in ``format``: its full form (its rows for JSONL), with
    its count and checksum, as built-in types (NaN is None in JSON and JSONL).

    Parameters
    ----------
    report
        A saved result.
    format
        ``"json"``, ``"jsonl"``, ``"yaml"`` or ``"toml"``.

    Returns
    -------
    dict or list
        The data.
    """
    data = _plain(report.to_rows() if format == "jsonl" else report.to_dict())
    if format in ("json", "jsonl"):
        data = _strict_json(data)
    elif format == "toml":
        data = _without_none(data)
    return with_integrity(data)


def render_report(report: Reportable, format: str) -> str:
    """The text of ``report`` in ``format``, with its count and checksum."""
    if format not in ("json", "jsonl", "yaml", "toml"):
        raise AssertionError(format)
    data = saved_data(report, format)
    if format == "json":
        import json

        return json.dumps(data, indent=2, ensure_ascii=False, allow_nan=False)
    if format == "jsonl":
        return "".join(_json_line(row) for row in data)
    if format == "yaml":
        return _yaml_text(data)
    tomli_w = import_optional("tomli_w", extra="toml", purpose="Writing a TOML report")
    return str(tomli_w.dumps(data))


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
    """Read a report file: a dict for JSON, YAML and TOML, a list of rows for JSONL (the file
    door's :func:`ragmeter.io._formats.read_saved_data`).

    A file that cannot be parsed (malformed, not UTF-8, nested too deeply, a YAML tag the safe
    loader refuses, a YAML alias, not a regular file) is an :class:`~ragmeter.InvalidInputError`
    naming it.
    """
    return read_saved_data(path, format)


def _shorten(text: str, limit: int = 300) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _comparable(value: Any) -> Any:
    """A form of parsed report data whose ``==`` is exact about types (``True`` is not 1,
    ``"0.5"`` is not 0.5) and treats NaN as equal to NaN; ``ragmeter_version`` is left out
    (files written by other versions of the same format are read)."""
    if isinstance(value, bool):
        return ("bool", value)
    if isinstance(value, float) and math.isnan(value):
        return ("nan",)
    if isinstance(value, int | float):
        return ("number", value)
    if isinstance(value, Mapping):
        return {key: _comparable(item) for key, item in value.items() if key != "ragmeter_version"}
    if isinstance(value, list):
        return [_comparable(item) for item in value]
    return value


def _first_difference(found: Any, expected: Any, where: str = "") -> str | None:
    """Where the data read first differs from what ragmeter writes, and how."""
    if isinstance(found, dict) and isinstance(expected, dict):
        for key in found:
            if key not in expected:
                return f"{where}{key}: a field ragmeter does not write"
        for key in expected:
            if key not in found:
                return f"{where}{key}: missing"
            difference = _first_difference(found[key], expected[key], f"{where}{key}.")
            if difference:
                return difference
        return None
    if isinstance(found, list) and isinstance(expected, list):
        if len(found) != len(expected):
            return f"{where.rstrip('.')}: {len(found)} items where {len(expected)} are expected"
        for i, (a, b) in enumerate(zip(found, expected, strict=True)):
            difference = _first_difference(a, b, f"{where.rstrip('.')}[{i}].")
            if difference:
                return difference
        return None
    if found == expected:
        return None

    def show(value: Any) -> str:
        plain = value[-1] if isinstance(value, tuple) else value
        return _shorten(repr(plain), 80)

    return f"{where.rstrip('.')}: {show(found)} where ragmeter would write {show(expected)}"


def _format_version(data: Any) -> Any:
    """The ``format_version`` of a report's dict (of its first row for JSONL), or None."""
    first = data[0] if isinstance(data, list) and data else data
    return first.get("format_version") if isinstance(first, dict) else None


def _version_of(cls: Any, data: Any) -> Any:
    """The format of the report data ``data`` of ``cls``: as the class tells it (a type that
    reads files written before they had a ``format_version``), else the data's field."""
    version_of = getattr(cls, "format_version_of", None)
    return version_of(data) if version_of is not None else _format_version(data)


def load_report_verified(
    cls: ReportClass[T], path: str | os.PathLike[str], *, format: str | None = None
) -> tuple[T, bool]:
    """:func:`load_report`, and whether the file's count and checksum were checked (False: a
    file written before saved results had them, read unverified).

    Raises:
        InvalidInputError: see :func:`load_report`.
    """
    fmt = format_for_path(path, format)
    name = os.fspath(path)
    return load_report_data(cls, read_report(path, format=fmt), fmt, name)


def load_report_data(cls: ReportClass[T], data: Any, fmt: str, name: str) -> tuple[T, bool]:
    """The report of ``cls`` in ``data``, parsed from the file ``name`` in ``fmt`` (see
    :func:`load_report`), and whether its count and checksum were checked."""
    data, verified = _without_integrity(data, name)
    try:
        report = cls.from_rows(data) if isinstance(data, list) else cls.from_dict(data)
        text = render_report(report, fmt)
        text.encode("utf-8")  # an unpaired surrogate (a "\ud800" escape) cannot be written
        expected, _ = _without_integrity(parse_saved(text, fmt), name)
        # A report of an older format the class still reads (READABLE_VERSIONS) was checked
        # field by field by from_dict and upgraded: it cannot equal what ragmeter now writes.
        found = _version_of(cls, data)
        older = found != _version_of(cls, expected) and found in getattr(
            cls, "READABLE_VERSIONS", ()
        )
        difference = None if older else _first_difference(_comparable(data), _comparable(expected))
    except RecursionError:
        raise InvalidInputError(f"{name}: nested too deeply to be a ragmeter report") from None
    except (KeyError, TypeError, ValueError, AttributeError, OverflowError) as exc:
        # OverflowError: a field's int too large for the float it is read as.
        detail = f"missing field {exc}" if isinstance(exc, KeyError) else str(exc)
        raise InvalidInputError(
            f"{name}: not a valid ragmeter report: {_shorten(detail)}"
        ) from None
    if difference:
        raise InvalidInputError(
            f"{name}: not a report as ragmeter writes it: {difference}. Was it edited by hand? "
            "Write reports with ragmeter (or fix the field) and read them again."
        )
    return report, verified


def load_report(
    cls: ReportClass[T], path: str | os.PathLike[str], *, format: str | None = None
) -> T:
    """Read a report file and rebuild ``cls`` from it (from its rows for JSONL, else its dict).

    The file must hold exactly what ragmeter writes for the report it rebuilds (see the module
    docstring), and its count and checksum must match its content; anything else is an
    :class:`~ragmeter.InvalidInputError` naming the file.
    """
    return load_report_verified(cls, path, format=format)[0]

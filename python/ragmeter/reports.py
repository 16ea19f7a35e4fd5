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

Reading validates as writing does: :func:`load_report` rebuilds the report (which checks
metric names, value ranges and types), writes it again in memory and refuses the file unless
it holds exactly what ragmeter would write for it (apart from ``ragmeter_version``). A report
edited by hand or damaged (an out-of-range value, ``"0.5"`` for 0.5, an unknown metric or
field, a changed summary) is an :class:`~ragmeter.InvalidInputError` naming the file and the
field, as is a file that cannot be parsed (including YAML tags such as ``!!python/object``,
which the safe loader refuses, and input nested too deeply to parse).
"""

from __future__ import annotations

import functools
import math
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any, ClassVar, Protocol, TypeVar, runtime_checkable

from ._core import __version__
from ._files import atomic_write_text, read_regular_text
from ._optional import import_optional
from .exceptions import InvalidInputError

__all__ = [
    "REPORT_FORMATS",
    "Reportable",
    "SavedResult",
    "atomic_write_text",
    "check_saved_head",
    "format_for_path",
    "load_report",
    "metric_value",
    "read_report",
    "render_report",
    "report_number",
    "saved_head",
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


def render_report(report: Reportable, format: str) -> str:
    """The text of ``report`` in ``format``."""
    if format == "json":
        import json

        return json.dumps(
            _strict_json(_plain(report.to_dict())), indent=2, ensure_ascii=False, allow_nan=False
        )
    if format == "jsonl":
        return "".join(_json_line(row) for row in report.to_rows())
    if format == "yaml":
        return _yaml_text(_plain(report.to_dict()))
    if format == "toml":
        tomli_w = import_optional("tomli_w", extra="toml", purpose="Writing a TOML report")
        return str(tomli_w.dumps(_without_none(_plain(report.to_dict()))))
    raise AssertionError(format)


def write_report(
    report: Reportable, path: str | os.PathLike[str], *, format: str | None = None
) -> Path:
    """Write ``report`` (an evaluation or a comparison) to ``path`` atomically, in the format
    of its suffix (see the module docstring), and return the path."""
    fmt = format_for_path(path, format)
    return atomic_write_text(path, render_report(report, fmt))


def _parse(text: str, fmt: str) -> Any:
    """The data of a report's text (errors are the parsers' own)."""
    # The parsers are imported here, for the format read: json and tomllib cost ~1.5 and
    # ~2 ms at import (their regexes), which a program that reads no report (the evaluate
    # command, which imports this module through MetricResults) should not pay.
    import json

    if fmt == "json":
        return json.loads(text)
    if fmt == "jsonl":
        # Only LF ends a row: str.splitlines() would also split at U+2028 and the like.
        return [json.loads(line) for line in text.split("\n") if line.strip()]
    if fmt == "yaml":
        yaml = import_optional("yaml", extra="yaml", purpose="Reading a YAML report")
        return yaml.load(text, Loader=_yaml_loader())
    import tomllib

    return tomllib.loads(text)


@functools.cache
def _yaml_loader() -> Any:
    """PyYAML's safe loader, refusing aliases (``*name``): ragmeter never writes one, and a
    few kilobytes of nested aliases (a "billion laughs" document) stand for billions of
    values, which the safe loader builds as shared references but every later walk of the
    data (the read-back check) expands. The refusal names the line of the first alias."""
    yaml = import_optional("yaml", extra="yaml", purpose="Reading a YAML report")

    class NoAliasLoader(yaml.SafeLoader):  # type: ignore[misc,name-defined]
        def compose_node(self, parent: Any, index: Any) -> Any:
            if self.check_event(yaml.AliasEvent):
                mark = self.peek_event().start_mark
                raise yaml.composer.ComposerError(
                    None,
                    None,
                    "an alias (*name): ragmeter writes none, and aliases can make a small "
                    "file stand for billions of values; write the values out",
                    mark,
                )
            return super().compose_node(parent, index)

    return NoAliasLoader


def _parse_errors() -> tuple[type[BaseException], ...]:
    errors: list[type[BaseException]] = [ValueError, RecursionError, MemoryError]
    try:
        import yaml
    except ImportError:
        pass
    else:
        errors.append(yaml.YAMLError)
    return tuple(errors)


def read_report(
    path: str | os.PathLike[str], *, format: str | None = None
) -> dict[str, Any] | list[dict[str, Any]]:
    """Read a report file: a dict for JSON, YAML and TOML, a list of rows for JSONL.

    A file that cannot be parsed (malformed, not UTF-8, nested too deeply, a YAML tag the safe
    loader refuses, a YAML alias, not a regular file) is an :class:`~ragmeter.InvalidInputError`
    naming it.
    """
    fmt = format_for_path(path, format)
    name = os.fspath(path)
    text = read_regular_text(path, "a report")
    try:
        data = _parse(text, fmt)
    except RecursionError:
        raise InvalidInputError(f"{name}: nested too deeply to be a ragmeter report") from None
    except _parse_errors() as exc:
        raise InvalidInputError(
            f"{name}: not a valid {fmt.upper()} report ({type(exc).__name__}: {_shorten(str(exc))})"
        ) from None
    if not isinstance(data, dict | list) or (
        isinstance(data, list) and not all(isinstance(row, dict) for row in data)
    ):
        raise InvalidInputError(f"{name}: does not hold a ragmeter report")
    return data


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


def load_report(
    cls: ReportClass[T], path: str | os.PathLike[str], *, format: str | None = None
) -> T:
    """Read a report file and rebuild ``cls`` from it (from its rows for JSONL, else its dict).

    The file must hold exactly what ragmeter writes for the report it rebuilds (see the module
    docstring); anything else is an :class:`~ragmeter.InvalidInputError` naming the file.
    """
    fmt = format_for_path(path, format)
    name = os.fspath(path)
    data = read_report(path, format=fmt)
    try:
        report = cls.from_rows(data) if isinstance(data, list) else cls.from_dict(data)
        text = render_report(report, fmt)
        text.encode("utf-8")  # an unpaired surrogate (a "\ud800" escape) cannot be written
        expected = _parse(text, fmt)
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
    return report

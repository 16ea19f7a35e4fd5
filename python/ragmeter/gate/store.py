"""The baseline store: baselines kept as ``DIR/NAME.json`` (per-query values with their
manifest), and what the gate reads from a file.

A stored baseline is read back as untrusted input: :func:`check_baseline` checks every field
of it (kind, schema version, manifest, query id types, values, failures) before anything
reads it, so a tampered or damaged baseline is an :class:`~ragmeter.InvalidInputError` naming
the field (``ragmeter gate`` exits 2), never a traceback or a decision. A baseline's name is
letters, digits, ``.``, ``_`` and ``-``, matched over the whole name (a name ending in a
newline is refused); a baseline file that is a symlink is refused, on reading and on writing
(an update would otherwise write through the link to any file the CI user can write).
"""

from __future__ import annotations

import json
import math
import os
import re
import stat
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..exceptions import InvalidInputError
from ..options import shorten
from ..reports import atomic_write_text, read_report
from .inputs import (
    BASELINE_KIND,
    BASELINE_SCHEMA_VERSION,
    GateValues,
    gate_values,
    read_gate_file,
)

__all__ = ["BaselineStore", "check_baseline", "read_gate_input"]

_NAME = re.compile(r"[A-Za-z0-9._-]+")
_INT_KEY = re.compile(r"-?(0|[1-9][0-9]*)")
_SCALAR = (str, int, float, bool, type(None))


def _fail(where: str, field: str, problem: str) -> InvalidInputError:
    return InvalidInputError(
        f"{where}: not a valid gate baseline: {field} {problem}; store the baseline again "
        "(pytest --ragmeter-update-baselines, or BaselineStore.save)"
    )


def _mapping(value: Any, where: str, field: str) -> Mapping[Any, Any]:
    if not isinstance(value, Mapping):
        raise _fail(where, field, f"must be an object, got {type(value).__name__}")
    return value


def _string_keys(value: Mapping[Any, Any], where: str, field: str) -> None:
    for key in value:
        if not isinstance(key, str) or not key:
            raise _fail(where, field, f"has a key {shorten(key, 40)} that is not a name")


def _plain_json(value: Any, where: str, field: str, depth: int = 0) -> None:
    """Settings, definitions and judges: JSON scalars, lists and objects, nothing else."""
    if depth > 32:
        raise _fail(where, field, "is nested too deeply")
    if isinstance(value, Mapping):
        _string_keys(value, where, field)
        for key, item in value.items():
            _plain_json(item, where, f"{field}.{key}", depth + 1)
    elif isinstance(value, list):
        for item in value:
            _plain_json(item, where, field, depth + 1)
    elif not isinstance(value, _SCALAR) or (isinstance(value, float) and not math.isfinite(value)):
        raise _fail(where, field, f"holds {shorten(value, 40)}")


def _value(value: Any, where: str, field: str) -> None:
    if value is None:
        return
    if isinstance(value, list):
        if not value:
            raise _fail(where, field, "is an empty list of repeats")
        for repeat in value:
            if repeat is not None:
                _number(repeat, where, field)
        return
    _number(value, where, field)


def _number(value: Any, where: str, field: str) -> None:
    if (
        isinstance(value, bool)
        or not isinstance(value, int | float)
        or not math.isfinite(float(value))
    ):
        raise _fail(where, field, f"holds {shorten(value, 40)}, not a finite number or null")


def check_baseline(data: Any, where: str = "baseline") -> None:
    """Check every field of a stored gate baseline (what :meth:`GateValues.to_dict` writes).

    Parameters
    ----------
    data
        The baseline as read from its JSON file.
    where
        How messages name it (its path).

    Raises
    ------
    InvalidInputError
        A field missing or of the wrong type or value, naming it: a kind or schema version
        that is not the baseline's, a manifest that is not an object of plain JSON,
        ``id_types`` that is not ``{id: type name}`` (an ``"int"`` id must be written as an
        integer), values that are not ``{metric: {id: number, null or [repeats]}}``,
        failures that are not ``{metric: [ids]}``.
    """
    data = _mapping(data, where, "the file")
    if data.get("kind") != BASELINE_KIND:
        raise _fail(where, "kind", f"is {shorten(data.get('kind'), 40)}, not {BASELINE_KIND!r}")
    version = data.get("schema_version")
    if isinstance(version, bool) or version != BASELINE_SCHEMA_VERSION:
        raise InvalidInputError(
            f"{where}: a gate baseline of schema version {shorten(version, 20)}; this ragmeter "
            f"reads version {BASELINE_SCHEMA_VERSION}: store the baseline again"
        )
    name = data.get("name")
    if name is not None and not isinstance(name, str):
        raise _fail(where, "name", f"must be a string or null, got {type(name).__name__}")
    manifest = _mapping(data.get("manifest"), where, "manifest")
    version_text = manifest.get("ragmeter_version")
    if version_text is not None and not isinstance(version_text, str):
        raise _fail(where, "manifest.ragmeter_version", "must be a string")
    for field in ("metrics", "settings"):
        if manifest.get(field) is not None:
            _plain_json(_mapping(manifest[field], where, f"manifest.{field}"), where, field)
    if manifest.get("judges") is not None:
        _plain_json(_mapping(manifest["judges"], where, "manifest.judges"), where, "judges")
    id_types = _mapping(data.get("id_types", {}), where, "id_types")
    _string_keys(id_types, where, "id_types")
    for key, kind in id_types.items():
        if not isinstance(kind, str):
            raise _fail(where, f"id_types[{key!r}]", f"is {shorten(kind, 20)}, not a type name")
        if kind == "int" and not _INT_KEY.fullmatch(key):
            raise _fail(where, f"id_types[{key!r}]", "says 'int' for an id that is no integer")
    values = _mapping(data.get("values"), where, "values")
    if not values:
        raise _fail(where, "values", "holds no metric")
    _string_keys(values, where, "values")
    for metric, column in values.items():
        column = _mapping(column, where, f"values[{metric!r}]")
        _string_keys(column, where, f"values[{metric!r}]")
        for item, value in column.items():
            _value(value, where, f"values[{metric!r}][{item!r}]")
    failed = _mapping(data.get("failed", {}), where, "failed")
    _string_keys(failed, where, "failed")
    for metric, items in failed.items():
        if not isinstance(items, list) or not all(isinstance(i, str) for i in items):
            raise _fail(where, f"failed[{metric!r}]", "must be a list of item ids")


def _regular_file(path: Path, where: str) -> None:
    """Refuse a symlink (or anything but a regular file) at ``path``; a missing one is fine."""
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        return
    if stat.S_ISLNK(mode):
        raise InvalidInputError(
            f"{where}: is a symlink; the baseline store holds regular files only (an update "
            "would write through the link to its target): replace the link by the file"
        )
    if not stat.S_ISREG(mode):
        raise InvalidInputError(f"{where}: is not a regular file")


def _baseline_values(data: Any, name: str | None, where: str) -> GateValues:
    check_baseline(data, where)
    return gate_values(data, name, where=where)


def read_gate_input(path: str | os.PathLike[str], name: str | None = None) -> GateValues:
    """One system's values from a file, as ``ragmeter gate`` reads them: a stored baseline is
    checked field by field first (:func:`check_baseline`); every other form is
    :func:`~ragmeter.gate.read_gate_file`'s.

    Parameters
    ----------
    path
        The file.
    name
        The system's name (default: the file's stem).

    Returns
    -------
    GateValues
        The values.

    Raises
    ------
    InvalidInputError
        A file that cannot be read or parsed, a damaged or tampered baseline.
    """
    where = os.fspath(path)
    if Path(path).suffix.lower() == ".json":
        data = read_report(path, format="json")
        if isinstance(data, Mapping) and data.get("kind") == BASELINE_KIND:
            return _baseline_values(data, name or Path(path).stem, where)
    return read_gate_file(path, name)


class BaselineStore:
    """Baselines kept as ``DIR/NAME.json``: per-query values with their manifest.

    Parameters
    ----------
    directory
        Where the baselines are.

    Examples
    --------
    >>> import tempfile
    >>> store = BaselineStore(tempfile.mkdtemp())
    >>> path = store.save("retrieval", {"ndcg@10": {"q1": 0.5, "q2": 0.75}})
    >>> store.load("retrieval").values["ndcg@10"]
    {'q1': 0.5, 'q2': 0.75}
    """

    def __init__(self, directory: str | os.PathLike[str]) -> None:
        """See the class documentation."""
        self.directory = Path(directory)

    def path(self, name: str) -> Path:
        """The file of the baseline ``name``.

        Parameters
        ----------
        name
            Letters, digits, ``.``, ``_`` and ``-`` (the whole name: no newline at its end).

        Returns
        -------
        Path
            ``DIR/NAME.json``.
        """
        if not isinstance(name, str) or not _NAME.fullmatch(name) or name in (".", ".."):
            raise InvalidInputError(
                f"name: a baseline's name is letters, digits, '.', '_' and '-', got {name!r}"
            )
        return self.directory / f"{name}.json"

    def exists(self, name: str) -> bool:
        """Whether the baseline ``name`` is stored.

        Parameters
        ----------
        name
            The baseline.

        Returns
        -------
        bool
            Whether its file exists (a symlink is refused when it is read or written).
        """
        return os.path.lexists(self.path(name))

    def save(self, name: str, results: Any) -> Path:
        """Store ``results`` as the baseline ``name`` (atomically, replacing an older one).

        Parameters
        ----------
        name
            The baseline.
        results
            Per-query results (see :func:`ragmeter.testing.assert_not_worse`).

        Returns
        -------
        Path
            The file written.

        Raises
        ------
        InvalidInputError
            A bad name, a symlink where the baseline goes.
        """
        path = self.path(name)
        values = gate_values(results, name)
        self.directory.mkdir(parents=True, exist_ok=True)
        _regular_file(path, os.fspath(path))
        text = json.dumps(values.to_dict(), indent=2, allow_nan=False, sort_keys=False)
        return atomic_write_text(path, text + "\n")

    def load(self, name: str) -> GateValues:
        """The stored baseline ``name``, checked field by field (:func:`check_baseline`).

        Parameters
        ----------
        name
            The baseline.

        Returns
        -------
        GateValues
            Its values and manifest.

        Raises
        ------
        InvalidInputError
            No such baseline (store it first), a symlink, a file that is not a valid gate
            baseline.
        """
        path = self.path(name)
        where = os.fspath(path)
        if not os.path.lexists(path):
            raise InvalidInputError(
                f"no baseline {name!r} in {self.directory}: store one first (pytest "
                "--ragmeter-update-baselines, or BaselineStore.save)"
            )
        _regular_file(path, where)
        data = read_report(path, format="json")
        if not isinstance(data, Mapping) or data.get("kind") != BASELINE_KIND:
            raise InvalidInputError(
                f"{path}: not a gate baseline (no manifest); store it again with "
                "--ragmeter-update-baselines"
            )
        return _baseline_values(data, name, where)

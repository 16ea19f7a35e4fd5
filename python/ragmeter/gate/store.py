"""The baseline store: baselines kept as ``DIR/NAME.json`` (the saved form of per-query values
with their manifest, count and checksum), and what the gate reads from a file.

A stored baseline is read back as untrusted input, through the file door
(:func:`ragmeter.io.read_per_query`): its checksum first, then exactly what ragmeter writes,
so a tampered or damaged baseline is an :class:`~ragmeter.InvalidInputError` naming the file
and the field (``ragmeter gate`` exits 2), never a traceback or a decision. A baseline's name
is letters, digits, ``.``, ``_`` and ``-``, matched over the whole name (a name ending in a
newline is refused); a baseline file that is a symlink is refused, on reading and on writing
(an update would otherwise write through the link to any file the CI user can write).
"""

from __future__ import annotations

import json
import os
import re
import stat
from pathlib import Path
from typing import Any

from ..exceptions import InvalidInputError
from ..reports import atomic_write_text
from .inputs import GateValues, gate_values, read_gate_file

__all__ = ["BaselineStore", "read_gate_input"]

_NAME = re.compile(r"[A-Za-z0-9._-]+")


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


def read_gate_input(path: str | os.PathLike[str], name: str | None = None) -> GateValues:
    """One system's values from a file, as ``ragmeter gate`` reads them
    (:func:`~ragmeter.gate.read_gate_file`: a stored baseline, any saved result of one
    system's values, a table of per-item values).

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
        """The stored baseline ``name``, read through the file door (its checksum, then every
        field).

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
        values = read_gate_file(path, name)
        if values.definitions is None:
            raise InvalidInputError(
                f"{path}: not a gate baseline (no manifest); store it again with "
                "--ragmeter-update-baselines"
            )
        return values

"""The command's words for the library's advice: an error message that says what to pass
(``complete=True``, ``missing='skip'``, ``duplicates="first"``) names the flag of the command
that raised it (``-c``, ``--missing skip``, ``--duplicates first``).

The library and the Rust core word their errors once, for Python callers; :func:`cli_message`
rewrites each keyword they advise into the running command's flag, from one table per command
(:data:`FLAGS`). A keyword a command has no flag for stays as it is (a test walks the
commands' messages and fails on any that names a Python keyword or a flag the command lacks).
"""

from __future__ import annotations

import re
from collections.abc import Mapping

__all__ = ["ADVICE", "FLAGS", "cli_message"]

#: A keyword the library advises: ``name=value`` with a literal value (``True``, ``False``,
#: ``None``, a quoted string), or a bare ``name=`` (``training judgments qrels=``); the name
#: stands alone (``evaluate_trec(complete=True)`` too). ``P(rel=2)@5`` is not advice.
ADVICE = re.compile(
    r"\b([a-z_][a-z0-9_]*)=(True|False|None|'[^'\n]*'|\"[^\"\n]*\"|(?=[\s,;:.)]|$))"
)

_EVALUATION: dict[tuple[str, str], str] = {
    ("complete", "True"): "-c",
    ("missing", "zero"): "-c",
    ("missing", "skip"): "--missing skip",
    ("missing", "raise"): "--missing raise",
    ("duplicates", "first"): "--duplicates first",
    ("duplicates", "raise"): "--duplicates raise",
}

#: Per command: ``(keyword, value)`` -> the command's flag that does the same.
FLAGS: Mapping[str, Mapping[tuple[str, str], str]] = {
    "evaluate": _EVALUATION,
    "compare": _EVALUATION,
    # The gate's --missing skip also evaluates a run without the judged queries it lacks.
    "gate": {
        ("complete", "True"): "-c",
        ("missing", "zero"): "-c",
        ("missing", "skip"): "--missing skip",
        ("duplicates", "first"): "--duplicates first",
    },
    "fuse": {
        ("qrels", ""): "--qrels",
        ("missing", "empty"): "--missing empty",
        ("missing", "intersect"): "--missing intersect",
        ("missing", "raise"): "--missing raise",
    },
}


def cli_message(message: str, command: str) -> str:
    """``message`` with every keyword it advises spelled as ``command``'s flag.

    Parameters
    ----------
    message
        An error message of the library.
    command
        The running subcommand (``evaluate``, ``compare``, ``gate``, ``fuse``...).

    Returns
    -------
    str
        The message in the command's words.

    Examples
    --------
    >>> cli_message("Pass complete=True to score them, or missing='skip'", "evaluate")
    'Pass -c to score them, or --missing skip'
    >>> cli_message('pass duplicates="first" to keep its best position', "compare")
    'pass --duplicates first to keep its best position'
    """
    flags = FLAGS.get(command, {})

    def spelled(match: re.Match[str]) -> str:
        name, value = match.group(1), match.group(2).strip("'\"")
        return flags.get((name, value), match.group(0))

    return ADVICE.sub(spelled, message)

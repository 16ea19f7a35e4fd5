"""The compact letter display of a multiple comparison: a letter per group of systems that are
not significantly different from each other (Piepho, "An algorithm for a letter-based
representation of all-pairwise comparisons", Journal of Computational and Graphical Statistics
13(2), 2004).

Two systems share a letter exactly when the test did not find them different; a system carries
every letter of every group it belongs to. The groups are the maximal sets of systems no two of
which differ significantly (the maximal cliques of the "not significantly different" graph),
found by Piepho's insert-and-absorb algorithm: start with one group of every system; for each
significantly different pair, split every group holding both into one without each; drop a
group inside another. The letters follow the order given (the best system first gets ``a``).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from ..exceptions import InvalidInputError

__all__ = ["compact_letter_display", "letter_groups"]


def letter_groups(
    systems: Sequence[str], different: Iterable[tuple[str, str]]
) -> list[frozenset[str]]:
    """The groups of the compact letter display, in the order of their letters.

    Parameters
    ----------
    systems
        The systems, in the order the letters follow (best first).
    different
        The pairs found significantly different (either order).

    Returns
    -------
    list[frozenset[str]]
        One set of systems per letter: no two of a set differ significantly, and each set is
        as large as it can be.

    Raises
    ------
    InvalidInputError
        A pair names a system not in ``systems``, or a system twice.

    Examples
    --------
    >>> [sorted(g) for g in letter_groups(["a", "b", "c"], [("a", "c")])]
    [['a', 'b'], ['b', 'c']]
    """
    order = {s: i for i, s in enumerate(systems)}
    if len(order) != len(systems):
        raise InvalidInputError(f"systems: each system once, got {list(systems)}")
    # Groups as bit masks of the systems' positions (the same sets, cheaper to compare).
    groups: list[int] = [(1 << len(systems)) - 1] if systems else []
    for a, b in different:
        if a not in order or b not in order:
            raise InvalidInputError(f"different: ({a!r}, {b!r}) names a system not compared")
        if a == b:
            continue
        bit_a, bit_b = 1 << order[a], 1 << order[b]
        both = bit_a | bit_b
        split: list[int] = []
        new: set[int] = set()
        for group in groups:
            if group & both == both:
                split += [group & ~bit_a, group & ~bit_b]
                new.update(split[-2:])
            else:
                split.append(group)
        # Absorb: a group inside another says nothing the larger one does not. The groups
        # before the split were maximal, so only a new group can lie inside another.
        unique = list(dict.fromkeys(split))
        groups = [
            g
            for g in unique
            if g not in new or not any(g & other == g and g != other for other in unique)
        ]
    rank = len(systems)
    members = [frozenset(s for s in systems if group >> order[s] & 1) for group in groups]

    def key(group: frozenset[str]) -> tuple[int, ...]:
        positions = sorted(order[s] for s in group)
        return (*positions, rank)

    return sorted(members, key=key)


def _letter(index: int) -> str:
    """a, b, ..., z, aa, ab, ... (spreadsheet columns, lowercase)."""
    text = ""
    index += 1
    while index:
        index, rest = divmod(index - 1, 26)
        text = chr(ord("a") + rest) + text
    return text


def compact_letter_display(
    systems: Sequence[str], different: Iterable[tuple[str, str]]
) -> dict[str, str]:
    """Each system's letters: systems sharing a letter are not significantly different.

    Parameters
    ----------
    systems
        The systems, best first (the first group gets ``a``).
    different
        The pairs found significantly different.

    Returns
    -------
    dict[str, str]
        ``{system: letters}`` in the order of ``systems`` (``"a"``, ``"ab"``, ...; beyond 26
        groups, ``"aa"``... joined by commas).

    Examples
    --------
    >>> compact_letter_display(["hybrid", "dense", "bm25"], [("hybrid", "bm25")])
    {'hybrid': 'a', 'dense': 'ab', 'bm25': 'b'}
    """
    groups = letter_groups(systems, different)
    letters = [_letter(i) for i in range(len(groups))]
    joiner = "" if len(groups) <= 26 else ","
    return {
        s: joiner.join(letter for letter, g in zip(letters, groups, strict=True) if s in g)
        for s in systems
    }

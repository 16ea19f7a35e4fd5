"""The normalisations of answer texts, each implemented once in the Rust core.

Every answer metric takes ``normalize=``: one of these names (``"squad"``, ``"bergen"``,
``"basic"``), ``None`` (compare the texts as given) or a callable ``str -> str``. The functions
here give the normalised text itself.
"""

from __future__ import annotations

from .. import _core

__all__ = ["normalize_basic", "normalize_bergen", "normalize_squad"]


def normalize_squad(text: str) -> str:
    """Normalise ``text`` as the official SQuAD v1.1 evaluation script does.

    Lower case (:meth:`str.lower`), remove ASCII punctuation (:data:`string.punctuation`),
    replace the whole words ``a``, ``an`` and ``the`` by a space (``re.sub(r"\\b(a|an|the)\\b",
    " ", text)``, where a word character is a Unicode letter or number), and collapse white
    space (``" ".join(text.split())``).

    Reference: Rajpurkar et al. (2016), "SQuAD: 100,000+ Questions for Machine Comprehension
    of Text", ``evaluate-v1.1.py``.

    Parameters
    ----------
    text
        The text to normalise.

    Returns
    -------
    str
        The normalised text (``""`` when nothing is left).

    Raises
    ------
    InputTypeError
        A ``TypeError``: ``text`` is not a ``str``.

    Examples
    --------
    The hyphen is removed without a space, so the two words join:

    >>> normalize_squad("The  Eiffel-Tower!")
    'eiffeltower'
    >>> normalize_squad("An apple, a pear and the plum.")
    'apple pear and plum'
    """
    return _core.normalize_text(text, "squad")


def normalize_basic(text: str) -> str:
    """Lower case ``text`` and collapse its white space: ``" ".join(text.lower().split())``.

    This is the normalisation of the DocVQA / ST-VQA ANLS evaluation: punctuation is kept.

    Parameters
    ----------
    text
        The text to normalise.

    Returns
    -------
    str
        The lower-cased text, its runs of white space replaced by one space, without leading
        or trailing space.

    Raises
    ------
    InputTypeError
        A ``TypeError``: ``text`` is not a ``str``.

    Examples
    --------
    >>> normalize_basic("  The Eiffel\\nTower. ")
    'the eiffel tower.'
    """
    return _core.normalize_text(text, "basic")


def normalize_bergen(text: str) -> str:
    """Normalise ``text`` as BERGEN's ``normalize`` does (its ``Match``, ``EM`` and ``F1``).

    The steps of :func:`normalize_squad`, with the articles removed by the third-party
    ``regex`` module (``regex.sub(r"\\b(a|an|the)\\b", " ", text)``) instead of ``re``. Its
    word characters, which decide where ``\\b`` falls, are Unicode's (UTS #18:
    ``Alphabetic``, marks, decimal numbers, connector punctuation, join controls), where
    ``re`` counts letters and all numbers. The two agree on ASCII text and differ next to
    combining marks, "other numbers" (``²``, ``½``) and a few symbols: an article followed by
    a combining accent stays here (it is part of a longer word) and goes in SQuAD's.

    Reference: BERGEN (Rau et al., 2024, "BERGEN: A Benchmarking Library for
    Retrieval-Augmented Generation"), ``modules/metrics.py``.

    Parameters
    ----------
    text
        The text to normalise.

    Returns
    -------
    str
        The normalised text (``""`` when nothing is left).

    Raises
    ------
    InputTypeError
        A ``TypeError``: ``text`` is not a ``str``.

    Examples
    --------
    >>> normalize_bergen("The  Eiffel-Tower!")
    'eiffeltower'

    A combining accent is a word character for the ``regex`` module, not for ``re``:

    >>> print(ascii(normalize_bergen("The\\u0301 end")), ascii(normalize_squad("The\\u0301 end")))
    'the\\u0301 end' '\\u0301 end'
    """
    return _core.normalize_text(text, "bergen")

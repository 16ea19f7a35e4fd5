"""Sentence splitting and word tokens, with no downloads (cf. TruLens' run-time nltk download).

:func:`split_sentences` is a small regex splitter: it breaks after ``.``, ``!``, ``?`` followed
by whitespace and a character that does not start with a lowercase letter, after the CJK full
stops ``。！？`` and at line breaks, and does not break after common abbreviations or initials.
Metrics that split text take a ``sentence_splitter`` argument for anything better (for example
``pysbd.Segmenter(language="de", clean=False).segment``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from ..exceptions import InvalidInputError

__all__ = [
    "SentenceSplitter",
    "content_words",
    "joined_contexts",
    "resolve_splitter",
    "sentences_of",
    "split_sentences",
    "word_tokens",
]

SentenceSplitter = Callable[[str], list[str]]

_ABBREVIATIONS = frozenset(
    [
        "mr",
        "mrs",
        "ms",
        "dr",
        "prof",
        "sr",
        "jr",
        "st",
        "vs",
        "etc",
        "e.g",
        "i.e",
        "inc",
        "ltd",
        "co",
        "corp",
        "no",
        "fig",
        "al",
        "approx",
        "dept",
        "est",
        "jan",
        "feb",
        "mar",
        "apr",
        "jun",
        "jul",
        "aug",
        "sep",
        "sept",
        "oct",
        "nov",
        "dec",
        "u.s",
        "u.k",
    ]
)
_BOUNDARY = re.compile(r"([.!?]+[\"'”’)\]]*)\s+(?=\S)")
_CJK_BOUNDARY = re.compile(r"(?<=[。！？])")
_WORD = re.compile(r"\w+", re.UNICODE)

STOPWORDS = frozenset(
    [
        "a",
        "an",
        "the",
        "and",
        "or",
        "but",
        "if",
        "then",
        "else",
        "of",
        "to",
        "in",
        "on",
        "at",
        "by",
        "for",
        "with",
        "from",
        "as",
        "is",
        "are",
        "was",
        "were",
        "be",
        "been",
        "being",
        "do",
        "does",
        "did",
        "has",
        "have",
        "had",
        "it",
        "its",
        "this",
        "that",
        "these",
        "those",
        "there",
        "here",
        "what",
        "which",
        "who",
        "whom",
        "whose",
        "when",
        "where",
        "why",
        "how",
        "i",
        "you",
        "he",
        "she",
        "we",
        "they",
        "me",
        "him",
        "her",
        "us",
        "them",
        "my",
        "your",
        "his",
        "our",
        "their",
        "not",
        "no",
        "yes",
        "so",
        "than",
        "too",
        "very",
        "can",
        "could",
        "should",
        "would",
        "will",
        "shall",
        "may",
        "might",
        "must",
        "about",
        "into",
        "over",
        "under",
        "again",
        "further",
        "once",
        "all",
        "any",
        "both",
        "each",
        "few",
        "more",
        "most",
        "other",
        "some",
        "such",
        "only",
        "own",
        "same",
        "just",
        "also",
        "per",
        "via",
    ]
)


def _ends_with_abbreviation(chunk: str) -> bool:
    words = chunk.rstrip(".!?\"'”’)]").split()
    if not words:
        return False
    last = words[-1].lower().rstrip(".")
    if last in _ABBREVIATIONS:
        return True
    # A single capital letter before the period is an initial ("J. R. R. Tolkien").
    return len(last) == 1 and last.isalpha()


def split_sentences(text: str) -> list[str]:
    """Sentences of ``text`` in order, stripped, empty ones dropped."""
    sentences: list[str] = []
    for line in str(text).splitlines():
        for piece in _CJK_BOUNDARY.split(line):
            pending = ""
            position = 0
            for match in _BOUNDARY.finditer(piece):
                chunk = pending + piece[position : match.end(1)]
                following = piece[match.end() : match.end() + 1]
                if _ends_with_abbreviation(chunk) or following.islower():
                    pending = chunk + piece[match.end(1) : match.end()]
                else:
                    sentences.append(chunk.strip())
                    pending = ""
                position = match.end()
            rest = (pending + piece[position:]).strip()
            if rest:
                sentences.append(rest)
    return [s for s in sentences if s]


def word_tokens(text: str) -> list[str]:
    """Lowercased word tokens (``\\w+``)."""
    return [t.lower() for t in _WORD.findall(str(text))]


def content_words(text: str) -> set[str]:
    """Word tokens that are not English stopwords (used by the deterministic RuleJudge)."""
    return {t for t in word_tokens(text) if t not in STOPWORDS}


def resolve_splitter(sentence_splitter: SentenceSplitter | None) -> SentenceSplitter:
    """The ``sentence_splitter=`` argument of a metric, or :func:`split_sentences`."""
    if sentence_splitter is not None and not callable(sentence_splitter):
        raise InvalidInputError(
            "sentence_splitter must be a callable text -> list of sentences, got "
            f"{type(sentence_splitter).__name__}"
        )
    return sentence_splitter or split_sentences


def sentences_of(splitter: SentenceSplitter, text: str) -> list[str]:
    """The non-blank sentences ``splitter`` finds in ``text``, stripped."""
    return [s.strip() for s in splitter(text) if s and s.strip()]


def joined_contexts(contexts: Sequence[str] | None) -> str:
    """The non-blank contexts, stripped and joined by blank lines (``""`` for none)."""
    return "\n\n".join(c.strip() for c in contexts or () if c.strip())

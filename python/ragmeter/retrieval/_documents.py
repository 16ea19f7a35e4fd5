"""The unit a retriever returns: one chunk of one source, with a stable identifier."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..exceptions import InvalidInputError

__all__ = ["CorpusDocument", "DocId"]

DocId = str | int


@dataclass(frozen=True)
class CorpusDocument:
    """One chunk of text from a source, as indexed and returned by a retriever.

    ``doc_id`` is what the relevance judgments name. When it is not given it is derived from
    ``(input_path, chunk_index, text[:64])`` (:meth:`make_doc_id`, 16 hexadecimal characters),
    so rebuilding the same corpus gives the same identifiers.

    ``tokens`` (pre-tokenised text for BM25) and ``embedding`` (a vector for semantic search)
    are not part of equality; ``metadata`` is compared but not hashed.
    """

    doc_id: DocId | None = None
    input_path: str = ""
    chunk_index: int = 0
    text: str = ""
    normalized_text: str | None = None
    tokens: tuple[str, ...] | None = field(default=None, compare=False)
    embedding: tuple[float, ...] | None = field(default=None, compare=False, repr=False)
    language: str | None = None
    char_start: int | None = None
    char_end: int | None = None
    parent_doc_id: DocId | None = None
    url: str | None = None
    metadata: Mapping[str, Any] = field(default_factory=dict, hash=False)

    def __post_init__(self) -> None:
        if not isinstance(self.input_path, str) or not self.input_path:
            raise InvalidInputError(
                f"input_path: every document needs the path or URI of its source, "
                f"got {self.input_path!r}"
            )
        if not isinstance(self.text, str) or not self.text:
            raise InvalidInputError(
                f"text: document {self.doc_id!r} from {self.input_path!r} has no text "
                f"({self.text!r}); drop empty chunks before indexing"
            )
        if isinstance(self.chunk_index, bool) or not isinstance(self.chunk_index, int):
            raise InvalidInputError(
                f"chunk_index: must be an int, got {self.chunk_index!r} "
                f"({type(self.chunk_index).__name__})"
            )
        if self.doc_id is None:
            object.__setattr__(
                self, "doc_id", self.make_doc_id(self.input_path, self.chunk_index, self.text)
            )
        elif isinstance(self.doc_id, bool) or not isinstance(self.doc_id, str | int):
            raise InvalidInputError(
                f"doc_id: must be a str or an int, got {self.doc_id!r} "
                f"({type(self.doc_id).__name__})"
            )
        if self.tokens is not None:
            if isinstance(self.tokens, str):
                raise InvalidInputError(
                    f"tokens: document {self.doc_id!r} got a str; pass a sequence of tokens"
                )
            object.__setattr__(self, "tokens", tuple(self.tokens))
        if self.embedding is not None:
            object.__setattr__(self, "embedding", tuple(float(v) for v in self.embedding))

    @staticmethod
    def make_doc_id(input_path: str, chunk_index: int, text: str) -> str:
        """16 hexadecimal characters of SHA-256 over the path, the chunk index and the first
        64 characters of the text."""
        key = f"{input_path}\x1f{chunk_index}\x1f{text[:64]}".encode()
        return hashlib.sha256(key).hexdigest()[:16]

    @classmethod
    def create(
        cls,
        input_path: str,
        chunk_index: int,
        text: str,
        *,
        doc_id: DocId | None = None,
        embedding: Sequence[float] | None = None,
        **fields: Any,
    ) -> CorpusDocument:
        """Positional factory: ``CorpusDocument.create("a.txt", 0, "kitten")``."""
        return cls(
            doc_id=doc_id,
            input_path=input_path,
            chunk_index=chunk_index,
            text=text,
            embedding=None if embedding is None else tuple(embedding),
            **fields,
        )

    @property
    def search_text(self) -> str:
        """``normalized_text`` when it is set and not empty, else ``text``."""
        return self.normalized_text or self.text

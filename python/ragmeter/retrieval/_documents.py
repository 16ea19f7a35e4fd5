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
    are not part of equality; ``metadata`` is compared but not hashed. The object is frozen.
    :meth:`create` takes the first three fields by position.

    Parameters
    ----------
    doc_id
        The identifier the judgments name: a ``str`` or an ``int`` (one type per corpus).
        None (default): derived with :meth:`make_doc_id`.
    input_path
        The path or URI of the source; required, not empty.
    chunk_index
        The position of this chunk in its source (an ``int``); default 0.
    text
        The chunk's text; required, not empty (drop empty chunks before indexing).
    normalized_text
        A cleaned version of ``text`` to search instead (see ``use_normalized_text`` of
        :class:`~ragmeter.retrieval.RetrievalConfig`); None (default): search ``text``.
    tokens
        The tokens BM25 reads, in place of :func:`~ragmeter.retrieval.tokenize` of the text
        (a sequence of ``str``, not a single ``str``; stored as a tuple). Queries are still
        tokenised with :func:`~ragmeter.retrieval.tokenize`, so the tokens must be of that
        form to match.
    embedding
        The chunk's vector for semantic and hybrid search (stored as a tuple of floats);
        every document of an index needs one, of the same dimension, for a dense index to be
        built.
    language, char_start, char_end, parent_doc_id, url
        Descriptive fields carried along with the hits (the language of the text, the
        chunk's character span in its source, the identifier of the document it was cut
        from, a link); the index does not read them.
    metadata
        Any other information, as a mapping (default empty); compared, not hashed, not read
        by the index.

    Raises
    ------
    InvalidInputError
        A ``ValueError``: an empty or non-``str`` ``input_path`` or ``text``, a
        ``chunk_index`` that is not an int, a ``doc_id`` that is neither a ``str`` nor an
        ``int``, ``tokens`` given as a single ``str``.

    Examples
    --------
    >>> doc = CorpusDocument(doc_id="d1", input_path="faq.md", text="Reset your password")
    >>> doc.doc_id, doc.chunk_index, doc.search_text
    ('d1', 0, 'Reset your password')
    >>> CorpusDocument(input_path="a.txt", text="kitten").doc_id  # derived: make_doc_id
    'f63b9487d491c342'
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
        """The identifier given to a document without one.

        16 hexadecimal characters of SHA-256 over ``f"{input_path}\\x1f{chunk_index}\\x1f"``
        followed by the first 64 characters of the text, encoded as UTF-8: the same chunk of
        the same source always gets the same identifier.

        Parameters
        ----------
        input_path
            The path or URI of the source.
        chunk_index
            The position of the chunk in its source.
        text
            The chunk's text (only its first 64 characters count).

        Returns
        -------
        str
            16 lower-case hexadecimal characters.

        Examples
        --------
        >>> import hashlib
        >>> CorpusDocument.make_doc_id("a.txt", 0, "kitten")
        'f63b9487d491c342'
        >>> hashlib.sha256("a.txt\\x1f0\\x1fkitten".encode()).hexdigest()[:16]
        'f63b9487d491c342'
        """
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
        """Make a document from its source, chunk index and text, given by position.

        Parameters
        ----------
        input_path
            The path or URI of the source.
        chunk_index
            The position of the chunk in its source.
        text
            The chunk's text.
        doc_id
            The identifier (None: derived with :meth:`make_doc_id`).
        embedding
            The chunk's vector, any sequence of numbers (None: no embedding).
        **fields
            Any other field of :class:`CorpusDocument` by name (``normalized_text``,
            ``tokens``, ``metadata``...).

        Returns
        -------
        CorpusDocument
            The document, checked as the constructor checks it.

        Raises
        ------
        InvalidInputError
            A ``ValueError``: a field the constructor refuses.

        Examples
        --------
        >>> doc = CorpusDocument.create("a.txt", 0, "kitten", embedding=[1, 0])
        >>> doc.doc_id, doc.embedding
        ('f63b9487d491c342', (1.0, 0.0))
        """
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

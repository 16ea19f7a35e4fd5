"""Files read and written safely, for reports, JSON inputs and TREC runs.

* :func:`read_regular_text`: the UTF-8 text of a regular file. Anything else (a FIFO, a device
  such as ``/dev/zero``, a directory) is refused by name before it is opened: a FIFO would
  wait for a writer and a device could be read until memory runs out.
* :func:`atomic_write_text`, :func:`atomic_write_bytes`: readers see the old file or the new
  one, never a part of it.
* :func:`trec_fields`: the fields of a line of trec_eval's text files, split as trec_eval
  splits them.
"""

from __future__ import annotations

import errno
import os
import re
import stat
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path

from .exceptions import (
    InputFileError,
    InputFileNotFoundError,
    InputFilePermissionError,
    InputTypeError,
    InvalidInputError,
)

__all__ = [
    "atomic_write_bytes",
    "atomic_write_chunks",
    "atomic_write_text",
    "file_errors",
    "input_file_error",
    "path_argument",
    "read_regular_text",
    "trec_fields",
]

#: The bytes C's ``isspace`` accepts (space, tab, LF, vertical tab, form feed, CR): what
#: separates the fields of every file trec_eval reads (``get_qrels.c``, ``get_prefs.c``,
#: ``get_zscores.c``, ...). Python's ``str.split()`` splits at more (0x1C to 0x1F, U+0085,
#: U+00A0, U+2028...), which trec_eval reads as part of a field.
_C_SPACE = re.compile("[ \t\n\x0b\x0c\r]+")


def trec_fields(line: str) -> list[str]:
    r"""The fields of ``line`` as trec_eval splits them: at runs of C's ``isspace`` bytes only.

    >>> trec_fields(" q1\t0  d\x01x 1\r")
    ['q1', '0', 'd\x01x', '1']
    """
    return [field for field in _C_SPACE.split(line) if field]


def path_argument(path: object, argument: str) -> str:
    """``path`` (a ``str``, ``bytes`` or ``os.PathLike``) as the ``str`` the readers take, or an
    input error naming ``argument``: another type (``None``, an open file, a list), an empty
    path, a path holding a NUL character (no file has such a name).

    >>> path_argument(Path("runs") / "bm25.txt", "run")
    'runs/bm25.txt'
    """
    name: object = path
    if isinstance(path, os.PathLike):
        try:
            name = os.fspath(path)
        except TypeError as error:
            raise InputTypeError(f"{argument}: not a path: {error}") from None
    if isinstance(name, bytes):
        name = os.fsdecode(name)
    if not isinstance(name, str):
        if hasattr(path, "read"):
            raise InputTypeError(
                f"{argument}: expected the path of a file, got an open file "
                f"({type(path).__name__}); pass its path instead (e.g. file.name)"
            )
        raise InputTypeError(
            f"{argument}: expected the path of a file (a str or os.PathLike), got "
            f"{type(path).__name__}"
        )
    if not name:
        raise InvalidInputError(f"{argument}: the path is empty; name a file")
    if "\x00" in name:
        raise InvalidInputError(
            f"{argument}: the path {name!r} holds a NUL character, which no file name can "
            "hold; check how the path was built"
        )
    return name


def input_file_error(error: OSError, argument: str) -> InputFileError:
    """``error`` (an OS error met reading the file given as ``argument``) as an
    :class:`~ragmeter.InputFileError` of the same kind, whose message names ``argument``."""
    if isinstance(error, InputFileError):
        return error
    cls: type[InputFileError] = InputFileError
    if isinstance(error, FileNotFoundError):
        cls = InputFileNotFoundError
    elif isinstance(error, PermissionError):
        cls = InputFilePermissionError
    if error.errno is None or error.strerror is None:
        return cls(f"{argument}: {error}")
    if error.filename is None:
        return cls(error.errno, f"{argument}: {error.strerror}")
    return cls(error.errno, f"{argument}: {error.strerror}", error.filename)


@contextmanager
def file_errors(argument: str) -> Iterator[None]:
    """OS errors raised inside (a missing file, a permission denied) as
    :class:`~ragmeter.InputFileError` naming ``argument``."""
    try:
        yield
    except InputFileError:
        raise
    except OSError as error:
        raise input_file_error(error, argument) from None


def _describe(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def read_regular_text(path: str | os.PathLike[str], what: str, argument: str = "path") -> str:
    """The text of the regular file ``path``, decoded as UTF-8 (``what`` names the file's role
    in errors, e.g. ``"a report"``). Raises :class:`InvalidInputError` naming the path for
    anything that is not a regular file or not UTF-8, and an
    :class:`~ragmeter.InputFileError` (an ``OSError``) naming ``argument`` for an OS error (a
    missing file).
    """
    name = path_argument(path, argument)
    with file_errors(argument):
        mode = os.stat(name).st_mode
        if not stat.S_ISREG(mode):
            raise InvalidInputError(
                f"{name}: is {_describe(mode)}, not a regular file; {what} is read from a "
                "regular file only (save the output of a pipe or a program to a file first)"
            )
        with open(name, "rb") as handle:
            if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
                raise InvalidInputError(f"{name}: was replaced while it was opened; read it again")
            data = handle.read()
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise InvalidInputError(
            f"{name}:{line}: not UTF-8 text (byte {data[exc.start]:#04x}); {what} is read as "
            "UTF-8: re-encode the file"
        ) from None


def atomic_write_text(path: str | os.PathLike[str], text: str) -> Path:
    """Write ``text`` (UTF-8) to ``path`` atomically and durably, and return ``path``.

    Text that cannot be encoded (an unpaired surrogate) is an :class:`InvalidInputError`
    naming the file, and nothing is written.

    The text goes to a new temporary file with a random name in the target's directory,
    created exclusively (``O_CREAT | O_EXCL``: never an existing file or a symlink planted
    under that name), flushed to disk, then renamed over the target; readers see the old file
    or the new one, never a part of it. On any error (or an interrupt) the temporary file is
    removed and the target is left as it was.

    * Permissions: an existing file keeps its mode; a new file gets ``0o666`` less the
      process umask, as :func:`open` would give it (the umask is applied by the kernel, never
      read or changed: changing it would race with every thread that creates files).
    * Symlinks: a symlink at ``path`` is kept and the file it points to is replaced (written
      next to the link's target, so the rename stays on one file system).
    """
    try:
        data = text.encode("utf-8")
    except UnicodeEncodeError as exc:
        context = text[max(0, exc.start - 20) : exc.end + 20]
        raise InvalidInputError(
            f"{os.fspath(path)}: cannot be written: the text holds an unpaired surrogate "
            f"{text[exc.start]!r} (in {context!r}), which is not Unicode text; fix the string "
            "it comes from (e.g. decode bytes with errors='replace')"
        ) from None
    return atomic_write_bytes(path, data)


def atomic_write_bytes(path: str | os.PathLike[str], data: bytes) -> Path:
    """Write ``data`` to ``path`` atomically and durably, and return ``path``; the rules of
    :func:`atomic_write_text` (permissions, symlinks, a temporary file removed on error).

    >>> import tempfile, pathlib
    >>> target = pathlib.Path(tempfile.mkdtemp()) / "out.bin"
    >>> atomic_write_bytes(target, b"PAR1").read_bytes()
    b'PAR1'
    """
    return atomic_write_chunks(path, (data,))


def atomic_write_chunks(path: str | os.PathLike[str], chunks: Iterable[bytes]) -> Path:
    """Write the ``chunks`` of bytes, one after the other as they come, to ``path``
    atomically and durably, and return ``path``: the rules of :func:`atomic_write_text`. An
    error raised while the chunks are made leaves the target as it was (a file too large to
    hold in memory is written without ever being whole)."""
    target = Path(path_argument(path, "path"))
    real = Path(os.path.realpath(target))
    if real.is_dir():
        raise InvalidInputError(
            f"{os.fspath(path)}: is a directory; name the file to write (e.g. "
            f"{os.path.join(os.fspath(path), 'out.txt')!r})"
        )
    if not real.parent.is_dir():
        # Else the error would name the temporary file, not the directory that is missing.
        raise InputFileNotFoundError(
            errno.ENOENT,
            f"path: cannot write {os.fspath(path)!r}: its directory does not exist; create it "
            "first",
            str(real.parent),
        )
    try:
        existing_mode: int | None = stat.S_IMODE(os.stat(real).st_mode)
    except FileNotFoundError:
        existing_mode = None
    flags = (
        os.O_WRONLY
        | os.O_CREAT
        | os.O_EXCL
        | getattr(os, "O_CLOEXEC", 0)
        | getattr(os, "O_BINARY", 0)
    )
    # Imported here: secrets costs ~5 ms at import (hmac, hashlib, OpenSSL), which a command
    # that writes nothing (`ragmeter evaluate` to stdout) should not pay.
    import secrets

    while True:
        temporary = real.parent / f".{real.name}.{secrets.token_hex(8)}.tmp"
        try:
            descriptor = os.open(temporary, flags, 0o600 if existing_mode is not None else 0o666)
        except FileExistsError:
            continue
        break
    try:
        with os.fdopen(descriptor, "wb") as handle:
            if existing_mode is not None and hasattr(os, "fchmod"):
                os.fchmod(handle.fileno(), existing_mode)
            for data in chunks:
                handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, real)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise
    _sync_directory(real.parent)
    return target


def _sync_directory(directory: Path) -> None:
    """Make the rename durable (POSIX); a file system or platform that cannot sync a
    directory (Windows) is left as it is: the data itself is already on disk."""
    try:
        descriptor = os.open(directory, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        return
    try:
        os.fsync(descriptor)
    except OSError:
        pass
    finally:
        os.close(descriptor)

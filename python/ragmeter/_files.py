"""Files read and written safely, for reports, JSON inputs and TREC runs.

* :func:`read_regular_text`: the UTF-8 text of a regular file. Anything else (a FIFO, a device
  such as ``/dev/zero``, a directory) is refused by name before it is opened: a FIFO would
  wait for a writer and a device could be read until memory runs out.
* :func:`atomic_write_text`, :func:`atomic_write_bytes`: readers see the old file or the new
  one, never a part of it.
"""

from __future__ import annotations

import os
import secrets
import stat
from pathlib import Path

from .exceptions import InvalidInputError

__all__ = ["atomic_write_bytes", "atomic_write_text", "read_regular_text"]


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


def read_regular_text(path: str | os.PathLike[str], what: str) -> str:
    """The text of the regular file ``path``, decoded as UTF-8 (``what`` names the file's role
    in errors, e.g. ``"a report"``). Raises :class:`InvalidInputError` naming the path for
    anything that is not a regular file or not UTF-8; OS errors (a missing file) pass through.
    """
    name = os.fspath(path)
    mode = os.stat(path).st_mode
    if not stat.S_ISREG(mode):
        raise InvalidInputError(
            f"{name}: is {_describe(mode)}, not a regular file; {what} is read from a regular "
            "file only (save the output of a pipe or a program to a file first)"
        )
    with open(path, "rb") as handle:
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
    target = Path(path)
    real = Path(os.path.realpath(target))
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

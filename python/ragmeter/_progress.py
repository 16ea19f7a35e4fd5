"""Progress reporting shared by the long-running entry points (retrieval harness, judges).

``progress`` is ``None``/``False`` (nothing), ``True`` (a tqdm bar; tqdm is the ``progress``
extra and its absence is an error naming it, never a silent no-op), or a callable
``(done, total)`` called after every unit of work.
"""

from __future__ import annotations

from collections.abc import Callable

from ._optional import import_optional
from .exceptions import InputTypeError

__all__ = ["Progress", "progress_hook"]

Progress = bool | Callable[[int, int], None] | None


def progress_hook(
    progress: Progress, total: int, *, description: str, unit: str
) -> tuple[Callable[[], None], Callable[[], None]]:
    """``(tick, close)``: call ``tick()`` after each unit of work and ``close()`` at the end."""
    if progress is None or progress is False:
        return (lambda: None), (lambda: None)
    if callable(progress):
        done = 0
        report = progress

        def tick_callback() -> None:
            nonlocal done
            done += 1
            report(done, total)

        return tick_callback, (lambda: None)
    if progress is not True:
        raise InputTypeError(
            f"progress: expected True, False, None or a callable (done, total), "
            f"got {type(progress).__name__}"
        )
    tqdm = import_optional("tqdm", extra="progress", purpose="progress=True").tqdm
    bar = tqdm(total=total, desc=description, unit=unit)
    return (lambda: bar.update(1)), bar.close

"""Where the project's shared data sit: beside the checkout (../shared), or further up for a git
worktree one level deeper. A module of its own, because test modules cannot import ``conftest``
by name (tests/judges has a conftest of its own, which shadows it in a whole-suite run)."""

from __future__ import annotations

from pathlib import Path

SHARED = next(
    (p / "shared" for p in Path(__file__).resolve().parents if (p / "shared").is_dir()),
    Path(__file__).resolve().parents[1].parent / "shared",
)

"""``python -m ragmeter.judges.testing``: serve a loopback OpenAI-compatible test endpoint."""

from __future__ import annotations

import sys

from .server import main

if __name__ == "__main__":
    sys.exit(main())

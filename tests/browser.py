"""A real headless browser for the tests of what people look at (the docs site, the HTML report).

Debian's ``chromium`` and ``chromium-driver`` driven by selenium (``.ci/run`` installs them). Where
they are missing the tests that need them are skipped, except when ``RAGMETER_REQUIRE_BROWSER`` is
set (CI sets it): then they fail, so that CI never passes without having looked.
"""

from __future__ import annotations

import contextlib
import functools
import http.server
import json
import os
import shutil
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

#: Where screenshots are written (CI keeps the folder as an artefact).
SCREENSHOTS = Path(os.environ.get("RAGMETER_SCREENSHOTS", "test-screenshots"))


def _binaries() -> tuple[str, str] | None:
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    driver = shutil.which("chromedriver")
    return (browser, driver) if browser and driver else None


def browser_or_skip() -> Any:
    """A headless Chromium (a selenium WebDriver) with its network log on."""
    found = _binaries()
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
    except ImportError:
        found = None
    if found is None:
        message = "needs chromium, chromium-driver and selenium (apt-get install chromium "
        message += "chromium-driver; pip install selenium)"
        if os.environ.get("RAGMETER_REQUIRE_BROWSER"):
            pytest.fail(message)
        pytest.skip(message)
    options = webdriver.ChromeOptions()
    options.binary_location = found[0]
    for argument in (
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--window-size=1280,900",
        "--allow-file-access-from-files",
    ):
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL", "performance": "ALL"})
    return webdriver.Chrome(service=Service(found[1]), options=options)


def requested_urls(driver: Any) -> list[str]:
    """Every URL the page asked for since the last call (from the performance log)."""
    urls = []
    for entry in driver.get_log("performance"):
        message = json.loads(entry["message"])["message"]
        if message.get("method") == "Network.requestWillBeSent":
            urls.append(message["params"]["request"]["url"])
    return urls


def console_errors(driver: Any) -> list[str]:
    """The console messages of level SEVERE since the last call."""
    return [e["message"] for e in driver.get_log("browser") if e["level"] == "SEVERE"]


def screenshot(driver: Any, name: str) -> Path:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    path = SCREENSHOTS / f"{name}.png"
    driver.save_screenshot(str(path))
    return path


@contextlib.contextmanager
def served(directory: Path) -> Iterator[str]:
    """``directory`` served over HTTP on the loopback address; yields the base URL."""

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            pass

    handler = functools.partial(Quiet, directory=str(directory))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()

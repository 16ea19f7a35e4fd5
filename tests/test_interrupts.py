"""Ctrl-C stops the long kernels: a resampling test of 10^8 resamples (minutes of work) given
SIGINT raises KeyboardInterrupt within a block of resamples, not at its end.

Each kernel runs in a child process that says when it starts; the test sends SIGINT a moment
later and times how long the child takes to end. Before, `compare` ran 439 s after SIGINT. The
bound asserted (5 s) is a liveness bound, far above the block time (milliseconds) and far below
the run's length; it is not a speed measurement.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest

pytestmark = pytest.mark.skipif(os.name != "posix", reason="SIGINT is POSIX")

#: The child: builds the inputs, says "start", runs the kernel, and reports how it ended.
CHILD = """
import sys
import numpy as np
from ragmeter import _core
rng = np.random.default_rng(0)
name = sys.argv[1]
huge = 10**8
differences = rng.normal(size=(3, 200))
values = rng.random(size=(4, 2, 200))
pairs = np.array([[0, 1], [0, 2], [0, 3]], dtype=np.uint64)
calls = {
    "sign_flip_test": lambda: _core.sign_flip_test(
        differences, exact=False, n_resamples=huge, seed=1),
    "bootstrap_mean_differences": lambda: _core.bootstrap_mean_differences(
        differences, n_resamples=20_000_000, seed=1),
    "sign_flip_pairs": lambda: _core.sign_flip_pairs(
        values, pairs, exact=False, n_resamples=huge, seed=1),
    "bootstrap_pairs": lambda: _core.bootstrap_pairs(
        values, pairs, n_resamples=20_000_000, seed=1, confidence_level=0.95),
    "randomised_tukey": lambda: _core.randomised_tukey(
        rng.random(size=(200, 4)), exact=False, n_resamples=huge, seed=1),
    "westfall_young": lambda: _core.westfall_young(
        differences, statistic="t", exact=False, n_resamples=huge, seed=1),
}
print("start", flush=True)
try:
    calls[name]()
except KeyboardInterrupt:
    print("interrupted", flush=True)
else:
    print("finished", flush=True)
"""

KERNELS = [
    "sign_flip_test",
    "bootstrap_mean_differences",
    "sign_flip_pairs",
    "bootstrap_pairs",
    "randomised_tukey",
    "westfall_young",
]


@pytest.mark.parametrize("kernel", KERNELS)
def test_sigint_stops_a_long_resampling_kernel_at_once(kernel):
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, kernel],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "RAGMETER_NUM_THREADS": "2"},
    )
    try:
        assert child.stdout is not None
        assert child.stdout.readline().strip() == "start"
        time.sleep(0.5)  # inside the kernel (its inputs are ready before "start")
        assert child.poll() is None, "the kernel ended before it was interrupted"
        child.send_signal(signal.SIGINT)
        sent = time.monotonic()
        out, err = child.communicate(timeout=60)
        took = time.monotonic() - sent
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
    assert out.strip() == "interrupted", err[-2000:]
    assert took < 5.0, f"{kernel}: {took:.2f} s after SIGINT"

"""The pytest plugin of ragmeter's quality gates (entry point ``pytest11``: ``ragmeter``).

It adds two options and one fixture, and nothing else: no hook runs for tests that do not
use the fixture, and ragmeter's statistics are imported only when a test asks for it.

* ``--ragmeter-baseline DIR`` (or the ini option ``ragmeter_baseline``): where baselines are
  stored;
* ``--ragmeter-update-baselines``: store the results as the new baselines instead of
  comparing with them;
* the ``ragmeter_baseline`` fixture: ``ragmeter_baseline.assert_not_worse(results,
  name="retrieval", metric="ndcg@10", margin=0.01)`` compares ``results`` with the stored
  baseline ``name`` (or stores them with ``--ragmeter-update-baselines``). A missing baseline,
  or none configured, fails the test with what to do: a gate never passes by default.
"""

from __future__ import annotations

from typing import Any

import pytest

__all__ = ["BaselineFixture", "pytest_addoption", "ragmeter_baseline"]


def pytest_addoption(parser: pytest.Parser) -> None:
    """Add ``--ragmeter-baseline`` and ``--ragmeter-update-baselines``.

    Parameters
    ----------
    parser
        pytest's option parser.
    """
    group = parser.getgroup("ragmeter", "ragmeter quality gates")
    group.addoption(
        "--ragmeter-baseline",
        action="store",
        default=None,
        metavar="DIR",
        help="directory of the baselines the ragmeter_baseline fixture compares with",
    )
    group.addoption(
        "--ragmeter-update-baselines",
        action="store_true",
        default=False,
        help="store the results as the new baselines instead of comparing with them",
    )
    parser.addini(
        "ragmeter_baseline", "directory of ragmeter's baselines (see --ragmeter-baseline)"
    )


class BaselineFixture:
    """What the ``ragmeter_baseline`` fixture gives: the store of the session's options.

    Parameters
    ----------
    directory
        The baseline directory (None: none configured).
    update
        Store results instead of comparing.
    """

    def __init__(self, directory: str | None, update: bool) -> None:
        """See the class documentation."""
        self.directory = directory
        self.update = update

    def _store(self) -> Any:
        from .assertions import BaselineStore

        if not self.directory:
            pytest.fail(
                "ragmeter_baseline: no baseline directory; pass --ragmeter-baseline DIR (or "
                "set ragmeter_baseline in the pytest ini file), and store the baselines once "
                "with --ragmeter-update-baselines",
                pytrace=False,
            )
        return BaselineStore(self.directory)

    def assert_not_worse(
        self, results: Any, *, name: str, metric: Any, margin: Any, **options: Any
    ) -> Any:
        """Compare ``results`` with the stored baseline ``name`` (or store them).

        Parameters
        ----------
        results
            Per-query results (see :func:`ragmeter.testing.assert_not_worse`).
        name
            The baseline's name.
        metric, margin, options
            As for :func:`ragmeter.testing.assert_not_worse`.

        Returns
        -------
        GateResult or Path
            The passed gate, or the file stored with ``--ragmeter-update-baselines``.
        """
        from .assertions import assert_not_worse

        store = self._store()
        if self.update:
            return store.save(name, results)
        if not store.exists(name):
            pytest.fail(
                f"ragmeter_baseline: no baseline {name!r} in {store.directory}; store it with "
                "--ragmeter-update-baselines (and commit it)",
                pytrace=False,
            )
        baseline = store.load(name)
        return assert_not_worse(
            results,
            baseline,
            metric=metric,
            margin=margin,
            baseline_name=f"{name} (stored)",
            **options,
        )


@pytest.fixture
def ragmeter_baseline(request: pytest.FixtureRequest) -> BaselineFixture:
    """The baselines of ``--ragmeter-baseline`` (see the module documentation).

    Parameters
    ----------
    request
        pytest's request.

    Returns
    -------
    BaselineFixture
        The store of the session's options.
    """
    config = request.config
    directory = config.getoption("--ragmeter-baseline") or config.getini("ragmeter_baseline")
    return BaselineFixture(directory or None, bool(config.getoption("--ragmeter-update-baselines")))

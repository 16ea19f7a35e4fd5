"""A 12-system campaign of 500 topics (issue 50): TREC qrels and 12 run files, generated with a
fixed seed, for the tests of what a researcher gets at that size (the LaTeX tables, the HTML
report, the figures).

Systems come in pairs of equal quality (``system_00`` and ``system_01`` draw from the same
distribution, ``system_02`` and ``system_03`` from a better one...), so that some pairs differ
significantly and some do not.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

N_SYSTEMS = 12
N_TOPICS = 500


def write_campaign(
    folder: Path, n_systems: int = N_SYSTEMS, n_topics: int = N_TOPICS
) -> list[Path]:
    """Write ``qrels.txt`` and ``system_NN.run`` (50 documents per topic) into ``folder``;
    return the run files in order."""
    rng = np.random.default_rng(12)
    n_docs = 60
    grades = rng.choice([0, 0, 0, 1, 2], size=(n_topics, n_docs))
    (folder / "qrels.txt").write_text(
        "".join(f"t{t} 0 D{d} {grades[t, d]}\n" for t in range(n_topics) for d in range(n_docs))
    )
    runs = []
    for s in range(n_systems):
        scores = rng.normal(size=(n_topics, n_docs)) + 0.15 * (s // 2) * grades
        lines = []
        for t in range(n_topics):
            order = np.argsort(-scores[t])[:50]
            lines += [
                f"t{t} Q0 D{d} {r + 1} {scores[t, d]:.6f} sys{s}\n" for r, d in enumerate(order)
            ]
        path = folder / f"system_{s:02d}.run"
        path.write_text("".join(lines))
        runs.append(path)
    return runs

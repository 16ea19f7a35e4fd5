"""Prepared runs (`prepare_runs`): read once, fused many times, with the same result as ranx
(the oracle) and as fusing the dicts; the policies fixed at preparation are not silently
overridden."""

from __future__ import annotations

import random

import pytest

from ragmeter.exceptions import InvalidInputError, RagmeterError
from ragmeter.fusion import PreparedRuns, fuse, prepare_runs, train_fusion

ranx = pytest.importorskip("ranx")


def _runs(seed: int) -> list[dict[str, dict[str, float]]]:
    rng = random.Random(seed)
    pool = [f"d{i:02d}" for i in range(40)]
    return [
        {
            f"q{q}": {d: rng.uniform(-2, 5) for d in rng.sample(pool, rng.randint(2, 20))}
            for q in range(8)
        }
        for _ in range(3)
    ]


@pytest.mark.parametrize(
    ("method", "params"),
    [
        ("sum", {}),
        ("rrf", {"k": 60}),
        ("wsum", {"weights": [0.5, 0.3, 0.2]}),
        ("isr", {}),
        ("rbc", {"phi": 0.8}),
    ],
)
@pytest.mark.parametrize("norm", ["min-max", "zmuv", "rank", None])
def test_prepared_runs_fuse_as_ranx(
    method: str, params: dict[str, object], norm: str | None
) -> None:
    runs = _runs(7)
    prepared = prepare_runs(runs)
    ours = fuse(prepared, method=method, norm=norm, **params).to_dict()
    theirs = ranx.fuse(
        [ranx.Run.from_dict(r, name=f"r{i}") for i, r in enumerate(runs)],
        method=method,
        norm=norm,
        params=params or None,
    ).to_dict()
    assert ours.keys() == theirs.keys()
    for q in ours:
        assert ours[q].keys() == theirs[q].keys()
        for d, score in theirs[q].items():
            assert ours[q][d] == pytest.approx(score, rel=1e-9, abs=1e-12)
        # Best first, as trec_eval would rank it.
        values = list(ours[q].values())
        assert values == sorted(values, reverse=True)


def test_prepared_and_dict_inputs_give_the_same_run_on_every_call() -> None:
    runs = _runs(3)
    prepared = prepare_runs(runs, names=["a", "b", "c"])
    first = fuse(prepared, method="rrf", k=10).to_dict()
    assert fuse(prepared, method="rrf", k=10).to_dict() == first
    direct = fuse(runs, method="rrf", k=10, names=["a", "b", "c"]).to_dict()
    assert [list(v.items()) for v in direct.values()] == [list(v.items()) for v in first.values()]
    assert isinstance(prepared, PreparedRuns) and len(prepared) == 8
    assert prepared.names == ["a", "b", "c"]


def test_trained_method_on_prepared_runs_learns_as_on_the_dicts() -> None:
    runs = _runs(5)
    qrels = {q: {f"d{i:02d}": 1 for i in range(0, 40, 3)} for q in runs[0]}
    prepared = prepare_runs(runs)
    assert train_fusion(qrels, prepared, "posfuse") == train_fusion(qrels, runs, "posfuse")
    assert (
        fuse(prepared, method="mapfuse", qrels=qrels).to_dict()
        == fuse(runs, method="mapfuse", qrels=qrels).to_dict()
    )


def test_policies_fixed_at_preparation_are_not_overridden() -> None:
    runs = _runs(1)
    runs[1] = {q: v for q, v in runs[1].items() if q != "q3"}
    with pytest.raises(InvalidInputError, match="lacks 1: 'q3'"):
        prepare_runs(runs)
    prepared = prepare_runs(runs, missing="intersect")
    assert "q3" not in fuse(prepared, method="sum")
    with pytest.raises(InvalidInputError, match="missing: 'empty' differs") as err:
        fuse(prepared, method="sum", missing="empty")
    assert isinstance(err.value, RagmeterError) and isinstance(err.value, ValueError)
    with pytest.raises(InvalidInputError, match=r"names: .* differ"):
        fuse(prepared, method="sum", names=["x", "y", "z"])
    assert fuse(prepared, method="sum", missing="intersect").keys() == prepared.query_ids


def test_fused_run_forms_agree() -> None:
    pa = pytest.importorskip("pyarrow")
    fused = fuse(prepare_runs(_runs(2)), method="rrf", k=60)
    table = fused.to_arrow()
    assert isinstance(table, pa.Table)
    as_dict = fused.to_dict()
    rows = list(
        zip(
            *(table.column(c).to_pylist() for c in ("query_id", "doc_id", "score", "rank")),
            strict=True,
        )
    )
    expected = [
        (q, d, s, r) for q, docs in as_dict.items() for r, (d, s) in enumerate(docs.items(), 1)
    ]
    assert rows == expected

# ruff: noqa: E501  (one declaration per line: formulas and citations are long)
"""One declaration per fusion method and per normalisation: the API, the command, the docs and
the tests read these (ranx 0.3's names, parameters and semantics)."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["METHODS", "NORMALIZATIONS", "FusionMethod", "Normalization"]


@dataclass(frozen=True)
class FusionMethod:
    """A fusion method: its ranx name, family, parameters (with ranx's defaults where ranx
    has one), what it learns from training judgments, formula and citation."""

    name: str
    title: str
    family: str
    parameters: tuple[str, ...]
    defaults: tuple[tuple[str, float], ...]
    #: What `train` learns for it (None: nothing), and the parameter that holds it.
    training: str | None
    trained_parameter: str | None
    formula: str
    citation: str


@dataclass(frozen=True)
class Normalization:
    name: str
    formula: str


_FOX_SHAW = "Fox & Shaw, Combination of Multiple Searches, TREC-2, 1994"
_LEE = "Lee, Analyses of Multiple Evidence Combination, SIGIR 1997"
_WU = "Wu & Crestani, Data fusion with estimated weights, CIKM 2002"
_MOURAO = "Mourão et al., Multimodal medical information retrieval with unsupervised rank fusion, CMIG 2015"
_ASLAM = "Aslam & Montague, Models for Metasearch, SIGIR 2001"
_MONTAGUE = "Montague & Aslam, Condorcet fusion for improved retrieval, CIKM 2002"
_LILLIS10 = "Lillis et al., Estimating probabilities for effective data fusion, SIGIR 2010"

METHODS: dict[str, FusionMethod] = {
    m.name: m
    for m in (
        FusionMethod("sum", "CombSUM", "score", (), (), None, None, "s(d) = Σ_r s_r(d)", _FOX_SHAW),
        FusionMethod(
            "mnz", "CombMNZ", "score", (), (), None, None, "s(d) = |R_d| · Σ_r s_r(d)", _FOX_SHAW
        ),
        FusionMethod(
            "max",
            "CombMAX",
            "score",
            (),
            (),
            None,
            None,
            "s(d) = max_r s_r(d) (absent: -1e9)",
            _FOX_SHAW,
        ),
        FusionMethod(
            "min",
            "CombMIN",
            "score",
            (),
            (),
            None,
            None,
            "s(d) = min_r s_r(d) (absent: 1e9)",
            _FOX_SHAW,
        ),
        FusionMethod(
            "med",
            "CombMED",
            "score",
            (),
            (),
            None,
            None,
            "s(d) = median of s_r(d), r ∈ R_d",
            _FOX_SHAW,
        ),
        FusionMethod(
            "anz", "CombANZ", "score", (), (), None, None, "s(d) = Σ_r s_r(d) / |R_d|", _FOX_SHAW
        ),
        FusionMethod(
            "gmnz",
            "CombGMNZ",
            "score",
            ("gamma",),
            (),
            None,
            None,
            "s(d) = |R_d|^γ · Σ_r s_r(d)",
            _LEE,
        ),
        FusionMethod(
            "wsum",
            "Weighted Sum",
            "score",
            ("weights",),
            (),
            None,
            None,
            "s(d) = Σ_r w_r s_r(d)",
            _WU,
        ),
        FusionMethod(
            "wmnz",
            "Weighted MNZ",
            "score",
            ("weights",),
            (),
            None,
            None,
            "s(d) = (Σ_{r∈R_d} w_r) · Σ_{r∈R_d} s_r(d)",
            _WU,
        ),
        FusionMethod(
            "mixed",
            "Mixed",
            "score",
            ("weights",),
            (),
            None,
            None,
            "s(d) = √|R_d| · Σ_{r∈R_d} w_r s_r(d)",
            _WU,
        ),
        FusionMethod(
            "rrf",
            "Reciprocal Rank Fusion",
            "rank",
            ("k",),
            (("k", 60),),
            None,
            None,
            "s(d) = Σ_{r∈R_d} 1 / (k + p_r(d))",
            "Cormack, Clarke & Büttcher, Reciprocal rank fusion outperforms Condorcet and individual rank learning methods, SIGIR 2009",
        ),
        FusionMethod(
            "isr",
            "ISR",
            "rank",
            (),
            (),
            None,
            None,
            "s(d) = |R_d| · Σ_{r∈R_d} 1 / p_r(d)²",
            _MOURAO,
        ),
        FusionMethod(
            "log_isr",
            "log_ISR",
            "rank",
            (),
            (),
            None,
            None,
            "s(d) = ln|R_d| · Σ_{r∈R_d} 1 / p_r(d)²",
            _MOURAO,
        ),
        FusionMethod(
            "logn_isr",
            "logN_ISR",
            "rank",
            ("sigma",),
            (("sigma", 0.01),),
            None,
            None,
            "s(d) = ln(|R_d| + σ) · Σ_{r∈R_d} 1 / p_r(d)²",
            _MOURAO,
        ),
        FusionMethod(
            "bordafuse",
            "BordaFuse",
            "rank",
            (),
            (),
            None,
            None,
            "s(d) = Σ_r (n - p_r(d) + 1), unranked: (n - |r| + 1) / 2; n candidates",
            _ASLAM,
        ),
        FusionMethod(
            "w_bordafuse",
            "Weighted BordaFuse",
            "rank",
            ("weights",),
            (),
            None,
            None,
            "s(d) = Σ_r w_r · Borda_r(d)",
            _ASLAM,
        ),
        FusionMethod(
            "condorcet",
            "Condorcet",
            "rank",
            (),
            (),
            None,
            None,
            "candidates sorted by pairwise majority of the runs; s(d) = n - position",
            _MONTAGUE,
        ),
        FusionMethod(
            "w_condorcet",
            "Weighted Condorcet",
            "rank",
            ("weights",),
            (),
            None,
            None,
            "as Condorcet, each run's vote weighted by w_r",
            _MONTAGUE,
        ),
        FusionMethod(
            "rbc",
            "Rank-Biased Centroid",
            "rank",
            ("phi",),
            (),
            None,
            None,
            "s(d) = Σ_{r∈R_d} (1 - φ) φ^(p_r(d) - 1)",
            "Bailey, Moffat, Scholer & Thomas, Retrieval consistency in the presence of query variations, SIGIR 2017",
        ),
        FusionMethod(
            "posfuse",
            "PosFuse",
            "trained",
            (),
            (),
            "probs",
            "probs",
            "s(d) = Σ_{r∈R_d} P_r(rel | p_r(d))",
            _LILLIS10,
        ),
        FusionMethod(
            "probfuse",
            "ProbFuse",
            "trained",
            ("n_segments",),
            (),
            "probfuse",
            "probs",
            "s(d) = Σ_{r∈R_d} P_r(rel | segment k) / k",
            "Lillis, Toolan, Collier & Dunnion, ProbFuse: a probabilistic approach to data fusion, SIGIR 2006",
        ),
        FusionMethod(
            "segfuse",
            "SegFuse",
            "trained",
            (),
            (),
            "segfuse",
            "probs",
            "s(d) = Σ_{r∈R_d} P_r(rel | segment of p_r(d)) · (s_r(d) + 1)",
            "Shokouhi, Segmentation of search engine results for effective data-fusion, ECIR 2007",
        ),
        FusionMethod(
            "slidefuse",
            "SlideFuse",
            "trained",
            ("w",),
            (),
            "probs",
            "probs",
            "s(d) = Σ_{r∈R_d} mean of P_r(rel | p) over p ∈ [p_r(d) - w, p_r(d) + w]",
            "Lillis, Toolan, Collier & Dunnion, Extending probabilistic data fusion using sliding windows, ECIR 2008",
        ),
        FusionMethod(
            "mapfuse",
            "MAPFuse",
            "trained",
            (),
            (),
            "map",
            "map_scores",
            "s(d) = Σ_{r∈R_d} MAP_r / p_r(d)",
            _LILLIS10,
        ),
        FusionMethod(
            "bayesfuse",
            "BayesFuse",
            "trained",
            (),
            (),
            "bayesfuse",
            "log_odds",
            "s(d) = Σ_r log O_r(rel | rank segment of p_r(d)) (unranked: log(0.001/0.999))",
            _ASLAM,
        ),
    )
}

NORMALIZATIONS: dict[str, Normalization] = {
    n.name: n
    for n in (
        Normalization("min-max", "(s - min) / max(max - min, 1e-9)"),
        Normalization("min-max-inverted", "(max - s) / max(max - min, 1e-9)"),
        Normalization("max", "s / max(max, 1e-9)"),
        Normalization("sum", "(s - min) / max(Σ s - n·min, 1e-9)"),
        Normalization("zmuv", "(s - mean) / max(std, 1e-9)"),
        Normalization("rank", "1 - (p - 1) / n"),
        Normalization("borda", "1 - (p - 1) / N; unranked: 0.5 - (n - 1) / (2N); N candidates"),
    )
}

"""Every statistic is implemented once, in the statistics room (issue 44): an AST scan of
``python/ragmeter`` that fails when a second implementation appears outside it.

The room is ``ragmeter/stats/`` with the two modules below it that the figures use without
importing the statistics (``ragmeter/_distributions.py``, ``ragmeter/_pvalues.py``). Outside
it the scan refuses:

1. ``scipy`` or ``statsmodels`` imported anywhere in the package (numpy is the only runtime
   dependency; the room computes every distribution itself);
2. a distribution's building blocks (tails, cdfs, quantiles, exact null distributions)
   imported from the room: code that needs them is computing a test, which belongs inside;
3. a function whose name says it computes a statistic (a test, a correlation, an agreement
   coefficient, a quantile, a power, a p-value, an interval, PPI, variance components...),
   unless it is listed in :data:`ALLOWED` with why it is no second implementation;
4. numpy random resampling (``default_rng``, ``integers``, ``choice``, ``permutation``,
   ``np.random``): sign flips, bootstrap draws and permutations are the room's;

and inside the room it refuses two public functions of one name in two modules (the two
``kendall_tau`` and ``normal_quantile`` the issue found). The scan is tested on the duplicates
of the issue, written as they were, so that it is known to catch them.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

import ragmeter

PACKAGE = Path(ragmeter.__file__).parent
ROOM = ("stats/", "_distributions.py", "_pvalues.py")

STATISTIC_NAME = re.compile(
    r"kendall|spearman|pearson|kappa|krippendorff|fleiss|cohen|tau_ap|ttest|t_test|wilcoxon"
    r"|sign_?flip|permutation|bootstrap|quantile|percentile|normal_(cdf|sf|quantile)|_sf$|_cdf$"
    r"|ppf|(^|_)p_?values?$|one_sided|two_sided|queries_needed|topic_set|(^|_)power$"
    r"|variance_components|anova|tukey|holm|bonferroni|hochberg|westfall|(^|_)ppi(_|$)"
    r"|prediction_powered|classical_mean|confidence_interval|(^|_)t_interval|percent_agreement"
    r"|agreement_report|effect_size|standard_error|(^|_)z_?score"
)
BUILDING_BLOCK = re.compile(
    r"(_sf|_cdf|_quantile|_tail|_two_sided|_distribution)$|regularized_beta|one_sided_from"
)
RESAMPLING = {"default_rng", "integers", "choice", "permutation", "shuffle"}

#: ``(module, function) -> why it is no second implementation``.
ALLOWED = {
    ("compat/ranx/data_structures/report.py", "_p_value"): "reads the adjusted or raw p-value "
    "of a MetricComparison for ranx's report",
    ("compat/ranx/data_structures/report.py", "get_stat_test_label"): "ranx's label of a test",
    ("judges/results.py", "prediction_powered_mean"): "collects the labels and judge values "
    "of a run and calls ragmeter.stats.ppi",
    ("gate/onesided.py", "_one_sided_test"): "deprecated name: calls ragmeter.gate.gate",
    ("gate/onesided.py", "_one_sided_t_power"): "deprecated name: calls ragmeter.stats.power.power",
    ("cli/_zscores.py", "zscore"): "trec_eval's -z: standardises a value by the mean and sd "
    "read from its file (trec_eval's transform, not an inference)",
    ("cli/_zscores.py", "read_zscores"): "reads trec_eval's -z file",
    ("cli/_zscores.py", "zscored_summary"): "trec_eval's -z summary lines",
    ("cli/evaluate.py", "_zscore_lines"): "prints trec_eval's -z report",
}
#: ``(module, imported name) -> why``: building blocks imported outside the room.
ALLOWED_IMPORTS = {
    ("gate/onesided.py", "normal_quantile"): "re-exported under its deprecated name",
}


def _in_room(relative: str) -> bool:
    return relative.startswith(ROOM[0]) or relative in ROOM[1:]


def _modules() -> Iterator[tuple[str, ast.Module]]:
    for path in sorted(PACKAGE.rglob("*.py")):
        yield path.relative_to(PACKAGE).as_posix(), ast.parse(path.read_text(encoding="utf-8"))


def violations(relative: str, tree: ast.Module) -> list[str]:
    """What module ``relative`` (a path under the package) does that belongs in the room."""
    found: list[str] = []
    inside = _in_room(relative)
    for node in ast.walk(tree):
        if isinstance(node, ast.Import | ast.ImportFrom):
            modules = (
                [a.name for a in node.names]
                if isinstance(node, ast.Import)
                else [node.module or ""]
            )
            for module in modules:
                if module.split(".")[0] in ("scipy", "statsmodels"):
                    found.append(f"{relative}:{node.lineno}: imports {module}")
            if (
                not inside
                and isinstance(node, ast.ImportFrom)
                and re.search(r"(^|\.)(_distributions|distributions|stats)$", node.module or "")
            ):
                for alias in node.names:
                    if (
                        BUILDING_BLOCK.search(alias.name)
                        and (relative, alias.name) not in ALLOWED_IMPORTS
                    ):
                        found.append(
                            f"{relative}:{node.lineno}: imports the distribution's "
                            f"{alias.name} (a test belongs in ragmeter.stats)"
                        )
        if inside:
            continue
        if (
            isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
            and STATISTIC_NAME.search(node.name.lower())
            and (relative, node.name) not in ALLOWED
        ):
            found.append(f"{relative}:{node.lineno}: defines {node.name}()")
        if isinstance(node, ast.Attribute) and (
            (
                node.attr in RESAMPLING
                and not (
                    isinstance(node.value, ast.Name) and node.value.id in ("random", "secrets")
                )
            )
            or (
                node.attr == "random" and isinstance(node.value, ast.Name) and node.value.id == "np"
            )
        ):
            found.append(f"{relative}:{node.lineno}: resamples with numpy ({node.attr})")
    return found


def duplicates(modules: list[tuple[str, ast.Module]]) -> list[str]:
    """Public module-level functions of one name defined in two modules of the room."""
    where: dict[str, list[str]] = {}
    for relative, tree in modules:
        if not _in_room(relative):
            continue
        for node in tree.body:
            if isinstance(node, ast.FunctionDef) and not node.name.startswith("_"):
                where.setdefault(node.name, []).append(relative)
    return [f"{name}() in {', '.join(files)}" for name, files in where.items() if len(files) > 1]


def test_no_statistic_is_implemented_outside_the_room():
    found = [v for relative, tree in _modules() for v in violations(relative, tree)]
    assert not found, "\n".join(found)


def test_no_statistic_is_implemented_twice_in_the_room():
    found = duplicates(list(_modules()))
    assert not found, "\n".join(found)


def test_the_allowed_names_still_exist():
    defined = {
        (relative, node.name)
        for relative, tree in _modules()
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef)
    }
    assert set(ALLOWED) <= defined, set(ALLOWED) - defined


# -- the scan catches the duplicates issue 44 found -------------------------------------------

ISSUE_44_DUPLICATES = {
    # judges/agreement.py had its own tau-b (and kappas, alpha, PPI's quantile beside it).
    "judges/agreement.py": "def kendall_tau(a, b):\n    return 0.0\n",
    # judges/ppi.py and gate/onesided.py each bisected their own normal quantile.
    "judges/ppi.py": "from ..stats.distributions import normal_cdf\n"
    "def normal_quantile(p):\n    return float(normal_cdf(p))\n",
    # gate/onesided.py: a numpy sign-flip test, a t-test and their power beside the engine.
    "gate/onesided.py": "import numpy as np\n"
    "from ..stats.distributions import student_t_two_sided, noncentral_t_sf\n"
    "def _sign_flip_greater(x, n, seed):\n"
    "    return np.random.default_rng(seed).integers(0, 2, size=(n, x.size))\n"
    "def one_sided_t_power(n, d, alpha):\n    return noncentral_t_sf(1.0, n - 1, d)\n"
    "def queries_needed(effect, sd, *, alpha, power):\n    return 2\n",
    # judges/repeats.py computed the variance components of repeated judgements.
    "judges/repeats.py": "def variance_components(values):\n    return None\n",
}


@pytest.mark.parametrize("relative", sorted(ISSUE_44_DUPLICATES))
def test_the_scan_catches_the_duplicates_issue_44_found(relative):
    found = violations(relative, ast.parse(ISSUE_44_DUPLICATES[relative]))
    assert found, relative


def test_the_scan_catches_two_kendall_taus_in_the_room():
    # stats/orderings.py and a second one beside it, as judges/agreement.py's was.
    one = ("stats/orderings.py", ast.parse("def kendall_tau(x, y):\n    return 0.0\n"))
    two = ("stats/raters.py", ast.parse("def kendall_tau(a, b):\n    return 1.0\n"))
    assert duplicates([one, two]) == ["kendall_tau() in stats/orderings.py, stats/raters.py"]


def test_the_scan_catches_the_normal_quantile_copy_of_the_sampling_work():
    # The judging work (issue 49) added stats/sampling.py with its own normal_quantile beside
    # stats/distributions.py's: caught inside the room too.
    copy = (
        "stats/sampling.py",
        ast.parse("def normal_quantile(probability):\n    return 0.0\n"),
    )
    one = ("_distributions.py", ast.parse("def normal_quantile(probability):\n    return 0.0\n"))
    two = ("stats/distributions.py", ast.parse("from .._distributions import normal_quantile\n"))
    assert duplicates([one, two, copy]) == [
        "normal_quantile() in _distributions.py, stats/sampling.py"
    ]
    assert duplicates([one, two]) == []  # a re-export is no second implementation

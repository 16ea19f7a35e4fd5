"""The Python declarations against the Rust core's kernel table (``_core.measure_kernels``):
every kernel a family names exists in the core, and what the family says about cutoffs and
judgments agrees with the kernel's declaration. The judged set a measure needs is the core's
alone (there is no Python flag to disagree with it): it is checked here on measures whose
values change when the judged non-relevant documents are left out."""

from __future__ import annotations

import pytest

from ragmeter import _core
from ragmeter.options import EvaluationOptions
from ragmeter.ranking import FAMILIES, parse_metric
from ragmeter.ranking.evaluation import needs_all_judged

KERNELS = {
    name: (cutoff, judged, subtopics) for name, cutoff, judged, subtopics in _core.measure_kernels()
}
NUMERIC = [f for f in FAMILIES if f.kernel is not None]


def test_the_core_declares_each_kernel_once():
    names = [k[0] for k in _core.measure_kernels()]
    assert len(names) == len(set(names))
    # Every kernel is used by a family (a kernel no family names is dead code).
    used = {f.kernel for f in NUMERIC} | {
        f.complete_summary_kernel for f in FAMILIES if f.complete_summary_kernel
    }
    assert set(names) - used == set()


@pytest.mark.parametrize("family", NUMERIC, ids=lambda f: f.name)
def test_each_family_names_a_kernel_of_the_core(family):
    assert family.kernel in KERNELS, f"{family.name}: the core has no kernel {family.kernel!r}"
    if family.complete_summary_kernel is not None:
        assert family.complete_summary_kernel in KERNELS


@pytest.mark.parametrize("family", NUMERIC, ids=lambda f: f.name)
def test_the_flags_agree_with_the_kernel(family):
    cutoff, _judged, subtopics = KERNELS[family.kernel]
    assert family.subtopic_judgments == subtopics, family.name
    # A family needing a cutoff needs a kernel that takes one; a family refusing one, a kernel
    # that can go without; an optional one, an optional kernel.
    allowed = {"required": {"required", "optional"}, "none": {"none", "optional"}}
    assert cutoff in allowed.get(family.cutoff, {"optional"}), (family.name, family.cutoff, cutoff)


def test_the_judged_set_is_the_cores():
    options = EvaluationOptions()
    assert needs_all_judged([parse_metric("bpref")], options)
    assert needs_all_judged([parse_metric("infAP")], options)
    assert needs_all_judged([parse_metric("unjudged@10")], options)
    assert not needs_all_judged([parse_metric("ndcg@10"), parse_metric("map")], options)
    # trec_eval's gain tables: a gain for level 0 gives judged non-relevant documents a value.
    assert needs_all_judged([parse_metric("ndcg.0=1,1=2")], options)
    # A kernel the core lacks is refused when the core builds the measure.
    with pytest.raises(ValueError, match="unknown measure kernel"):
        _core.Measures([("no_such_kernel", None, (), None, None)])

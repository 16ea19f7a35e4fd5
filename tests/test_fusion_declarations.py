"""Each fusion method is declared once, in the core's ``fusion_methods!`` table, and every place
that names a method reads it (issue 44): the Python declarations, the bindings, ``ragmeter
fuse``'s choices, the ranx compatibility layer. Names, parameters, defaults and run names are
checked against ranx 0.3 itself (``inspect.signature`` of its per-method functions and its
``fusion_switch``)."""

from __future__ import annotations

import argparse
import inspect

import pytest

from ragmeter import _core
from ragmeter.cli import fuse as fuse_command
from ragmeter.compat.ranx import fusion as compat_fusion
from ragmeter.fusion import METHODS, fuse, train_fusion
from ragmeter.fusion.declarations import PARAMETERS

ranx_fusion = pytest.importorskip("ranx.fusion")

#: ranx's methods (``ranx.fusion.fusion_switch``'s names; its documentation lists 25).
RANX_METHODS = {
    "anz", "bayesfuse", "bordafuse", "condorcet", "gmnz", "isr", "log_isr", "logn_isr",
    "mapfuse", "max", "med", "min", "mixed", "mnz", "posfuse", "probfuse", "rbc", "rrf",
    "segfuse", "slidefuse", "sum", "w_bordafuse", "w_condorcet", "wmnz", "wsum",
}  # fmt: skip


def test_the_core_table_is_the_declarations() -> None:
    core = [row["name"] for row in _core.fusion_method_table()]
    assert len(core) == len(set(core)) == 25
    assert list(METHODS) == core
    assert set(core) == RANX_METHODS


@pytest.mark.parametrize("name", sorted(RANX_METHODS))
def test_ranx_s_function_for_each_method_is_the_declared_one(name: str) -> None:
    method = METHODS[name]
    ranx_function = ranx_fusion.fusion_switch(name)
    assert ranx_function.__name__ == method.ranx_function
    signature = inspect.signature(ranx_function)
    assert signature.parameters["name"].default == method.ranx_run_name
    ranx_params = [p for p in signature.parameters if p not in ("runs", "name")]
    expected = ([method.trained_parameter] if method.trained_parameter else []) + [
        p for p in method.parameters if p != "n_segments"
    ]
    assert ranx_params == expected
    defaults = {
        p: v.default for p, v in signature.parameters.items() if v.default is not inspect._empty
    }
    defaults.pop("name")
    assert defaults == dict(method.defaults)


@pytest.mark.parametrize("name", sorted(RANX_METHODS))
def test_the_compatibility_layer_has_each_method(name: str) -> None:
    method = METHODS[name]
    function = compat_fusion.fusion_switch(name)
    assert function is getattr(compat_fusion, method.ranx_function)
    assert method.ranx_function in compat_fusion.__all__


def test_the_command_offers_every_method() -> None:
    parser = argparse.ArgumentParser()
    fuse_command.add_parser(parser.add_subparsers())
    sub = parser._subparsers._group_actions[0].choices["fuse"]  # type: ignore[union-attr]
    (method,) = [a for a in sub._actions if a.dest == "method"]
    assert list(method.choices) == list(METHODS)
    flags = {a.dest for a in sub._actions}
    # Every parameter a method takes from the command line has its option (the trained ones
    # are learnt from --qrels).
    for m in METHODS.values():
        for p in m.parameters:
            assert p in flags, f"{m.name}: ragmeter fuse has no option for {p}"


def test_every_parameter_has_a_declared_form() -> None:
    named = {p for m in METHODS.values() for p in m.parameters}
    named |= {m.trained_parameter for m in METHODS.values() if m.trained_parameter}
    assert named == set(PARAMETERS)
    assert set(PARAMETERS.values()) == {"number", "count", "per_run", "per_run_vectors"}


A = {"q1": {"d1": 3.0, "d2": 2.0, "d3": 1.5}, "q2": {"d1": 1.0, "d4": 0.5}}
B = {"q1": {"d2": 9.0, "d3": 1.0, "d5": 0.2}, "q2": {"d4": 2.0}}
QRELS = {"q1": {"d2": 1}, "q2": {"d4": 1}}
GIVEN = {"weights": [0.4, 0.6], "gamma": 0.5, "phi": 0.8, "w": 1, "n_segments": 2}


@pytest.mark.parametrize("name", sorted(RANX_METHODS))
def test_the_bindings_build_every_method_from_the_table(name: str) -> None:
    method = METHODS[name]
    params = {p: GIVEN[p] for p in method.parameters if p in GIVEN}
    if method.trained_parameter:
        params.pop("n_segments", None)
        params[method.trained_parameter] = train_fusion(
            QRELS, [A, B], name, n_segments=2 if name == "probfuse" else None
        )
    fused = fuse([A, B], method=name, params=params).to_dict()
    assert set(fused) == {"q1", "q2"}
    assert set(fused["q1"]) == {"d1", "d2", "d3", "d5"}


def test_a_missing_parameter_is_named_by_the_table() -> None:
    with pytest.raises(ValueError, match="gamma"):
        _core.fuse_runs(
            [[A["q1"]], [B["q1"]]], ["q1"], ["a", "b"], method="gmnz", norm=None, params={}
        )


def test_a_parameter_of_the_wrong_form_is_a_type_error() -> None:
    with pytest.raises(TypeError, match="weights: expected per_run"):
        _core.fuse_runs(
            [[A["q1"]], [B["q1"]]], ["q1"], ["a", "b"], method="wsum", norm=None,
            params={"weights": "heavy"},
        )  # fmt: skip

"""Pages generated at build time (mkdocs-gen-files), so that they cannot drift from the code.

- one page per measure family, ``measures/<name>.md``, from ``ragmeter.ranking.FAMILIES``
  (names in every spelling, parameters, formula, when undefined, citation, reference
  implementation, differences from ranx and ir_measures); the table of every family on
  ``measures/index.md`` is written by ``scripts/measure_table.py`` and checked by a test;
- the prompts, fields and docstring of each built-in judge metric, appended to its hand-written
  page ``judges/<name>.md``, and the table of ``judges/index.md``;
- the usage and ``--help`` of every subcommand, appended to ``command.md``;
- ``fusion-methods.md``, every fusion method and normalisation from their one declaration in
  ``ragmeter.fusion.declarations`` (name, family, parameters and defaults, what it learns,
  formula, citation);
- ``migration/differences.md``, every measure family's differences from the reference tools
  and the peers (ranx, ir_measures, pytrec_eval, trec_eval), from the ``differences`` field of
  its declaration, with the fusion drop-in's;
- ``changelog.md`` from the repository's ``CHANGELOG.md``.
"""

from __future__ import annotations

import contextlib
import inspect
import io
import json
import math
import os
import re
from pathlib import Path

import mkdocs_gen_files

from ragmeter.cli import COMMANDS, _parser, usage
from ragmeter.fusion import METHODS, NORMALIZATIONS, FusionMethod
from ragmeter.judges.metrics import BUILTIN_METRICS
from ragmeter.ranking import FAMILIES, MeasureFamily

ROOT = Path(__file__).resolve().parents[2]

_CUTOFF = {
    "required": "required: `{name}@k` (the measure at depth k)",
    "optional": "optional: `{name}@k` cuts the ranking at k; without it, the whole ranking",
    "none": "none (`{name}@k` is refused)",
}
_TREC_STYLE = {
    "cutoffs": "cutoffs, `{trec}.5,10` (one measure per positive integer)",
    "levels": "recall levels, `{trec}.0.1,0.5` (one measure per level)",
    "values": "one parameter value, `{trec}.{values}`",
    "pairs": "named values and gains of relevance levels, `{trec}.1=3,2=7` or `{trec}.p=0.8`",
    "none": "none",
}
_SUMMARY = {
    "mean": "the mean over queries, added in trec_eval's order (query ids sorted byte-wise)",
    "geometric": "the geometric mean over queries: exp(mean(log(max(value, 0.00001))))",
    "sum": "the sum over queries",
    "count": "the number of queries",
    "run": "the run's tag",
    "none": "none: a value per query only",
}


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def _number(value: object) -> str:
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _ragmeter_spelling(family: MeasureFamily) -> str:
    return family.name + {"required": "@k", "optional": "[@k]", "none": ""}[family.cutoff]


def _ir_measures_spelling(family: MeasureFamily) -> str | None:
    if family.ir_measures_name is not None:
        return family.ir_measures_name
    if family.ir_measures_variant is not None and family.ir_measures_examples:
        return family.ir_measures_examples[0]
    return None


def _names_rows(family: MeasureFamily) -> list[str]:
    rows = ["| syntax | name |", "|---|---|"]
    ragmeter_names = [f"`{_ragmeter_spelling(family)}`"]
    ragmeter_names += [f"`{alias}`" for alias in family.aliases]
    rows.append(f"| ragmeter | {', '.join(ragmeter_names)} |")
    if family.trec_name is not None:
        trec = f"`{family.trec_name}`"
        if family.trec_defaults:
            defaults = ",".join(_number(v) for v in family.trec_defaults)
            trec += f" (bare: `{family.trec_name}.{defaults}`)"
        rows.append(f"| trec_eval (`-m`) | {trec} |")
    ir_name = _ir_measures_spelling(family)
    if ir_name is not None:
        provider = (
            f" (provider {family.ir_measures_provider})" if family.ir_measures_provider else ""
        )
        rows.append(f"| ir_measures | `{_cell(ir_name)}`{provider} |")
    ranx = _ranx_spelling(family)
    if ranx is not None:
        rows.append(f"| ranx | {ranx} |")
    return rows


def _ranx_spelling(family: MeasureFamily) -> str | None:
    if family.ranx_persistence_name is not None:
        name = family.ranx_persistence_name
        return f"`{name}.95` (p = 0.95; also `{name}@95`, and `{name}.95-lN` for grades >= N)"
    if family.ranx_name is None:
        return None
    spelling = f"`{family.ranx_name}`"
    if family.ranx_whole_ranking == family.name:
        spelling += f" (alone, `{family.ranx_name}` is the whole ranking)"
    elif family.ranx_whole_ranking is not None:
        spelling += f" (alone, `{family.ranx_name}` is `{family.ranx_whole_ranking}`)"
    return spelling


def _parameters(family: MeasureFamily) -> list[str]:
    lines = [f"- Cutoff: {_CUTOFF[family.cutoff].format(name=family.name)}."]
    if family.trec_name is not None:
        style = _TREC_STYLE[family.trec_parameters].format(
            trec=family.trec_name,
            values=",".join(_number(v) for v in family.trec_defaults) or "1",
        )
        lines.append(f"- trec_eval parameters: {style}.")
    for name, default in family.parameters:
        given = "required" if default is None else f"default `{_number(default)}`"
        lines.append(f"- `{name}=` ({given}), in ir_measures' syntax `{family.name}({name}=...)`.")
    for name, value in family.fixed_parameters:
        lines.append(
            f"- `{name}={value!r}` is accepted and changes nothing (ir_measures' default)."
        )
    if family.subtopic_judgments:
        lines.append(
            "- Judgments: by subtopic, `{query_id: {doc_id: {subtopic: grade}}}` (and only those)."
        )
    if family.threshold_unused:
        lines.append(
            "- The relevance threshold changes nothing here: `rel=` is refused"
            + (", and ranx's `-lN` too." if family.ranx_name is None else ".")
        )
    else:
        lines.append(
            "- Relevance threshold: `relevance_threshold=` (trec_eval `-l`), or per measure "
            "`rel=` (ir_measures) or `-lN` (ranx)."
        )
    return lines


def _undefined(family: MeasureFamily) -> list[str]:
    if family.undefined is None:
        return ["Never: every query has a value."]
    printed = (
        "NaN" if math.isnan(family.trec_eval_undefined) else _number(family.trec_eval_undefined)
    )
    return [
        f"When {family.undefined}.",
        "",
        "The value then follows `zero_division` (see "
        '[undefined values](../semantics.md#undefined-values)): the default `"warn"` scores '
        f'0 with an `UndefinedMetricWarning`; `zero_division="trec_eval"` gives what trec_eval '
        f"prints ({printed}); `np.nan` leaves the query out of the mean.",
    ]


def measure_page(family: MeasureFamily) -> str:
    lines = [f"# {family.title}", "", f"`{family.name}`", "", "## Names", ""]
    lines += _names_rows(family)
    lines += ["", "## Per query", "", _cell(family.formula) + "."]
    lines += ["", "## Over queries", "", _SUMMARY[family.summary] + "."]
    if not family.per_query:
        lines += ["", "`ragmeter evaluate -q` prints it in the summary only, as trec_eval does."]
    lines += ["", "## When undefined", "", *_undefined(family)]
    lines += ["", "## Parameters", "", *_parameters(family)]
    if family.ir_measures_examples:
        lines += [
            "",
            "## ir_measures examples",
            "",
            f"Each is tested per query against ir_measures' `{family.ir_measures_provider}` "
            "provider:",
            "",
        ]
        lines += [f"- `{example}`" for example in family.ir_measures_examples]
    lines += [
        "",
        "## Reference implementation",
        "",
        f"{family.reference}.",
        "",
        "## Citation",
        "",
        f"{family.citation}.",
    ]
    lines += ["", "## Differences from ranx, ir_measures and trec_eval", ""]
    lines.append(family.differences or "None known: the values are the reference's.")
    lines += [
        "",
        "## Ask for it",
        "",
        "```python",
        "from ragmeter import ranking_metrics",
        "",
        f"ranking_metrics(qrels, run, metrics=[{_example_name(family)!r}])",
        "```",
    ]
    return "\n".join(lines) + "\n"


def _example_name(family: MeasureFamily) -> str:
    if family.cutoff == "required":
        return f"{family.name}@10"
    return family.name


def _metric_section(name: str) -> str:
    metric = BUILTIN_METRICS[name]()
    # The class docstring as text (the API reference renders it with its links; rendering it
    # here too would give a class two primary anchors where two metrics share it), its Sphinx
    # roles shown as the names they refer to.
    doc = re.sub(r":(?:py:)?\w+:`~?([^`]+)`", r"\1", inspect.getdoc(type(metric)) or "")
    # rST literals (``supported``) shown as the text they quote: the block is plain text.
    doc = re.sub(r"``([^`]+)``", r"\1", doc)
    lines = ["", "## Definition (from the class docstring)", ""]
    lines += [f"`ragmeter.judges.{type(metric).__name__}`", "", "```text", doc, "```"]
    lines += ["", "## Sample fields", ""]
    required = ", ".join(f"`{field}`" for field in metric.required_fields) or "none"
    lines.append(f"Required: {required}.")
    if metric.empty_allowed:
        allowed = ", ".join(f"`{field}`" for field in metric.empty_allowed)
        lines.append(f"May be empty (the metric decides what that scores): {allowed}.")
    lines.append(
        "A required field the sample does not have makes the row `undefined` with reason "
        "`missing_<field>`; an empty one `no_<field>`."
    )
    if metric.needs_embedder:
        lines.append("The run needs an embedder (`embedder=`).")
    lines += ["", "## Prompts", ""]
    lines.append(
        "The user message is the template with its `$placeholders` filled; the answer's JSON "
        "Schema is always appended, so every answer can be validated. The system message is "
        "`ragmeter.judges.prompts.DEFAULT_SYSTEM_PROMPT` unless replaced."
    )
    for prompt in metric.prompts:
        lines += [
            "",
            f"### `{prompt.name}` version {prompt.version}",
            "",
            "```text",
            prompt.template.strip(),
            "```",
            "",
            "Answer schema:",
            "",
            "```json",
            json.dumps(prompt.schema, indent=2, ensure_ascii=False),
            "```",
        ]
    return "\n".join(lines) + "\n"


def judges_table() -> str:
    lines = ["| metric | class | needs | embedder |", "|---|---|---|---|"]
    for name, cls in BUILTIN_METRICS.items():
        metric = cls()
        fields = ", ".join(f"`{field}`" for field in metric.required_fields)
        lines.append(
            f"| [`{name}`]({name}.md) | `{cls.__name__}` | {fields} | "
            f"{'yes' if metric.needs_embedder else 'no'} |"
        )
    return "\n".join(lines) + "\n"


def command_help() -> str:
    os.environ["COLUMNS"] = "100"  # argparse wraps at the terminal's width
    parser = _parser()
    lines = ["", "## `ragmeter` without arguments", "", "```text", usage().rstrip(), "```"]
    subparsers = next(
        action for action in parser._actions if action.__class__.__name__ == "_SubParsersAction"
    )
    for name in COMMANDS:
        buffer = io.StringIO()
        with contextlib.redirect_stdout(buffer):
            subparsers.choices[name].print_help()
        lines += ["", f"## `ragmeter {name}`", "", "```text", buffer.getvalue().rstrip(), "```"]
    return "\n".join(lines) + "\n"


def _fusion_parameters(method: FusionMethod) -> str:
    defaults = dict(method.defaults)
    shown = [
        f"`{name}` (default {_number(defaults[name])})" if name in defaults else f"`{name}`"
        for name in method.parameters
    ]
    return ", ".join(shown) or "none"


def fusion_methods_page() -> str:
    """Every fusion method and normalisation, from ``ragmeter.fusion.declarations``."""
    lines = [
        "# Fusion methods",
        "",
        "The methods of `ragmeter.fuse`, `ragmeter fuse`, `ragmeter.fusion.FusionEstimator` and "
        "`ragmeter.compat.ranx.fuse` (ranx 0.3's names and semantics). This page is generated "
        "from the one declaration of each method. In the formulas, `s_r(d)` is the normalised "
        "score of document `d` in run `r`, `p_r(d)` its position (from 1), `R_d` the runs that "
        "retrieved `d`. A trained method learns its parameter from training judgments (`qrels=` "
        "of `fuse`, `y` of `FusionEstimator.fit`): never from the queries it is evaluated on. "
        "See the [fusion guide](guides/fusion.md).",
        "",
        "| Method | Name | Family | Parameters | Learns from judgments |",
        "|---|---|---|---|---|",
    ]
    for method in METHODS.values():
        learnt = f"`{method.trained_parameter}`" if method.trained_parameter else "nothing"
        lines.append(
            f"| [{_cell(method.title)}](#{method.name}) | `{method.name}` | {method.family} "
            f"| {_cell(_fusion_parameters(method))} | {learnt} |"
        )
    for method in METHODS.values():
        lines += [
            "",
            f"## {method.title} {{#{method.name}}}",
            "",
            f"- Name: `{method.name}` (`fuse(runs, method={method.name!r})`)",
            f"- Family: {method.family}",
            f"- Parameters: {_fusion_parameters(method)}",
        ]
        if method.training is not None:
            lines.append(
                f"- Learns `{method.trained_parameter}` from training judgments "
                f"(training: `{method.training}`)"
            )
        lines += [f"- Formula: `{method.formula}`", f"- Citation: {method.citation}"]
    lines += ["", "## Normalisations", "", "| Name | Formula |", "|---|---|"]
    for norm in NORMALIZATIONS.values():
        lines.append(f"| `{norm.name}` | `{_cell(norm.formula)}` |")
    return "\n".join(lines) + "\n"


def differences_page() -> str:
    """One table of every measure family's known differences from the peers, from the
    families' declarations (the same text as each family's page)."""
    with_differences = [f for f in FAMILIES if f.differences]
    without = [f for f in FAMILIES if not f.differences]
    lines = [
        "# Differences from the peers",
        "",
        "Every known difference between ragmeter's values and those of the reference tools and "
        "the peers (trec_eval, pytrec_eval, ranx, ir_measures and their providers), measure "
        "family by measure family. The page is generated from the families' declarations "
        "(`ragmeter.ranking.FAMILIES`), the same text as each family's page, so it cannot "
        "drift from the code. Differences in reading files (what trec_eval reads with `atol` "
        "that ragmeter refuses) are in [Semantics](../semantics.md#deliberate-differences-from-"
        "trec_eval); the drop-ins' own differences are on their migration pages.",
        "",
        f"{len(with_differences)} of {len(FAMILIES)} families have a known difference.",
        "",
        "| family | reference implementation | differences |",
        "|---|---|---|",
    ]
    for family in with_differences:
        lines.append(
            f"| [`{family.name}`](../measures/{family.name}.md) | {_cell(family.reference)} | "
            f"{_cell(family.differences)} |"
        )
    lines += [
        "",
        "## No known difference",
        "",
        "The values of these families are the reference's, on every input the tests draw: "
        + ", ".join(f"[`{f.name}`](../measures/{f.name}.md)" for f in without)
        + ".",
        "",
        "## Fusion",
        "",
        "Every fusion method and normalisation is compared with ranx's "
        "(`tests/test_fusion_ranx.py`, and ranx's own fusion and normalisation tests through "
        "`ragmeter.compat.ranx`): ties in fused scores are broken by doc id descending (trec_eval) "
        "where ranx's order is arbitrary, and Condorcet is compared where the runs' majority "
        "relation is a total order (elsewhere ranx's sort depends on the order of comparisons). "
        "See [Fusion methods](../fusion-methods.md).",
    ]
    return "\n".join(lines) + "\n"


with mkdocs_gen_files.open("migration/differences.md", "w") as page:
    page.write(differences_page())

with mkdocs_gen_files.open("fusion-methods.md", "w") as page:
    page.write(fusion_methods_page())

for family in FAMILIES:
    with mkdocs_gen_files.open(f"measures/{family.name}.md", "w") as page:
        page.write(measure_page(family))

for name in BUILTIN_METRICS:
    with mkdocs_gen_files.open(f"judges/{name}.md", "a") as page:
        page.write(_metric_section(name))
with mkdocs_gen_files.open("judges/index.md", "a") as page:
    page.write("\n" + judges_table())

with mkdocs_gen_files.open("command.md", "a") as page:
    page.write(command_help())

with mkdocs_gen_files.open("changelog.md", "w") as page:
    page.write((ROOT / "CHANGELOG.md").read_text(encoding="utf-8"))

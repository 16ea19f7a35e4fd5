"""The package surface: version, exception hierarchy, optional-dependency errors."""

import importlib
import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

import ragmeter
from ragmeter._optional import import_optional

ROOT = Path(__file__).resolve().parents[1]


def test_version_comes_from_cargo_toml():
    cargo = tomllib.loads((ROOT / "Cargo.toml").read_text())
    assert ragmeter.__version__ == cargo["package"]["version"]


def test_input_errors_are_value_errors():
    assert issubclass(ragmeter.InvalidInputError, ValueError)
    assert issubclass(ragmeter.TrecFormatError, ValueError)
    assert issubclass(ragmeter.MissingDependencyError, ImportError)


def test_every_public_name_is_importable():
    for name in ragmeter.__all__:
        assert hasattr(ragmeter, name), name


def test_missing_optional_dependency_names_the_extra():
    with pytest.raises(ragmeter.MissingDependencyError, match=r"ragmeter\[plot\]"):
        import_optional("surely_not_installed_module_xyz", extra="plot", purpose="Plotting")


def _modules_after(code: str) -> set[str]:
    """The modules a fresh interpreter holds after running ``code``."""
    done = subprocess.run(
        [sys.executable, "-c", f"{code}\nimport sys\nprint('\\n'.join(sys.modules))"],
        capture_output=True,
        text=True,
        check=True,
    )
    return set(done.stdout.split())


HEAVY_MODULES = (
    "ragmeter.judges",
    "ragmeter.stats",
    "ragmeter.retrieval",
    "ragmeter.answers",
    "ragmeter.harness",
    "matplotlib",
    "pandas",
    "pyarrow",
    "scipy",
    "httpx",
    "sklearn",
    # The integrations and their tools (issue 47): imported only by name.
    "ragmeter.integrations",
    "ir_measures",
    "pyterrier",
    "mlflow",
    "opentelemetry",
)


def test_import_ragmeter_imports_no_heavy_module():
    # Every public name is imported on first use (PEP 562): `import ragmeter` alone must not
    # pull in the statistics, the judges or any optional dependency.
    loaded = _modules_after("import ragmeter")
    assert not [m for m in HEAVY_MODULES if m in loaded]
    assert "numpy" not in loaded


def test_a_public_name_imports_only_its_own_module():
    loaded = _modules_after("from ragmeter import ranking_metrics, evaluate_trec")
    assert "ragmeter.ranking.functions" in loaded and "ragmeter.io.trec" in loaded
    assert not [m for m in HEAVY_MODULES if m in loaded]


def test_the_evaluate_command_imports_no_statistics(tmp_path):
    # `ragmeter evaluate` imports what the subcommand needs, not `compare`'s statistics.
    qrels, run = tmp_path / "qrels.txt", tmp_path / "run.txt"
    qrels.write_text("q 0 d1 1\n")
    run.write_text("q Q0 d1 1 1.0 tag\n")
    loaded = _modules_after(
        f"import io, contextlib\nfrom ragmeter.cli import main\n"
        f"with contextlib.redirect_stdout(io.StringIO()):\n"
        f"    assert main(['evaluate', '-q', {str(qrels)!r}, {str(run)!r}]) == 0"
    )
    assert "ragmeter.cli.evaluate" in loaded
    assert not [m for m in (*HEAVY_MODULES, "ragmeter.cli.compare") if m in loaded]


#: Modules the evaluate command needs only on some paths (a TOML or JSON report, a JSON
#: input, a temporary file, -R prefs or qrels_jg, --format csv/jsonl/parquet, an unknown
#: measure's message, numpy for values not from TREC files), so not for TREC files printed as
#: trec_eval prints them (issue 31: numpy's import is ~0.1 s of a small command).
EVALUATE_LAZY_MODULES = (
    "numpy",
    "ragmeter.ranking.evaluation",
    "ragmeter.ranking.functions",
    "ragmeter.judges",
    "ragmeter.stats",
    "matplotlib",
    "pandas",
    "pyarrow",
    "tomllib",
    "secrets",
    "json",
    "tempfile",
    "difflib",
    "ragmeter.ranking.prefs",
    "ragmeter.ranking.judgment_groups",
    "ragmeter.io._json",
    "ragmeter.io._results",
)


def test_the_evaluate_command_on_trec_files_imports_only_what_it_needs(tmp_path):
    qrels, run = tmp_path / "qrels", tmp_path / "run"
    qrels.write_text("".join(f"q1 0 d{i} {i % 3}\n" for i in range(10)))
    run.write_text("".join(f"q1 Q0 d{i} {i + 1} {10 - i} tag\n" for i in range(10)))
    command = ["evaluate", "-q", "-m", "all_trec", str(qrels), str(run)]
    loaded = _modules_after(
        f"import io, contextlib\nfrom ragmeter.cli import main\n"
        f"with contextlib.redirect_stdout(io.StringIO()) as out:\n"
        f"    assert main({command!r}) == 0\n"
        f"assert 'map                   \\tall\\t' in out.getvalue()"
    )
    assert "ragmeter.io.trec" in loaded
    assert [m for m in EVALUATE_LAZY_MODULES if m in loaded] == []


def test_the_fuse_command_on_trec_files_imports_no_numpy(tmp_path):
    # TREC run files are read, fused and written by the core (issue 52): the command needs the
    # fusion declarations, not `fuse` over Python objects, `optimize_fusion` or numpy.
    runs = []
    for r in range(2):
        path = tmp_path / f"run{r}"
        path.write_text("".join(f"q1 Q0 d{i + r} {i + 1} {10 - i} t{r}\n" for i in range(5)))
        runs.append(str(path))
    command = ["fuse", "--method", "rrf", "-o", str(tmp_path / "fused"), *runs]
    loaded = _modules_after(
        f"import io, contextlib\nfrom ragmeter.cli import main\n"
        f"with contextlib.redirect_stdout(io.StringIO()):\n"
        f"    assert main({command!r}) == 0"
    )
    assert "ragmeter.cli.fuse" in loaded
    lazy = ("numpy", "ragmeter.fusion._fuse", "ragmeter.fusion._optimize", *HEAVY_MODULES)
    assert [m for m in lazy if m in loaded] == []
    assert (tmp_path / "fused").read_text().startswith("q1 Q0 d1 1 ")


def test_the_fusion_package_binds_its_public_names_on_first_use():
    import ragmeter.fusion as fusion

    namespace: dict[str, object] = {}
    exec("from ragmeter.fusion import *", namespace)
    assert set(fusion.__all__) <= set(namespace) and set(fusion.__all__) <= set(dir(fusion))
    assert namespace["fuse"] is importlib.import_module("ragmeter.fusion._fuse").fuse
    assert (
        fusion.optimize_fusion
        is importlib.import_module("ragmeter.fusion._optimize").optimize_fusion
    )
    with pytest.raises(AttributeError, match="no attribute 'surely_not_a_name'"):
        fusion.surely_not_a_name  # noqa: B018


def test_dir_lists_every_public_name_and_star_import_binds_them():
    assert set(ragmeter.__all__) <= set(dir(ragmeter))
    namespace: dict[str, object] = {}
    exec("from ragmeter import *", namespace)
    assert set(ragmeter.__all__) <= set(namespace)
    assert namespace["ranking_metrics"] is ragmeter.ranking.functions.ranking_metrics
    assert namespace["judges"] is importlib.import_module("ragmeter.judges")


def test_an_unknown_name_is_an_attribute_error():
    with pytest.raises(AttributeError, match="no attribute 'surely_not_a_name'"):
        ragmeter.surely_not_a_name  # noqa: B018


@pytest.mark.parametrize(("preset", "expected"), [(None, "1"), ("3", "3")])
def test_the_command_starts_openblas_with_one_thread_unless_told(preset, expected):
    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"}
    if preset is not None:
        env["OPENBLAS_NUM_THREADS"] = preset
    code = (
        "import io, contextlib, os\nfrom ragmeter.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n    main([])\n"
        "print(os.environ.get('OPENBLAS_NUM_THREADS'))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env
    )
    assert done.stdout.split()[-1] == expected


_BLOCKED = """
import sys
for name in {blocked!r}:
    sys.modules[name] = None  # import of it raises ImportError, as when it is not installed
import ragmeter
try:
{code}
except ragmeter.MissingDependencyError as error:
    print(error)
"""


@pytest.mark.parametrize(
    ("blocked", "code", "extra"),
    [
        (["ir_measures"], "    import ragmeter.integrations.ir_measures", "pyterrier"),
        (["mlflow"], "    import ragmeter.integrations.mlflow", "mlflow"),
        (
            ["pandas"],
            "    from ragmeter.integrations import tracing\n"
            "    tracing.phoenix_document_evaluations({'t': {'d': 1}}, "
            "[{'trace_id': 't', 'span_id': 's', 'parent_id': None, 'name': 'r', "
            "'kind': 'RETRIEVER', 'attributes': {'openinference.span.kind': 'RETRIEVER', "
            "'retrieval.documents': [{'document.id': 'd'}]}, 'events': [], 'resource': {}}])",
            "otel",
        ),
    ],
)
def test_an_integration_without_its_dependency_names_its_extra(blocked, code, extra):
    done = subprocess.run(
        [sys.executable, "-c", _BLOCKED.format(blocked=blocked, code=code)],
        capture_output=True,
        text=True,
        check=True,
    )
    assert f"pip install 'ragmeter[{extra}]'" in done.stdout, done.stdout + done.stderr

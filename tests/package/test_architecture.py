"""The house rules of ARCHITECTURE.md, checked on the source: circles, purity, boundaries, sizes."""

from __future__ import annotations

import ast
import re

import pytest

from tests.support.import_graph import (
    REPO,
    all_imports,
    cycles,
    module_edges,
    module_files,
    package_of,
)

SUBPACKAGES = sorted(
    p.name for p in (REPO / "comparator").iterdir() if (p / "__init__.py").is_file()
)
PURE_CORE = ("domain", "estimate", "compliance", "plan")
PURE_FORBIDDEN_PACKAGES = ("catalog", "refresh", "cli", "services", "quote", "report")
PURE_FORBIDDEN_LIBRARIES = ("sqlalchemy", "sqlmodel", "alembic", "psycopg", "httpx", "providers")
ADAPTERS_MAY_USE = ("comparator.errors", "comparator.domain", "comparator.catalog.models")
MAX_FUNCTION_LINES = 60
# A module past this many lines is worth a look: is there a seam? The alarm is no budget to cut
# files to; a module that is longer for a reason is listed here with the reason.
MODULE_LINES_ALARM = 500
LONG_MODULES: dict[str, str] = {}
# File names that mean the same thing wherever they stand.
SHARED_FILE_NAMES = {
    "__init__.py": "a package",
    "adapter.py": "a provider adapter package's entry point, by the adapters' convention",
}


def test_no_import_circles_deferred_imports_included() -> None:
    assert cycles(module_edges()) == []


@pytest.mark.parametrize("package", PURE_CORE)
def test_the_pure_core_opens_no_database_and_no_network(package: str) -> None:
    bad = []
    for imp in all_imports():
        if package_of(imp.source) != package or imp.source.startswith("providers"):
            continue
        top = imp.target.split(".")[0]
        inner = imp.target.split(".")[1] if imp.target.startswith("comparator.") else ""
        if top in PURE_FORBIDDEN_LIBRARIES or inner in PURE_FORBIDDEN_PACKAGES:
            bad.append(f"{imp.source}:{imp.line} imports {imp.target}")
    assert bad == []


def test_cli_imports_only_the_public_names_of_subpackages() -> None:
    bad = []
    for imp in all_imports():
        if not imp.source.startswith("comparator.cli"):
            continue
        parts = imp.target.split(".")
        if parts[0] == "comparator" and len(parts) > 2 and parts[1] != "cli":
            bad.append(f"{imp.source}:{imp.line} imports {imp.target}")
    assert bad == []


def test_public_names_are_what_each_subpackage_exports() -> None:
    """Every name the CLI takes from a subpackage is in that subpackage's ``__all__``."""
    import importlib

    for imp in all_imports():
        parts = imp.target.split(".")
        public = len(parts) == 2 and parts[1] in SUBPACKAGES and parts[1] != "cli"
        if imp.source.startswith("comparator.cli") and public:
            exported = importlib.import_module(imp.target).__all__
            assert set(imp.names) <= set(exported), f"{imp.source}:{imp.line}"


def test_services_import_only_the_public_names_of_the_planner() -> None:
    """The services reach the planner through ``comparator.plan`` and its ``__all__`` only
    (its one entry, :func:`comparator.plan.plan_job`, owns streaming and its fallback)."""
    import importlib

    exported = set(importlib.import_module("comparator.plan").__all__)
    bad = []
    for imp in all_imports():
        if not imp.source.startswith("comparator.services"):
            continue
        if imp.target.startswith("comparator.plan."):
            bad.append(f"{imp.source}:{imp.line} imports {imp.target}")
        elif imp.target == "comparator.plan" and not set(imp.names) <= exported:
            bad.append(f"{imp.source}:{imp.line} takes {set(imp.names) - exported} from plan")
    assert bad == []


def test_adapters_use_only_the_documented_parts_of_comparator() -> None:
    bad = [
        f"{i.source}:{i.line} imports {i.target}"
        for i in all_imports()
        if i.source.startswith("providers")
        and i.target.startswith("comparator")
        and not i.target.startswith(ADAPTERS_MAY_USE)
    ]
    assert bad == []


def test_comparator_reaches_adapters_only_through_the_providers_package() -> None:
    bad = [
        f"{i.source}:{i.line} imports {i.target}"
        for i in all_imports()
        if i.source.startswith("comparator") and i.target.startswith("providers.")
    ]
    assert bad == []


def _function_body_lines(node: ast.FunctionDef | ast.AsyncFunctionDef) -> int:
    """Lines of a function's body: its signature (option declarations) and docstring aside."""
    body = node.body
    if len(body) > 1 and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        body = body[1:]
    assert node.end_lineno is not None
    return node.end_lineno - body[0].lineno + 1


def test_functions_stay_small() -> None:
    too_long = []
    for module, path in module_files().items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                lines = _function_body_lines(node)
                if lines > MAX_FUNCTION_LINES:
                    too_long.append(f"{module}.{node.name}: {lines} lines")
    assert too_long == []


def test_long_modules_are_listed_with_a_reason() -> None:
    long = {
        module: len(path.read_text(encoding="utf-8").splitlines())
        for module, path in module_files().items()
    }
    unlisted = {m: n for m, n in long.items() if n > MODULE_LINES_ALARM and m not in LONG_MODULES}
    assert unlisted == {}, "split at a seam, or list the module with its reason"
    stale = [m for m in LONG_MODULES if long.get(m, 0) <= MODULE_LINES_ALARM]
    assert stale == [], "no longer long: drop from LONG_MODULES"


def test_no_two_modules_share_a_file_name() -> None:
    homes: dict[str, list[str]] = {}
    for module, path in module_files().items():
        homes.setdefault(path.name, []).append(module)
    repeated = {
        name: paths
        for name, paths in homes.items()
        if len(paths) > 1 and name not in SHARED_FILE_NAMES
    }
    assert repeated == {}


def test_no_two_public_classes_share_a_name() -> None:
    homes: dict[str, list[str]] = {}
    for module, path in module_files().items():
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if isinstance(node, ast.ClassDef) and not node.name.startswith("_"):
                homes.setdefault(node.name, []).append(module)
    assert {name: mods for name, mods in homes.items() if len(mods) > 1} == {}


def test_every_subpackage_is_described_in_the_architecture_page() -> None:
    page = (REPO / "ARCHITECTURE.md").read_text(encoding="utf-8")
    described = set(re.findall(r"^\| `(\w+)/` \|", page, re.M))
    assert set(SUBPACKAGES) <= described, set(SUBPACKAGES) - described


def test_the_drawing_in_the_architecture_page_is_current() -> None:
    from tests.support.import_graph import mermaid

    page = (REPO / "ARCHITECTURE.md").read_text(encoding="utf-8")
    assert mermaid() in page, "regenerate it with: python -m tests.support.import_graph"


def test_tests_read_nothing_beside_the_repository() -> None:
    """A fresh clone has nothing beside it (no sibling shared folder): every file a test reads
    lives under tests/data."""
    offenders = [
        p.name
        for p in (REPO / "tests").rglob("*.py")
        if p.name != "test_architecture.py"
        if re.search(r"""parent\s*/\s*["']share[d]["']|\.\./share[d]""", p.read_text("utf-8"))
    ]
    assert offenders == []

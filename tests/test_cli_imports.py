"""The CLI imports only the public names of the packages (``from comparator.plan import X``).

A command that reached into ``comparator.plan.result`` would tie the CLI to a package's inner
layout; a name a command needs is exported by the package's ``__init__`` instead.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

CLI = Path(__file__).resolve().parents[1] / "comparator" / "cli"


def _imports(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            found.append(node.module)
        elif isinstance(node, ast.Import):
            found += [alias.name for alias in node.names]
    return found


@pytest.mark.parametrize("path", sorted(CLI.glob("*.py")), ids=lambda p: p.name)
def test_cli_imports_only_public_names(path: Path) -> None:
    deep = [
        module
        for module in _imports(path)
        if module.startswith("comparator.")
        and not module.startswith("comparator.cli")
        and module.count(".") > 1
    ]
    assert deep == [], f"{path.name} imports inner modules: {deep}"

"""The import graph of comparator/ and providers/, read from the source with ``ast``.

Every import counts: top-level, deferred (inside functions) and ``TYPE_CHECKING`` ones.
``python -m tests.support.import_graph`` prints the package-level graph as a Mermaid drawing
(the one in ARCHITECTURE.md).
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
ROOTS = ("comparator", "providers")
GENERATED = ("comparator/catalog/migrations/versions",)


@dataclass(frozen=True)
class Import:
    source: str  # the importing module
    target: str  # the imported module (or package), as written
    names: tuple[str, ...]  # for ``from X import a, b``
    line: int


def module_files() -> dict[str, Path]:
    """Module name → file, for every module of the two packages (generated migrations aside)."""
    files: dict[str, Path] = {}
    for root in ROOTS:
        for path in sorted((REPO / root).rglob("*.py")):
            relative = path.relative_to(REPO)
            if any(str(relative).startswith(g) for g in GENERATED):
                continue
            parts = list(relative.with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            files[".".join(parts)] = path
    return files


def _resolve(module: str, is_package: bool, node: ast.ImportFrom) -> str:
    if not node.level:
        return node.module or ""
    base = module.split(".") if is_package else module.split(".")[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join([*base, node.module] if node.module else base)


def imports_of(module: str, path: Path) -> Iterator[Import]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield Import(module, alias.name, (), node.lineno)
        elif isinstance(node, ast.ImportFrom):
            target = _resolve(module, path.name == "__init__.py", node)
            yield Import(module, target, tuple(a.name for a in node.names), node.lineno)


def all_imports() -> list[Import]:
    return [i for m, p in module_files().items() for i in imports_of(m, p)]


def module_edges() -> dict[str, set[str]]:
    """Module → the project modules it imports (``from pkg import mod`` names the module)."""
    files = module_files()
    edges: dict[str, set[str]] = {m: set() for m in files}
    for imp in all_imports():
        submodules = [f"{imp.target}.{n}" for n in imp.names if f"{imp.target}.{n}" in files]
        plain_names = len(submodules) < len(imp.names) or not imp.names
        targets = submodules + ([imp.target] if plain_names else [])
        for target in targets:
            if target in files and target != imp.source:
                edges[imp.source].add(target)
    return edges


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(edges.get(node, ())):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10_000))
    for node in sorted(edges):
        if node not in index:
            visit(node)
    return found


def package_of(module: str) -> str:
    """``comparator.plan.dp.dp_solver`` → ``plan``; top-level modules keep their name."""
    parts = module.split(".")
    if parts[0] == "providers":
        return "providers"
    return parts[1] if len(parts) > 1 else "comparator"


def package_edges() -> dict[str, set[str]]:
    edges: dict[str, set[str]] = {}
    for source, targets in module_edges().items():
        for target in targets:
            a, b = package_of(source), package_of(target)
            if a != b:
                edges.setdefault(a, set()).add(b)
    return edges


def mermaid() -> str:
    lines = ["graph TD"]
    for source, targets in sorted(package_edges().items()):
        lines += [f"  {source} --> {target}" for target in sorted(targets)]
    return "\n".join(lines)


if __name__ == "__main__":
    print(mermaid())

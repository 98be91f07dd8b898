"""One message mechanism: Chinese is written only in the catalogue and in the data modules.

Every text a user reads is a message of :mod:`comparator.i18n` (a ``Msg`` whose English is its
id, its Chinese in a ``messages_*.py`` table, or a label key); so no string in the code outside
``comparator/i18n/`` holds Chinese, except in the data modules listed below (words the program
reads, names it shows as they are) and the glossed official terms and typed examples that
``tests.i18n.test_messages`` allows in English text. Comments and docstrings are for developers and
are not read.
"""

from __future__ import annotations

import ast
import io
import tokenize
from pathlib import Path

import pytest

from comparator.i18n import MESSAGES_ZH, TABLES_ZH
from tests.i18n.test_messages import CJK, stray_chinese

# glossed official terms in English text, besides those tests.i18n.test_messages allows
GLOSSED = frozenset({"调休", "简称", "互联网资源协作服务", "不良名单"})
ROOT = Path(__file__).resolve().parents[2]
SOURCE_ROOTS = ("comparator", "providers", "benchmarks", "scripts")
CATALOGUE = "comparator/i18n/"

# module → why it may hold Chinese: data the program reads or shows as written, not messages
DATA_MODULES = {
    "comparator/domain/provinces.py": "the provinces and cities table, names and short names",
    "comparator/domain/gpus.py": "GPU registry aliases as vendors write them (昇腾910B)",
    "comparator/domain/credentials.py": "licence and filing number formats (粤B2-, 京公网安备)",
    "comparator/domain/billing.py": "billing-mode words price sheets use (按量, 包月 …)",
    "comparator/domain/links.py": "network words offers use (以太网, 万兆)",
    "comparator/domain/profile_values.py": "profile words: nationwide coverage (全国), countries",
    "comparator/domain/profile_terms.py": "carrier words data centres state (电信, 联通, BGP)",
    "comparator/domain/geo.py": "city names and their coordinates (深圳, 广州 …)",
    "comparator/domain/job_service.py": "ways a job writes round-the-clock support (全天候)",
    "comparator/estimate/request.py": "count suffixes a flag may carry (万, 亿)",
    "comparator/compliance/job_rules.py": "invoice words a job file may use (增值税专用发票 …)",
    "providers/sheet/columns.py": "column headers of Chinese price sheets",
    "providers/sheet/values.py": "cell words of price sheets (是/否, 含税)",
    "benchmarks/scale_catalog.py": "demo data: generated provider and data-centre names",
    "benchmarks/import_offers.py": "demo data: a generated Chinese price sheet",
    "benchmarks/scale.py": "demo data: generated provider and data-centre names",
    "benchmarks/report.py": "demo data: a job's name",
    "benchmarks/offer_verdicts.py": "demo data: generated provider names",
    "scripts/readme_numbers.py": "README sentences it checks, quoted as written (元/卡时, 深圳)",
}


def _sources() -> list[str]:
    found = []
    for root in SOURCE_ROOTS:
        for path in sorted((ROOT / root).rglob("*.py")):
            relative = path.relative_to(ROOT).as_posix()
            if not relative.startswith(CATALOGUE):
                found.append(relative)
    return found


def _docstring_starts(tree: ast.Module) -> set[tuple[int, int]]:
    """Where the module's, classes' and functions' docstrings start."""
    starts = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            body = node.body
            first = body[0] if body else None
            value = first.value if isinstance(first, ast.Expr) else None
            if isinstance(value, ast.Constant) and isinstance(value.value, str):
                starts.add((value.lineno, value.col_offset))
    return starts


def chinese_in_strings(source: str) -> list[tuple[int, str]]:
    """``(line, words)`` of each string literal (docstrings left out) with stray Chinese."""
    skip = _docstring_starts(ast.parse(source))
    found = []
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type != tokenize.STRING or token.start in skip:
            continue
        words = [w for w in stray_chinese(token.string) if w not in GLOSSED]
        if words:
            found.append((token.start[0], " ".join(words)))
    return found


def test_the_scanner_finds_chinese_in_strings_not_in_docstrings_or_comments() -> None:
    source = (
        '"""模块说明"""\n# 注释\ndef f():\n    """函数说明"""\n    return f"共 {1} 条" + "ok"\n'
    )
    assert chinese_in_strings(source) == [(5, "共 条")]
    assert chinese_in_strings('x = "包周 (weekly) in 广东"\n') == [(1, "包周")]


def test_data_modules_exist_and_hold_chinese() -> None:
    for module in DATA_MODULES:
        text = (ROOT / module).read_text(encoding="utf-8")
        assert CJK.search(text), f"{module} holds no Chinese: take it off DATA_MODULES"


@pytest.mark.parametrize("module", [m for m in _sources() if m not in DATA_MODULES])
def test_no_chinese_outside_the_catalogue(module: str) -> None:
    found = chinese_in_strings((ROOT / module).read_text(encoding="utf-8"))
    assert found == [], (
        f"{module}: Chinese in the code at {found}; say it with a message of the catalogue "
        "(comparator/i18n/messages_*.py) or, for data, list the module in DATA_MODULES"
    )


def test_no_message_id_is_translated_twice() -> None:
    seen: dict[str, tuple[str, str]] = {}
    for room, table in TABLES_ZH.items():
        for english, chinese in table.items():
            first = seen.setdefault(english, (room, chinese))
            assert first[1] == chinese, (
                f"{english!r}: {first[0]} says {first[1]!r}, {room} says {chinese!r}; give one "
                "a context (``'room\\x04text'``)"
            )
    assert len(MESSAGES_ZH) == len(seen)

"""The quote PDF, rendered by the real WeasyPrint and read back with poppler's tools."""

from __future__ import annotations

import builtins
import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from comparator.errors import RenderError
from comparator.report import render as report
from tests.conftest import needs_pdf

DATA = Path(__file__).parents[1] / "data"
REPO = Path(__file__).resolve().parents[2]
GOLDEN = DATA / "quote_document.pdf.golden.json"

pytestmark = needs_pdf
needs_poppler = needs_pdf


def load_document() -> dict[str, Any]:
    return json.loads((DATA / "quote_document.json").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def pdf_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    document = load_document()
    path = tmp_path_factory.mktemp("pdf") / "quote.pdf"
    report.write_report(document, None, path)
    return path


def poppler(tool: str, *args: str) -> str:
    return subprocess.run([tool, *args], capture_output=True, text=True, check=True).stdout


@pytest.mark.slow
@needs_poppler
def test_pdf_text_has_the_total_chinese_text_and_page_numbers(pdf_path: Path) -> None:
    text = poppler("pdftotext", "-layout", str(pdf_path), "-")
    total = report.format_money(load_document()["plan"]["best"]["total_cost"])
    assert total in text
    assert "算力报价对比" in text and "最优方案" in text
    pages = int(poppler("pdfinfo", str(pdf_path)).split("Pages:")[1].split()[0])
    assert pages >= 2
    compact = "".join(text.split())  # pdftotext drops the spaces between CJK and digits
    assert f"第1页/共{pages}页" in compact
    assert f"第{pages}页/共{pages}页" in compact


@needs_poppler
def test_pdf_is_a4_with_dates_from_the_quote(pdf_path: Path) -> None:
    info = poppler("pdfinfo", "-isodates", str(pdf_path))
    assert "(A4)" in info
    dates = [line.split(None, 1)[1] for line in info.splitlines() if "Date:" in line]
    assert dates == ["2026-11-28T10:30:00+08", "2026-11-28T10:30:00+08"]


@needs_poppler
def test_a_cjk_font_is_embedded(pdf_path: Path) -> None:
    rows = poppler("pdffonts", str(pdf_path)).splitlines()[2:]
    cjk = [row for row in rows if "CJK" in row]
    assert cjk, rows
    assert all(row.split()[-5] == "yes" for row in cjk)  # the "emb" column


def _render_in_subprocess(target: Path) -> bytes:
    code = (
        "import json, sys; from pathlib import Path; from comparator.report import render as report; "
        "doc = json.loads(Path(sys.argv[1]).read_text(encoding='utf-8')); "
        "report.write_report(doc, None, Path(sys.argv[2]))"
    )
    subprocess.run(
        [sys.executable, "-c", code, str(DATA / "quote_document.json"), str(target)],
        cwd=REPO,
        check=True,
    )
    return target.read_bytes()


@pytest.mark.slow
def test_a_fixed_quote_renders_to_the_same_bytes_twice(pdf_path: Path, tmp_path: Path) -> None:
    again = _render_in_subprocess(tmp_path / "again.pdf")
    assert hashlib.sha256(again).hexdigest() == hashlib.sha256(pdf_path.read_bytes()).hexdigest()


def _toolchain() -> dict[str, str]:
    import fontTools
    import pydyf
    import weasyprint

    return {
        "weasyprint": weasyprint.__version__,
        "pydyf": pydyf.__version__,
        "fonttools": fontTools.version,
    }


def test_the_pdf_matches_its_golden_hash(pdf_path: Path) -> None:
    """Recorded with one toolchain; refresh with SUANLI_UPDATE_GOLDEN=1 after an upgrade."""
    digest = hashlib.sha256(pdf_path.read_bytes()).hexdigest()
    if os.environ.get("SUANLI_UPDATE_GOLDEN") == "1":
        GOLDEN.write_text(json.dumps({**_toolchain(), "sha256": digest}, indent=2) + "\n")
    golden = json.loads(GOLDEN.read_text())
    recorded = {key: golden[key] for key in _toolchain()}
    if recorded != _toolchain():
        pytest.skip(f"golden hash recorded with {recorded}, running {_toolchain()}")
    assert digest == golden["sha256"], "PDF bytes changed; SUANLI_UPDATE_GOLDEN=1 if intended"


@pytest.mark.slow
@needs_poppler
def test_english_pdf_numbers_pages_in_english(tmp_path: Path) -> None:
    document = load_document()
    path = tmp_path / "quote-en.pdf"
    report.write_report(document, None, path, lang="en")
    text = poppler("pdftotext", str(path), "-")
    assert "Page 1 of" in text and "GPU compute quote comparison" in text
    assert "第1页" not in "".join(text.split())


def test_missing_pango_says_what_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    real_import = builtins.__import__

    def failing_import(name: str, *args: Any, **kwargs: Any) -> Any:
        if name == "weasyprint":
            raise OSError("cannot load library 'libpango-1.0-0': libpango-1.0-0: not found")
        return real_import(name, *args, **kwargs)

    monkeypatch.delitem(sys.modules, "weasyprint", raising=False)
    monkeypatch.setattr(builtins, "__import__", failing_import)
    with pytest.raises(RenderError) as caught:
        report.render_pdf("<html></html>", load_document())
    message = str(caught.value)
    assert "apt-get install libpango-1.0-0 libpangoft2-1.0-0 fonts-noto-cjk" in message
    assert message.startswith("--pdf needs Pango")


def _offer_ids_and_amounts(document: dict[str, Any]) -> tuple[set[str], set[str]]:
    plan = document["plan"]
    plans = [plan["best"], *plan.get("alternatives", [])]
    ids = {s["offer_id"] for p in plans for s in p["segments"]}
    ids |= {age["offer_id"] for age in document["price_ages"]}
    ids |= {e["offer_id"] for e in plan.get("excluded", [])}
    money = {report.format_money(p["total_cost"]) for p in plans}
    money |= {report.format_money(s["cost"]) for s in plan["best"]["segments"]}
    return ids, money


@pytest.mark.slow
@needs_poppler
@pytest.mark.parametrize("lang", ["zh-CN", "en"])
def test_pdf_text_has_every_offer_id_and_amount_whole(tmp_path: Path, lang: str) -> None:
    """No id or amount is broken across lines: text extraction finds each one whole."""
    document = load_document()
    path = tmp_path / "quote.pdf"
    report.write_report(document, None, path, lang=lang)
    lines = poppler("pdftotext", "-raw", str(path), "-")
    ids, money = _offer_ids_and_amounts(document)
    assert ids and money
    for text in sorted(ids | money):
        assert text in lines, f"{text!r} is broken across lines or missing in the {lang} PDF"


@pytest.mark.slow
@needs_poppler
def test_the_demo_quote_pdf_keeps_every_offer_id_and_evidence_whole(
    cli: Any, demo_db_url: str, tmp_path: Path
) -> None:
    """The demo catalog's quote lists dozens of excluded offers (#1…#68) and evidence codes."""
    import re

    pdf = tmp_path / "quote.pdf"
    job = str(REPO / "examples" / "lora-7b-guangdong.toml")
    html = tmp_path / "quote.html"
    result = cli(
        "quote",
        job,
        "--pdf",
        str(pdf),
        "-o",
        str(html),
        "--today",
        "2026-12-01",
        "--json",
        db=demo_db_url,
    )
    assert result.code == 0, result.err
    plan = result.json()["plan"]
    text = poppler("pdftotext", "-raw", str(pdf), "-")
    tags = {f"#{e['offer_id']}" for e in plan["excluded"]}
    tags |= {f"#{s['offer_id']}" for s in plan["best"]["segments"]}
    for tag in sorted(tags):
        assert re.search(rf"(?<![\w#]){re.escape(tag)}(?![\w-])", text), f"{tag} broken or missing"
    for amount in {report.format_money(a["total_cost"]) for a in plan["alternatives"]}:
        assert amount in text
    cells = re.findall(r'<td class="evidence"[^>]*>(.*?)</td>', html.read_text("utf-8"))
    evidence = {re.sub(r"<[^>]+>", "", cell) for cell in cells} - {"—"}
    assert evidence, "the demo quote quotes evidence (licence numbers, filings)"
    for token in {token for code in evidence for token in code.split()}:
        assert token in text, f"evidence {token!r} broken or missing"  # words may wrap, not break

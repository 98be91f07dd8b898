"""The market report's HTML and PDF: the same Jinja environment, base template and stylesheet
as the quote, rendered from the report's document (``suanli report market --json``).

The worker writes it after each scheduled refresh into the ``[report]`` folder of the sources
file, one set of files per date (``market-2026-12-07.html``, ``.json``, ``.pdf``), keeping the
newest ``keep`` dates.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from comparator.i18n import billing_label, label, normalize_lang, status_label
from comparator.report import market_charts
from comparator.report.charts import COLORS, SVG_FONT
from comparator.report.render import _write, environment, format_tokens, render_pdf

DATED = re.compile(r"^market-(\d{4}-\d{2}-\d{2})\.(html|json|pdf)$")


def render_market_html(document: Mapping[str, Any], *, lang: str = "zh") -> str:
    """The report as one self-contained HTML page (inline CSS and SVG, no JavaScript)."""
    report_lang = normalize_lang(lang)
    template = environment().get_template("market.html.j2")
    return template.render(
        document=document,
        lang=report_lang,
        t=functools.partial(label, report_lang),
        billing=functools.partial(billing_label, report_lang),
        status=functools.partial(status_label, report_lang),
        line_charts=market_charts.line_charts(document["index"], document["weeks"]),
        spread_charts=market_charts.spread_charts(document["index"]),
        colors=COLORS,
        svg_font=SVG_FONT,
        tokens=format_tokens,
    )


def write_market_report(
    document: Mapping[str, Any], html_path: Path | None, pdf_path: Path | None, *, lang: str
) -> None:
    """Write the HTML and/or the PDF (either path may be ``None``) through temporary files."""
    html = render_market_html(document, lang=lang)
    if html_path is not None:
        _write(html_path, html.encode("utf-8"))
    if pdf_path is not None:
        identity = {"number": f"suanli-market-{document['today']}"}
        _write(pdf_path, render_pdf(html, identity))


def write_dated_report(
    document: Mapping[str, Any], folder: Path, *, keep: int, lang: str, pdf: bool
) -> list[Path]:
    """``market-<date>.json`` and ``.html`` (and ``.pdf``) in ``folder``; older dates beyond
    the newest ``keep`` are removed. Returns the files written."""
    folder.mkdir(parents=True, exist_ok=True)
    stem = folder / f"market-{document['today']}"
    written = [stem.with_suffix(".json"), stem.with_suffix(".html")]
    _write(written[0], json.dumps(document, ensure_ascii=False, indent=2).encode("utf-8"))
    write_market_report(document, written[1], stem.with_suffix(".pdf") if pdf else None, lang=lang)
    if pdf:
        written.append(stem.with_suffix(".pdf"))
    prune_dated(folder, keep)
    return written


def prune_dated(folder: Path, keep: int) -> list[Path]:
    """Remove the report files of all but the newest ``keep`` dates; returns what went."""
    files = [(m.group(1), p) for p in folder.iterdir() if (m := DATED.match(p.name))]
    dates = sorted({day for day, _ in files}, reverse=True)
    old = set(dates[keep:])
    removed = [path for day, path in files if day in old]
    for path in removed:
        path.unlink(missing_ok=True)
    return sorted(removed)

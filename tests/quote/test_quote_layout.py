"""The quote at 390 px (a phone) and 1280 px in headless Chromium: element boxes measured.

Nothing leaves the viewport horizontally (a wide table scrolls inside its own box), no text
spills out of its cell or box onto a neighbour, and no two cells of a row overlap.
"""

from __future__ import annotations

import json
import re
from html import escape as html_escape
from pathlib import Path
from typing import Any

import pytest

from comparator.report import render as report
from tests.conftest import DATA
from tests.support.browser import chromium, console_messages, needs_chromium

pytestmark = needs_chromium

# The page runs in an iframe of the tested width (Chromium's window is at least 500 px wide);
# srcdoc keeps it same-origin so the harness can measure inside it.
HARNESS = """<!DOCTYPE html><html><body style="margin:0">
<iframe id="page" style="border:0;width:{width}px;height:2400px" srcdoc="{srcdoc}"></iframe>
<script>
document.getElementById("page").addEventListener("load", function () {{
  const doc = this.contentDocument, win = this.contentWindow;
  ({measure})(doc, win);
}});
</script></body></html>"""

MEASURE = r"""
function (document, window) {
  const getComputedStyle = window.getComputedStyle.bind(window);
  const vw = document.documentElement.clientWidth;
  const problems = [];
  const name = (el) => el.tagName.toLowerCase() + (el.className ? "." + el.className : "") +
    " «" + (el.textContent || "").trim().slice(0, 40) + "»";
  const scroller = (el) => {
    for (let p = el.parentElement; p && p !== document.body; p = p.parentElement) {
      const x = getComputedStyle(p).overflowX;
      if (x === "auto" || x === "scroll") return p;
    }
    return null;
  };
  for (const el of document.body.querySelectorAll("*")) {
    if (el.closest("svg") && el.tagName.toLowerCase() !== "svg") continue;
    const r = el.getBoundingClientRect();
    if (r.width === 0 && r.height === 0) continue;
    if (!scroller(el) && (r.left < -0.5 || r.right > vw + 0.5)) {
      problems.push(["leaves the viewport", name(el), Math.round(r.left), Math.round(r.right)]);
    }
  }
  for (const el of document.body.querySelectorAll("td, th, dd, dt, p, li, h1, h2, h3, span.total, figcaption")) {
    if (getComputedStyle(el).overflowX !== "visible") continue;
    if (el.scrollWidth > el.clientWidth + 1 && el.clientWidth > 0 && getComputedStyle(el).display !== "inline") {
      problems.push(["text spills out", name(el), el.scrollWidth, el.clientWidth]);
    }
  }
  for (const row of document.querySelectorAll("tr")) {
    const cells = Array.from(row.children).map((c) => c.getBoundingClientRect());
    for (let i = 0; i + 1 < cells.length; i++) {
      const a = cells[i], b = cells[i + 1];  // on a phone a row is a card: cells stack
      const across = a.right > b.left + 1 && b.right > a.left + 1;
      if (across && a.bottom > b.top + 1 && b.bottom > a.top + 1) problems.push(["cells overlap", name(row), i]);
    }
  }
  if (document.documentElement.scrollWidth > vw + 1) {
    problems.push(["page scrolls sideways", document.documentElement.scrollWidth, vw]);
  }
  const out = window.parent.document.createElement("pre");
  out.id = "result";
  out.textContent = JSON.stringify({vw: vw, problems: problems});
  window.parent.document.body.appendChild(out);
}
"""


@pytest.fixture(scope="module")
def pages(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    document = json.loads((DATA / "quote_document.json").read_text(encoding="utf-8"))
    folder = tmp_path_factory.mktemp("layout")
    paths = {}
    for lang in ("zh-CN", "en"):
        html = folder / f"quote-{lang}.html"
        report.write_report(document, html, None, lang=lang)
        paths[lang] = html
    return paths


def harness(page: Path, width: int, folder: Path) -> Path:
    srcdoc = html_escape(page.read_text(encoding="utf-8"), quote=True)
    path = folder / f"harness-{width}.html"
    path.write_text(HARNESS.format(width=width, srcdoc=srcdoc, measure=MEASURE), encoding="utf-8")
    return path


def measure(page: Path, width: int, profile: Path) -> dict[str, Any]:
    wrapper = harness(page, width, profile.parent)
    result = chromium(
        profile,
        "--window-size=1400,2400",
        "--virtual-time-budget=5000",
        "--dump-dom",
        wrapper.as_uri(),
    )
    assert result.returncode == 0, result.stderr[-2000:]
    assert console_messages(result.stderr) == []
    match = re.search(r"<pre id=\"result\">(.*?)</pre>", result.stdout, re.S)
    assert match, result.stdout[-2000:]
    found: dict[str, Any] = json.loads(match.group(1).replace("&quot;", '"').replace("&amp;", "&"))
    return found


@pytest.mark.slow
@pytest.mark.parametrize("width", [390, 1280])
@pytest.mark.parametrize("lang", ["zh-CN", "en"])
def test_nothing_overlaps_or_leaves_the_viewport(
    pages: dict[str, Path], tmp_path: Path, width: int, lang: str
) -> None:
    found = measure(pages[lang], width, tmp_path / "profile")
    assert found["vw"] <= width
    assert found["problems"] == [], json.dumps(found["problems"], ensure_ascii=False, indent=0)

"""A report page on a phone, a tablet and a desktop (390, 768, 1280 px) in headless Chromium:
what leaves the screen, text under 10 px, chart text outside its chart, ids, times, amounts and
places broken across lines; and a screenshot of the three kept for CI's artefacts.

Chromium's window is at least 500 px wide, so the page runs in same-origin iframes of the tested
widths (srcdoc), side by side in one window, and a script measures inside each.
"""

from __future__ import annotations

import json
import os
import re
from html import escape as html_escape
from pathlib import Path
from typing import Any

from tests.conftest import REPO
from tests.support.browser import chromium, console_messages

SCREEN_WIDTHS = (390, 768, 1280)
MIN_TEXT_PX = 10.0
GAP_PX = 24

HARNESS = """<!DOCTYPE html><html><body style="margin:0;background:#888">
<div style="display:flex;gap:{gap}px;align-items:flex-start">{frames}</div>
<script>
const words = {words};
const frames = Array.from(document.querySelectorAll("iframe"));
let pending = frames.length;
const results = {{}};
for (const frame of frames) {{
  frame.addEventListener("load", function () {{
    const doc = this.contentDocument, win = this.contentWindow;
    results[this.dataset.width] = ({measure})(doc, win, words);
    {fit}
    if (--pending === 0) {{
      const out = document.createElement("pre");
      out.id = "result";
      out.style.display = "none";
      out.textContent = JSON.stringify(results);
      document.body.appendChild(out);
    }}
  }});
}}
</script></body></html>"""

FRAME = (
    '<iframe data-width="{width}" style="border:0;background:#fff;flex:none;'
    'width:{width}px;height:{height}px" srcdoc="{srcdoc}"></iframe>'
)

MEASURE = r"""
function (document, window, words) {
  const style = (el) => window.getComputedStyle(el);
  const vw = document.documentElement.clientWidth;
  const problems = [];
  const shown = (el) => el.getClientRects().length > 0 && style(el).visibility !== "hidden";
  const name = (el) => el.tagName.toLowerCase() +
    (typeof el.className === "string" && el.className ? "." + el.className : "") +
    " «" + (el.textContent || "").trim().slice(0, 50) + "»";
  const scroller = (el) => {
    for (let p = el.parentElement; p && p !== document.body; p = p.parentElement) {
      const x = style(p).overflowX;
      if (x === "auto" || x === "scroll") return p;
    }
    return null;
  };
  // 1. nothing wider than the screen unless it scrolls inside its own box
  for (const el of document.body.querySelectorAll("*")) {
    if (el.closest("svg") && el.tagName.toLowerCase() !== "svg") continue;
    const r = el.getBoundingClientRect();
    if (r.width === 0 && r.height === 0) continue;
    if (!scroller(el) && (r.left < -0.5 || r.right > vw + 0.5)) {
      problems.push(["wider than the screen", name(el), Math.round(r.left), Math.round(r.right)]);
    }
  }
  for (const el of document.querySelectorAll("td.cost")) {  // a cost never scrolls out of view
    const r = el.getBoundingClientRect();
    if (shown(el) && (r.left < -0.5 || r.right > vw + 0.5)) problems.push(["cost off-screen", name(el)]);
  }
  if (document.documentElement.scrollWidth > vw + 1) {
    problems.push(["page scrolls sideways", document.documentElement.scrollWidth, vw]);
  }
  // 2. page text at 10 px or more; every text node that shows is kept for step 4
  const texts = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const el = node.parentElement;
    if (!node.nodeValue.trim() || !el || el.closest("svg, title, style, script")) continue;
    if (!shown(el)) continue;
    const size = parseFloat(style(el).fontSize);
    if (size < 9.95) problems.push(["text under 10 px", name(el), size]);
    texts.push(node);
  }
  // 3. chart text at 10 px or more as drawn (SVG text scales with its chart), inside its chart
  let charts = 0;
  for (const svg of document.querySelectorAll("svg")) {
    const box = svg.getBoundingClientRect();
    if (box.width === 0 || !svg.viewBox.baseVal) continue;  // the other drawing of the chart
    charts += 1;
    const scale = box.width / svg.viewBox.baseVal.width;
    for (const text of svg.querySelectorAll("text")) {
      const px = parseFloat(style(text).fontSize) * scale;
      if (px < 9.95) problems.push(["chart text under 10 px", name(text), Math.round(px * 10) / 10]);
      const r = text.getBoundingClientRect();
      const outside = r.left < box.left - 0.5 || r.right > box.right + 0.5 ||
        r.top < box.top - 0.5 || r.bottom > box.bottom + 0.5;
      if (outside) {
        problems.push(["chart text leaves its chart", name(text),
          Math.round(r.left - box.left), Math.round(box.right - r.right)]);
      }
    }
  }
  // 4. ids, dates, times, amounts and the quote's places and names on one line each
  const patterns = [
    /#\d+/g, /Q-\d{4}-\d+/g, /\d{4}-\d{2}-\d{2}/g, /\b\d{2}-\d{2}\b/g, /\b\d{1,2}:\d{2}\b/g,
    /(?:[¥€]|US\$|HK\$)\s?[\d,]+(?:\.\d+)?/g,
    /\b(?=[A-Za-z0-9-]*\d)[A-Za-z][A-Za-z0-9]*(?:-[A-Za-z0-9]+)+\b/g,
  ];
  const lines = (range) => {
    const rects = Array.from(range.getClientRects()).filter((r) => r.width > 0 && r.height > 0);
    if (rects.length < 2) return 1;
    const tops = rects.map((r) => r.top), low = Math.min(...rects.map((r) => r.height));
    return Math.max(...tops) - Math.min(...tops) > low / 2 ? 2 : 1;
  };
  let tokens = 0;
  for (const node of texts) {
    if (node.parentElement.closest(".hash")) continue;  // a checksum may break anywhere
    const value = node.nodeValue, found = [];
    for (const pattern of patterns) for (const m of value.matchAll(pattern)) found.push([m.index, m[0]]);
    for (const word of words) {
      for (let at = value.indexOf(word); at >= 0; at = value.indexOf(word, at + 1)) found.push([at, word]);
    }
    for (const [at, token] of found) {
      tokens += 1;
      const range = document.createRange();
      range.setStart(node, at);
      range.setEnd(node, at + token.length);
      if (lines(range) > 1) problems.push(["broken across lines", token, name(node.parentElement)]);
    }
  }
  return {vw: vw, height: document.documentElement.scrollHeight, charts: charts, tokens: tokens, problems: problems};
}
"""

# after measuring, each frame grows to its page's height (for the screenshot)
FIT = 'this.style.height = this.contentDocument.documentElement.scrollHeight + "px";'


def artefacts_dir() -> Path:
    """Where screenshots go: $SUANLI_ARTEFACTS, else test-artefacts/ in the repository (CI
    keeps and lists it, see .ci/run)."""
    folder = Path(os.environ.get("SUANLI_ARTEFACTS") or REPO / "test-artefacts") / "screens"
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def _harness(page: Path, folder: Path, words: list[str], heights: dict[int, int] | None) -> Path:
    srcdoc = html_escape(page.read_text(encoding="utf-8"), quote=True)
    frames = "".join(
        FRAME.format(width=w, height=(heights or {}).get(w, 2400), srcdoc=srcdoc)
        for w in SCREEN_WIDTHS
    )
    text = HARNESS.format(
        gap=GAP_PX,
        frames=frames,
        words=json.dumps(words, ensure_ascii=False),
        measure=MEASURE,
        fit="" if heights else FIT,
    )
    path = folder / f"harness-{page.stem}{'-shot' if heights else ''}.html"
    path.write_text(text, encoding="utf-8")
    return path


def measure_screens(page: Path, folder: Path, words: list[str]) -> dict[int, dict[str, Any]]:
    """The page at each of SCREEN_WIDTHS: vw, height, charts and tokens seen, problems."""
    harness = _harness(page, folder, words, None)
    total = sum(SCREEN_WIDTHS) + GAP_PX * len(SCREEN_WIDTHS)
    for budget_ms in (10_000, 40_000):  # a loaded CI machine may not finish in the first
        result = chromium(
            folder / "profile-measure",
            f"--window-size={total},2400",
            f"--virtual-time-budget={budget_ms}",
            "--dump-dom",
            harness.as_uri(),
        )
        assert result.returncode == 0, result.stderr[-2000:]
        assert console_messages(result.stderr) == []
        match = re.search(r"<pre id=\"result\"[^>]*>(.*?)</pre>", result.stdout, re.S)
        if match:
            break
    assert match, result.stdout[-2000:]
    raw = match.group(1).replace("&quot;", '"').replace("&lt;", "<").replace("&gt;", ">")
    found: dict[str, dict[str, Any]] = json.loads(raw.replace("&amp;", "&"))
    return {int(width): entry for width, entry in found.items()}


def screenshot(page: Path, folder: Path, heights: dict[int, int], name: str) -> Path:
    """One PNG of the page at the three widths side by side, kept in artefacts_dir()."""
    harness = _harness(page, folder, [], heights)
    total = sum(SCREEN_WIDTHS) + GAP_PX * len(SCREEN_WIDTHS)
    shot = artefacts_dir() / f"{name}.png"
    result = chromium(
        folder / "profile-shot",
        f"--window-size={total},{max(heights.values())}",
        "--virtual-time-budget=5000",
        f"--screenshot={shot}",
        harness.as_uri(),
    )
    assert result.returncode == 0 and shot.is_file(), result.stderr[-2000:]
    return shot

"""Render a quote with 200 alternatives and print the HTML and PDF render times.

Targets: HTML < 1 s, PDF < 10 s.  Run:  .venv/bin/python benchmarks/report.py [--alternatives N]
The quote is the test fixture ``tests/data/quote_document.json`` grown to N alternatives, each
with its own offer, price age and compliance row.
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from comparator.report import render as report  # noqa: E402

FIXTURE = REPO / "tests" / "data" / "quote_document.json"


def grown_document(alternatives: int) -> dict[str, Any]:
    """The fixture with ``alternatives`` alternative plans and their offers."""
    document = json.loads(FIXTURE.read_text(encoding="utf-8"))
    template = document["plan"]["alternatives"][0]
    age = document["price_ages"][2]
    plans, ages = [], []
    for index in range(alternatives):
        provider = f"bench-{index:03d}"
        offer_id = f"{provider}-a100-hourly"
        plan = copy.deepcopy(template)
        plan.update(
            provider=provider, region=f"gd-sz-{index % 9 + 1}", total_cost=f"{1400 + index * 7}.50"
        )
        plan["segments"][0].update(offer_id=offer_id, cost=plan["total_cost"])
        plans.append(plan)
        ages.append(dict(age, offer_id=offer_id, provider=provider, region=plan["region"]))
        document["providers"][provider] = {"name": f"基准测试算力 {index:03d}"}
    document["plan"]["alternatives"] = plans
    document["price_ages"] += ages
    return document


def time_it(action: Any, repeat: int) -> tuple[float, float, Any]:
    """Median wall and CPU seconds of ``repeat`` calls, and the last result."""
    walls, cpus, result = [], [], None
    for _ in range(repeat):
        wall, cpu = time.perf_counter(), time.process_time()
        result = action()
        walls.append(time.perf_counter() - wall)
        cpus.append(time.process_time() - cpu)
    return statistics.median(walls), statistics.median(cpus), result


def page_count(pdf: bytes) -> str:
    """Pages of a PDF as ``pdfinfo`` (poppler) reads them, or ``?`` without poppler."""
    if not shutil.which("pdfinfo"):
        return "?"
    info = subprocess.run(["pdfinfo", "-"], input=pdf, capture_output=True, check=False).stdout
    match = re.search(rb"Pages:\s+(\d+)", info)
    return match.group(1).decode() if match else "?"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--alternatives", type=int, default=200)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    document = grown_document(args.alternatives)
    report.render_html(document)  # warm the template cache (first compile is not rendering)
    html_s, html_cpu, html = time_it(lambda: report.render_html(document), args.repeat)
    report.render_pdf(html, document)  # warm WeasyPrint's imports and font cache
    pdf_s, pdf_cpu, pdf = time_it(lambda: report.render_pdf(html, document), args.repeat)
    print(
        f"alternatives: {args.alternatives}; load average {os.getloadavg()[0]:.1f} "
        f"on {os.cpu_count()} CPUs"
    )
    print(
        f"html: {html_s:.3f} s wall, {html_cpu:.3f} s CPU, median of {args.repeat} "
        f"({len(html) / 1024:.0f} KiB; target < 1 s)"
    )
    print(
        f"pdf:  {pdf_s:.3f} s wall, {pdf_cpu:.3f} s CPU, median of {args.repeat} "
        f"({len(pdf) / 1024:.0f} KiB, {page_count(pdf)} pages; target < 10 s)"
    )


if __name__ == "__main__":
    main()

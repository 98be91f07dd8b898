"""Quote reports: a stored quote document → HTML (one Jinja environment) → PDF (WeasyPrint).

:mod:`.view` shapes the document for the templates, :mod:`.charts` draws the inline SVG charts,
:mod:`.render` renders and writes the files.

Each name loads its module on first use (:mod:`comparator.domain.lazy`): a quote's report
does not load the market report's page and charts.
"""

from typing import TYPE_CHECKING

from comparator.domain.lazy import lazy_names

if TYPE_CHECKING:
    from comparator.report.market_page import (
        prune_dated,
        render_market_html,
        write_dated_report,
        write_market_report,
    )
    from comparator.report.render import (
        check_outputs,
        format_money,
        render_html,
        render_pdf,
        write_report,
    )
    from comparator.report.view import best_warnings

_HOME: dict[str, tuple[str, ...]] = {
    "market_page": (
        "prune_dated",
        "render_market_html",
        "write_dated_report",
        "write_market_report",
    ),
    "render": (
        "check_outputs",
        "format_money",
        "render_html",
        "render_pdf",
        "write_report",
    ),
    "view": ("best_warnings",),
}
__getattr__ = lazy_names(__name__, _HOME)

__all__ = [
    "best_warnings",
    "check_outputs",
    "format_money",
    "prune_dated",
    "render_html",
    "render_market_html",
    "render_pdf",
    "write_dated_report",
    "write_market_report",
    "write_report",
]

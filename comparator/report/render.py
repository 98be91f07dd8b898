"""Quote reports: one Jinja environment → a self-contained HTML page → (WeasyPrint) an A4 PDF.

Reports are rendered only from a frozen quote document (a JSON-able dict built and stored by
:mod:`comparator.services.quoting`), never from live catalog objects, so a stored quote renders to the
same bytes months later. Both outputs are deterministic: no clock, no random ids; the PDF's
dates come from the quote's ``created_at``.
"""

from __future__ import annotations

import contextlib
import functools
import os
import re
import tempfile
from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import datetime
from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING, Any

from comparator.errors import RenderError, os_reason
from comparator.i18n import billing_label, check_label, label, normalize_lang
from comparator.report import charts
from comparator.report.view import bill_line_texts, build_view, provider_names

if TYPE_CHECKING:
    import jinja2

PANGO_HINT = "--pdf needs Pango: apt-get install libpango-1.0-0 libpangoft2-1.0-0 fonts-noto-cjk"


def templates_dir() -> Path:
    """The installed wheel's ``comparator/_templates``, else the repository's ``templates/``."""
    installed = Path(__file__).parents[1] / "_templates"
    return installed if installed.is_dir() else Path(__file__).parents[2] / "templates"


def format_money(value: object, currency: str = "CNY") -> str:
    """``1234.5`` → ``¥1,234.50`` (other currencies: ``US$``, or the ISO code and a space)."""
    from comparator.domain.money import money_text

    return money_text(Decimal(str(value)), currency)


def format_when(value: str | None) -> str:
    """An ISO date-time as ``2026-12-01 08:00`` (its own offset; the report states the zone)."""
    if not value:
        return "—"
    return datetime.fromisoformat(value).strftime("%Y-%m-%d %H:%M")


def format_short_when(value: str | None) -> str:
    """An ISO date-time as ``12-01 08:00`` for narrow table columns."""
    if not value:
        return "—"
    return datetime.fromisoformat(value).strftime("%m-%d %H:%M")


def format_date(value: str | None) -> str:
    """An ISO date or date-time as ``2026-12-01``."""
    if not value:
        return "—"
    return datetime.fromisoformat(value).strftime("%Y-%m-%d")


def format_number(value: object, digits: int = 2) -> str:
    """A number with thousands separators and at most ``digits`` decimals (trailing 0s kept)."""
    if value is None:
        return "—"
    return f"{Decimal(str(value)):,.{digits}f}"


def format_coordinate(value: float) -> str:
    return f"{value:.1f}"


# what must not break inside free text (reasons, findings, licences): offer ids, dates, times,
# amounts and ids with a digit (gd-sz-1, H800-SXM5-80GB, B1-20210417)
TOKEN = re.compile(
    r"#\d+|\d{4}-\d{2}-\d{2}(?:[ T]\d{2}:\d{2})?|\b\d{2}-\d{2}(?: \d{2}:\d{2})?\b"
    r"|\b\d{1,2}:\d{2}\b|(?:[¥€]|US\$|HK\$)\s?[\d,]+(?:\.\d+)?"
    r"|(?<![A-Za-z0-9-])(?:[\u4e00-\u9fff](?=[A-Z]))?(?=[A-Za-z0-9-]*\d)"
    r"[A-Za-z][A-Za-z0-9]*(?:-[A-Za-z0-9]+)+",
    re.ASCII,
)


def token_pattern(words: Iterable[str] = ()) -> re.Pattern[str]:
    """TOKEN, or else any of ``words`` (places and names: 广东, 广州南沙可用区), longest first."""
    alternatives = sorted({w for w in words if w}, key=len, reverse=True)
    if not alternatives:
        return TOKEN
    return re.compile(f"{TOKEN.pattern}|{'|'.join(map(re.escape, alternatives))}", re.ASCII)


def place_words(document: Mapping[str, Any]) -> set[str]:
    """The provinces, cities, data centres and providers a quote names (广东, 广州南沙可用区)."""
    plan = document.get("plan") or {}
    plans = [p for p in [plan.get("best"), *(plan.get("alternatives") or [])] if p]
    keys = ("province", "city", "region_name")
    words = {str(p[key]) for p in plans for key in keys if p.get(key)}
    return words | set(provider_names(document).values())


def format_tokens(value: object, pattern: re.Pattern[str] = TOKEN) -> Any:
    """Free text (escaped) with each match of ``pattern`` in it kept whole like
    :func:`format_token`."""
    import markupsafe

    text = str(value)
    parts, last = [], 0
    for match in pattern.finditer(text):
        parts.append(markupsafe.escape(text[last : match.start()]))
        parts.append(format_token(match.group(0)))
        last = match.end()
    parts.append(markupsafe.escape(text[last:]))
    return markupsafe.Markup("").join(parts)


def format_token(value: object) -> Any:
    """An id, time, amount or place in a ``<span class="tok">`` that never breaks inside
    (``white-space: nowrap``): ``gd-sz-1``, ``广州`` and ``12-01 08:00`` stay whole."""
    if type(value) is str:  # not Markup (not escaped again): the same text, the same span
        return _text_token(value)
    import markupsafe

    return markupsafe.Markup('<span class="tok">{}</span>').format(value)


@functools.lru_cache(maxsize=1 << 14)
def _text_token(text: str) -> Any:
    import markupsafe

    return markupsafe.Markup('<span class="tok">{}</span>').format(text)


@functools.cache
def environment(directory: Path | None = None) -> jinja2.Environment:
    """The one Jinja environment: autoescaping on, strict about undefined names, templates
    compiled once and kept in the user's cache folder (:mod:`.template_cache`). Jinja loads
    here: `suanli quote` without -o/--pdf never needs it."""
    import jinja2

    from comparator.report.template_cache import template_cache

    options: dict[str, Any] = {
        "autoescape": True,
        "undefined": jinja2.StrictUndefined,
        "trim_blocks": True,
        "lstrip_blocks": True,
        "keep_trailing_newline": True,
    }
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(directory or templates_dir()),
        bytecode_cache=template_cache(options),  # compiled once per template version
        **options,
    )
    env.filters.update(
        money=format_money,
        when=format_when,
        short_when=format_short_when,
        date=format_date,
        number=format_number,
        px=format_coordinate,
        tok=format_token,
    )
    return env


def render_html(document: Mapping[str, Any], *, lang: str | None = None) -> str:
    """The quote page as one self-contained HTML string (inline CSS and SVG, no JavaScript)."""
    report_lang = normalize_lang(lang or str(document.get("lang", "zh-CN")))
    template = environment().get_template("quote.html.j2")
    return template.render(
        document=document,
        view=build_view(document, report_lang),
        lang=report_lang,
        t=functools.partial(label, report_lang),
        billing=functools.partial(billing_label, report_lang),
        bill_texts=functools.partial(bill_line_texts, report_lang),
        check_label=functools.partial(check_label, report_lang),
        colors=charts.COLORS,
        svg_font=charts.SVG_FONT,
        tokens=once_per_text(
            functools.partial(format_tokens, pattern=token_pattern(place_words(document)))
        ),
    )


def once_per_text(render: Callable[[object], Any]) -> Callable[[object], Any]:
    """``render`` (which reads only ``str(value)``) once per distinct text: a quote repeats
    its exclusion reasons and findings thousands of times, and the pattern names every
    provider read."""
    done: dict[str, Any] = {}

    def cached(value: object) -> Any:
        text = str(value)
        if (out := done.get(text)) is None:
            out = done[text] = render(text)
        return out

    return cached


def _weasyprint() -> Any:
    """Import WeasyPrint; missing system libraries become a RenderError saying what to install."""
    try:
        import weasyprint
    except OSError as exc:
        raise RenderError(
            "--pdf needs Pango: apt-get install libpango-1.0-0 libpangoft2-1.0-0 "
            "fonts-noto-cjk ({reason})",
            reason=str(exc),
        ) from None
    except ImportError:
        raise RenderError("--pdf needs WeasyPrint: pip install 'suanli[pdf]'") from None
    return weasyprint


def render_pdf(html: str, document: Mapping[str, Any]) -> bytes:
    """The HTML page as an A4 PDF with embedded fonts; the same input gives the same bytes."""
    weasyprint = _weasyprint()
    rendered = weasyprint.HTML(string=html, base_url=str(templates_dir())).render()
    identifier = str(document.get("number", "suanli-quote")).encode()
    pdf = rendered.write_pdf(pdf_identifier=identifier)
    assert isinstance(pdf, bytes)
    return pdf


def write_report(
    document: Mapping[str, Any],
    html_path: Path | None,
    pdf_path: Path | None,
    *,
    lang: str | None = None,
) -> None:
    """Write the HTML and/or PDF of a quote document (either path may be ``None``)."""
    html = render_html(document, lang=lang)
    if html_path is not None:
        _write(html_path, html.encode("utf-8"))
    if pdf_path is not None:
        _write(pdf_path, render_pdf(html, document))


_OTHER_FILE = "choose another output file: -o/--pdf name a new file in a writable folder"


def check_outputs(paths: Sequence[Path | None], protected: Sequence[Path]) -> None:
    """Refuse output paths that would overwrite ``protected`` files (the catalog) or each
    other, that are folders, or whose folder is missing or not writable: checked before
    anything is planned or saved."""
    given = [p for p in paths if p is not None]
    keep = {_identity(p) for p in protected} - {None}
    seen: set[object] = set()
    for path in given:
        identity = _identity(path)
        if identity in keep:
            raise RenderError(
                "{path}: is the catalog database; choose another output file",
                path=path,
                hint=_OTHER_FILE,
            )
        if identity in seen:
            raise RenderError(
                "{path}: given for both -o and --pdf; choose two files", path=path, hint=_OTHER_FILE
            )
        seen.add(identity)
        if path.is_dir():
            raise RenderError(
                "{path}: is a folder; expected a file name", path=path, hint=_OTHER_FILE
            )
        _check_folder(path)


def _check_folder(path: Path) -> None:
    folder = path.expanduser().absolute().parent
    if not folder.is_dir():
        raise RenderError(
            "{path}: the folder {folder} does not exist", path=path, folder=folder, hint=_OTHER_FILE
        )
    if not os.access(folder, os.W_OK):
        raise RenderError(
            "{path}: the folder {folder} is not writable",
            path=path,
            folder=folder,
            hint=_OTHER_FILE,
        )


def _identity(path: Path) -> object:
    """What names a file whatever the spelling: (device, inode) if it exists, else its path."""
    try:
        stat = path.stat()
    except OSError:
        return str(path.expanduser().resolve())
    return (stat.st_dev, stat.st_ino)


def _write(path: Path, content: bytes) -> None:
    """Write through a temporary file in the same folder and rename it over ``path``.

    A full disk or any failure leaves ``path`` as it was (never a truncated report) and raises.
    Devices and pipes (``/dev/stdout``) are written directly, and their errors still raise.
    """
    try:
        if path.exists() and not path.is_file():
            with path.open("wb") as device:
                device.write(content)
            return
        _replace(path, content)
    except OSError as exc:
        raise RenderError(
            "{path}: cannot write the report ({reason}); nothing was written",
            path=path,
            reason=os_reason(exc),
            hint=_OTHER_FILE,
        ) from None


def _replace(path: Path, content: bytes) -> None:
    descriptor, temporary = tempfile.mkstemp(
        dir=path.parent, prefix=f".{path.name}.", suffix=".tmp"
    )
    try:
        with os.fdopen(descriptor, "wb") as file:
            file.write(content)
            file.flush()
            os.fsync(file.fileno())
        os.chmod(temporary, _mode_for(path))
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise


def _mode_for(path: Path) -> int:
    """The existing file's permissions, or what a plain new file would get."""
    try:
        return path.stat().st_mode & 0o777
    except OSError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask

"""The Chinese of the market report's messages (``suanli report market`` and the ``[report]``
table of a sources file; English text → Chinese, see :mod:`comparator.i18n.messages`)."""

from __future__ import annotations

MARKET_ZH: dict[str, str] = {
    "--weeks: expected a whole number 2–104, got {weeks}": "--weeks：应为 2–104 的整数，实为 {weeks}",
    "SUANLI_CURRENCY {currency}: no rate in SUANLI_FX_RATES to convert prices into it": (
        "SUANLI_CURRENCY {currency}：SUANLI_FX_RATES 中没有它的汇率，无法折算价格"
    ),
    "{where} folder: expected the folder to write reports into, got {value!r}": (
        "{where} `folder`：应为写出报告的文件夹，实为 {value!r}"
    ),
    "{where} {key}: expected a whole number {low}–{high}, got {value!r}": (
        "{where} {key}：应为 {low}–{high} 的整数，实为 {value!r}"
    ),
    "{where} lang: expected zh or en, got {value!r}": "{where} `lang`：应为 zh 或 en，实为 {value!r}",
    "{where} {key}: expected true or false, got {value!r}": (
        "{where} {key}：应为 true 或 false，实为 {value!r}"
    ),
}

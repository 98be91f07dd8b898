"""One message catalogue, Chinese (``zh``/``zh-CN``, the default) and English (``en``).

:mod:`.labels` holds the labels keyed by name, the check labels keyed by check id, the status
words and the one test of a language code (:func:`is_en`); :mod:`.help` the Chinese of every
``--help`` text, keyed by its English; :mod:`.estimate` the estimator's words;
:mod:`.messages` the errors and other library messages (:func:`render`), keyed by their
English as gettext keys by msgid; :mod:`.stored` messages kept in stored documents (their
JSON form, texts written in both languages) and rendered later in either language.
"""

from comparator.i18n.estimate import (
    ESTIMATE_ADVICE_ZH,
    ESTIMATE_MEMORY_PARTS,
    ESTIMATE_NOTES_ZH,
    ESTIMATE_UNITS_ZH,
    RULE_OF_THUMB_ZH,
)
from comparator.i18n.help import HELP_CHROME_ZH, HELP_OPTION_ZH, HELP_ZH, help_zh, spaced
from comparator.i18n.labels import (
    CHECK_LABELS,
    CHECKS,
    LABELS,
    REPORT_LANGS,
    VERIFY_CHECKS,
    CheckLabel,
    billing_label,
    check_label,
    is_en,
    label,
    normalize_lang,
    pick,
    status_label,
    verify_check_label,
    yes_no,
)
from comparator.i18n.messages import MESSAGES_ZH, TABLES_ZH, error_text, render, say
from comparator.i18n.stored import (
    Bilingual,
    msg_from_json,
    msg_to_json,
    stored_text,
    stored_texts,
)

__all__ = [
    "CHECKS",
    "CHECK_LABELS",
    "ESTIMATE_ADVICE_ZH",
    "ESTIMATE_MEMORY_PARTS",
    "ESTIMATE_NOTES_ZH",
    "ESTIMATE_UNITS_ZH",
    "HELP_CHROME_ZH",
    "HELP_OPTION_ZH",
    "HELP_ZH",
    "LABELS",
    "MESSAGES_ZH",
    "REPORT_LANGS",
    "RULE_OF_THUMB_ZH",
    "TABLES_ZH",
    "VERIFY_CHECKS",
    "Bilingual",
    "CheckLabel",
    "billing_label",
    "check_label",
    "error_text",
    "help_zh",
    "is_en",
    "label",
    "msg_from_json",
    "msg_to_json",
    "normalize_lang",
    "pick",
    "render",
    "say",
    "spaced",
    "status_label",
    "stored_text",
    "stored_texts",
    "verify_check_label",
    "yes_no",
]

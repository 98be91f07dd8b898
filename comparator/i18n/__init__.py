"""One message catalogue, Chinese (``zh``/``zh-CN``, the default) and English (``en``).

Every text a user reads is one of two kinds, and the kind picks the mechanism:

* **a message**: a sentence, a line, a title, a table header, a hint or a verdict that the code
  says where it says it. It is a :class:`comparator.errors.Msg` whose English ``str.format``
  template is its id (gettext's msgid), written at that place: ``say(lang, "{count} offers
  shown", count=n)``, ``raise InputError("{path}: no such file", path=p)``,
  ``check("mlps", FAIL, Msg("job needs MLPS level {level} …", level=l))``. Its Chinese is in
  the table of its room, :mod:`.messages_cli`, :mod:`.messages_compliance`,
  :mod:`.messages_verify`, :mod:`.messages_plan`, :mod:`.messages_input`,
  :mod:`.messages_refresh`, :mod:`.messages_work`, :mod:`.messages_estimate`; :func:`render`
  and :func:`say` fill it in.
  One English text that needs two translations carries a context (``"price\x04Change"``).
* **a label**: a name the data carries and a template or a table looks up by key (a report
  label, a check's name by check id, a status word, a billing mode): :mod:`.labels`.

:mod:`.help` holds the Chinese of every ``--help`` text, keyed by its English; :mod:`.estimate`
the memory table's parts; :mod:`.stored` messages kept in stored documents (their JSON form, texts
written in both languages) rendered later in either language. No other module writes Chinese:
``tests/i18n/test_i18n_sources.py`` fails on Chinese in a string outside this package and the data
modules it lists (provinces, GPU aliases, sheet words, demo data).
"""

from comparator.i18n.estimate import ESTIMATE_MEMORY_PARTS
from comparator.i18n.help import (
    HELP_CHROME_ZH,
    HELP_OPTION_ZH,
    HELP_WORDS_ZH,
    HELP_ZH,
    help_zh,
    spaced,
)
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
    "ESTIMATE_MEMORY_PARTS",
    "HELP_CHROME_ZH",
    "HELP_OPTION_ZH",
    "HELP_WORDS_ZH",
    "HELP_ZH",
    "LABELS",
    "MESSAGES_ZH",
    "REPORT_LANGS",
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

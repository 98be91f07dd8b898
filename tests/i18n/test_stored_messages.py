"""A message kept in a stored document (its JSON form) renders as the message did, in either
language; a document whose message this version cannot fill in shows its stored text."""

from __future__ import annotations

import json

from comparator.errors import Msg, MsgList
from comparator.i18n import Bilingual, msg_from_json, msg_to_json, render, stored_text
from comparator.plan.result import ExcludedOffer, Said

NESTED = Msg(
    "no offer can take the job: {reasons}. {advice}",
    reasons=MsgList(
        [
            Msg(
                "{reason} (×{count})",
                reason=Msg(
                    "stock: {cards} cards need {units} units, {stock} available",
                    cards=16,
                    units=2,
                    stock=1,
                ),
                count=3,
            ),
            Msg(
                "{reason} (×{count})",
                reason=Msg(
                    "{check}: {message}{evidence}",
                    check="licence-scope",
                    message=Bilingual("a B2 licence alone", "仅有 B2 许可证"),
                    evidence=" [粤B2-1]",
                ),
                count=1,
            ),
        ]
    ),
    advice=Msg("fix fewer cards, or wait for stock"),
)


def test_a_message_read_back_from_json_renders_alike_in_both_languages() -> None:
    again = msg_from_json(json.loads(json.dumps(msg_to_json(NESTED))))
    for lang in ("zh", "en"):
        assert render(again, lang) == render(NESTED, lang)
    assert "库存仅 1（×3）" in render(again, "zh") and "仅有 B2 许可证" in render(again, "zh")
    assert render(again, "en").startswith("no offer can take the job: stock: 16 cards need 2")


def test_a_stored_text_falls_back_to_what_was_stored() -> None:
    document = {"message": "stored", "message_msg": {"id": "{gone} x", "params": {"other": 1}}}
    assert stored_text(document, "message", "en") == "stored"
    assert stored_text({"message": "old"}, "message", "zh") == "old"
    kept = {"message": "x", "message_msg": msg_to_json(Msg("fix fewer cards, or wait for stock"))}
    assert stored_text(kept, "message", "zh") == "减少卡数，或等待库存"


def test_offers_excluded_for_the_same_reason_share_its_rendering() -> None:
    said = Said("zh")
    rows = [
        ExcludedOffer("p", str(i), "r", "g", "hourly", (Msg("none"),), "network").to_json(
            "zh", said
        )
        for i in range(3)
    ]
    assert [r["reasons"] for r in rows] == [["无"]] * 3
    assert rows[0]["reason_msgs"][0] is rows[2]["reason_msgs"][0] == {"id": "none"}
    assert said.both(NESTED)[0] == render(NESTED, "zh")  # a MsgList parameter: rendered alone

"""Provider profiles: parsing, defaults, round trip, and one clear error per malformed field."""

from __future__ import annotations

import copy
import json
from datetime import date
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from comparator.domain.profile import load_profile, parse_profile, profile_to_dict
from comparator.errors import ProfileError

PROFILES = Path(__file__).parents[1] / "data" / "profiles"
DEMO = Path(__file__).resolve().parents[2] / "providers" / "demo"


def test_full_profile_parses_into_typed_values() -> None:
    profile = load_profile(PROFILES / "acme.toml")
    assert profile.id == "acme" and profile.country == "CN"
    assert profile.registered_capital_cny == Decimal("10000000")
    licence = profile.licenses[0]
    assert licence.services == ("B11", "B12", "B14")
    assert licence.coverage == ("广东", "江苏-常州")
    assert licence.valid_until == date(2029, 5, 1)
    assert [f.kind for f in profile.filings] == ["icp_filing", "gongan", "mlps"]
    assert profile.filings[2].level == 3 and profile.filings[2].assessed_on == date(2026, 6, 30)


def test_datacentres_canonicalise_province_and_city_and_default_country() -> None:
    profile = load_profile(PROFILES / "acme.toml")
    changzhou = profile.datacenter("js-cz-1")
    assert changzhou is not None
    assert (changzhou.country, changzhou.province, changzhou.city) == ("CN", "江苏", "常州")
    oregon = profile.datacenter("us-west-2")
    assert oregon is not None and not oregon.mainland and oregon.region == "Oregon"
    assert profile.mainland


def test_overseas_profile_may_be_minimal() -> None:
    profile = load_profile(PROFILES / "overseas-minimal.toml")
    assert (profile.id, profile.country, profile.licenses, profile.uscc) == (
        "faraway",
        "US",
        (),
        None,
    )
    assert not profile.mainland and profile.timezone == "Asia/Shanghai" and not profile.demo


@pytest.mark.parametrize("path", sorted(DEMO.glob("*.toml")), ids=lambda p: p.stem)
def test_profiles_round_trip_through_json(path: Path) -> None:
    profile = load_profile(path)
    document = json.loads(json.dumps(profile_to_dict(profile), ensure_ascii=False))
    assert parse_profile(document, "roundtrip.json") == profile


def test_invalid_credentials_are_imported_for_check_to_judge() -> None:
    data = _base()
    data["provider"]["uscc"] = "91440300708461136X"  # wrong check digit
    data["licenses"] = [{"number": "粤B2-20190318", "services": ["B25"], "coverage": ["广东"]}]
    profile = parse_profile(data, "p.toml")
    assert profile.uscc == "91440300708461136X" and profile.licenses[0].services == ("B25",)


def test_demo_flag_and_timezone() -> None:
    data = _base()
    data["provider"].update(demo=True, timezone="Asia/Singapore")
    profile = parse_profile(data, "p.toml")
    assert profile.demo and profile.timezone == "Asia/Singapore"


@pytest.mark.parametrize(
    ("fixture", "fragments"),
    [
        (
            "bad-date.toml",
            ["bad-date.toml", "[[licenses]] #1 valid_until", "YYYY-MM-DD", "2029-13-01"],
        ),
        ("unknown-province.toml", ["unknown-province.toml", "[[datacenters]] #1 province", "火星"]),
        (
            "licence-wrong-field.toml",
            [
                "licence-wrong-field.toml",
                "[[licenses]] #1 number",
                "ICP filing",
                "蜀ICP备2026007879号-1",
            ],
        ),
    ],
)
def test_malformed_fixture_files_name_file_and_field(fixture: str, fragments: list[str]) -> None:
    with pytest.raises(ProfileError) as error:
        load_profile(PROFILES / fixture)
    message = str(error.value)
    assert "\n" not in message
    for fragment in fragments:
        assert fragment in message


def _base() -> dict[str, Any]:
    return {
        "provider": {"id": "p", "name": "P 云"},
        "licenses": [{"number": "B1-20190123", "services": ["B11"], "coverage": ["广东"]}],
        "filings": [{"kind": "mlps", "level": 3}],
        "datacenters": [{"id": "gd-1", "name": "广州", "province": "广东", "city": "广州"}],
    }


def _with(path: tuple[Any, ...], value: Any) -> dict[str, Any]:
    data = _base()
    target: Any = data
    for key in path[:-1]:
        target = target[key]
    if value is _DELETE:
        del target[path[-1]]
    else:
        target[path[-1]] = value
    return data


_DELETE = object()

MALFORMED = [
    (("provider", "id"), _DELETE, "provider.id"),
    (("provider", "name"), 42, "provider.name"),
    (("provider", "id"), "has space", "provider.id"),
    (("provider", "country"), "China!", "provider.country"),
    (("provider", "support_response_minutes"), "fast", "provider.support_response_minutes"),
    (("provider", "registered_capital_cny"), "lots", "provider.registered_capital_cny"),
    (("provider", "own_datacenter"), "yes", "provider.own_datacenter"),
    (("provider", "timezone"), "Mars/Olympus", "provider.timezone"),
    (("provider", "uscc"), "粤B1-20070214", "provider.uscc"),
    (("licenses", 0, "number"), "京公网安备11010802032137号", "[[licenses]] #1 number"),
    (("licenses", 0, "number"), _DELETE, "[[licenses]] #1 number"),
    (("licenses", 0, "services"), ["IDC"], "[[licenses]] #1 services"),
    (("licenses", 0, "coverage"), ["广东", "火星"], "[[licenses]] #1 coverage"),
    (("licenses", 0, "valid_until"), 20290501, "[[licenses]] #1 valid_until"),
    (("licenses", 0, "last_annual_report"), "2026", "[[licenses]] #1 last_annual_report"),
    (("filings", 0, "kind"), "permit", "[[filings]] #1 kind"),
    (("filings", 0, "level"), 7, "[[filings]] #1 level"),
    (("filings", 0, "assessed_on"), "June", "[[filings]] #1 assessed_on"),
    (("datacenters", 0, "province"), _DELETE, "[[datacenters]] #1 province"),
    (("datacenters", 0, "id"), _DELETE, "[[datacenters]] #1 id"),
    (("datacenters",), "gd-1", "[[datacenters]]"),
]


@pytest.mark.parametrize(("path", "value", "field"), MALFORMED)
def test_malformed_fields_give_one_error_naming_file_and_field(
    path: tuple[Any, ...],
    value: Any,
    field: str,
) -> None:
    with pytest.raises(ProfileError) as error:
        parse_profile(_with(path, value), "acme.toml")
    assert str(error.value).startswith(f"acme.toml: {field}: expected ")


def test_unknown_fields_are_named() -> None:
    data = _base()
    data["licenses"][0]["valid_untill"] = "2029-05-01"
    with pytest.raises(
        ProfileError,
        match=r"^p\.toml: \[\[licenses\]\] #1 valid_untill: expected one of claimed, "
        r"coverage, .*, valid_until \(got 'valid_untill'\)$",
    ):
        parse_profile(data, "p.toml")


def test_a_filing_kind_holding_a_licence_number_is_refused() -> None:
    data = _base()
    data["filings"] = [{"kind": "icp_filing", "number": "粤B2-20090059-5"}]
    with pytest.raises(ProfileError, match=r"\[\[filings\]\] #1 number.*telecom licence"):
        parse_profile(data, "acme.toml")


def test_duplicate_datacentre_ids_are_refused() -> None:
    data = _base()
    data["datacenters"].append(copy.deepcopy(data["datacenters"][0]))
    with pytest.raises(ProfileError, match=r"#2 id: expected a data-centre id unique"):
        parse_profile(data, "acme.toml")


def test_overseas_datacentre_with_a_chinese_province_is_refused() -> None:
    data = _base()
    data["datacenters"][0]["country"] = "SG"
    with pytest.raises(ProfileError, match="no Chinese province"):
        parse_profile(data, "acme.toml")


def test_missing_provider_table_and_bad_toml(tmp_path: Path) -> None:
    with pytest.raises(
        ProfileError,
        match=r"^x\.toml: \[provider\]: expected a \[provider\] table with id and name$",
    ):
        parse_profile({"datacenters": []}, "x.toml")
    broken = tmp_path / "broken.toml"
    broken.write_text("[provider\nid=", encoding="utf-8")
    with pytest.raises(ProfileError, match=r"broken\.toml: not valid TOML"):
        load_profile(broken)
    with pytest.raises(ProfileError, match=r"missing\.toml: cannot read"):
        load_profile(tmp_path / "missing.toml")


def test_coverage_accepts_abbreviations_suffixes_and_nationwide() -> None:
    data = _base()
    data["licenses"][0]["coverage"] = ["粤", "江苏省-常州市", "全国", "川"]
    profile = parse_profile(data, "p.toml")
    assert profile.licenses[0].coverage == ("广东", "江苏-常州", "全国", "四川")

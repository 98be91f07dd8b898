"""The words of the trade, shared by every other part (pure: no database, no HTTP).

GPUs (:mod:`.gpus`), money and FX (:mod:`.money`), billing modes (:mod:`.billing`), time-of-use
rules and the holiday calendar (:mod:`.calendar`, :mod:`.holidays`), provinces (:mod:`.provinces`),
credential numbers (:mod:`.credentials`), job files (:mod:`.job`), provider profiles
(:mod:`.profile`), the offer as the core sees it (:mod:`.offer_view`), the planner's port to
offers (:mod:`.offer_source`, a list in memory as one: :mod:`.offer_list`), the dates a job is judged
on (:mod:`.policy`) and the default time zone (:mod:`.zones`).

Each name loads its module on first use (:mod:`comparator.domain.lazy`): the calendar,
profiles and job files are slow to import, and `suanli --help` needs none of them.
"""

from typing import TYPE_CHECKING

from comparator.domain.lazy import lazy_names

if TYPE_CHECKING:
    from comparator.domain.billing import (
        BILLING_MODES,
        CONTRACT_MODES,
        HOURLY_MODES,
        PERIOD_HOURS,
        parse_billing,
    )
    from comparator.domain.calendar import (
        HolidaySupplement,
        factor_at,
        parse_time_of_use,
        slot_factors,
    )
    from comparator.domain.calibration import Calibration, load_calibration
    from comparator.domain.collector import collector_paused
    from comparator.domain.credentials import (
        LicenceNumber,
        identify_number,
        normalise_number,
        parse_gongan,
        parse_icp_filing,
        parse_licence,
        parse_uscc,
    )
    from comparator.domain.gpus import (
        GPUS,
        GpuSpec,
        find_gpu,
        resolve_gpu,
        snap_to_memory,
        suggest_gpus,
    )
    from comparator.domain.holidays import load_holidays_file
    from comparator.domain.job import Job, Requirements, load_job
    from comparator.domain.job_model import job_schema
    from comparator.domain.money import (
        FxTable,
        money_str,
        money_text,
        parse_decimal,
        round_money,
    )
    from comparator.domain.offer_filter import FilteredOffers, GroupSummary, OfferFilter
    from comparator.domain.offer_list import OfferList
    from comparator.domain.offer_source import GroupPricing, OfferSource, ProfileSource
    from comparator.domain.offer_view import OfferView
    from comparator.domain.policy import JobPolicy
    from comparator.domain.profile import (
        Certification,
        DataCenter,
        Filing,
        License,
        ProviderProfile,
        load_profile,
        loads_profile,
        parse_profile,
        profile_to_dict,
    )
    from comparator.domain.profile_model import profile_schema
    from comparator.domain.provinces import canonical_city, canonical_province
    from comparator.domain.zones import DEFAULT_TIMEZONE, DEFAULT_TIMEZONE_NAME

_HOME: dict[str, tuple[str, ...]] = {
    "collector": ("collector_paused",),
    "billing": (
        "BILLING_MODES",
        "CONTRACT_MODES",
        "HOURLY_MODES",
        "PERIOD_HOURS",
        "parse_billing",
    ),
    "calendar": (
        "HolidaySupplement",
        "factor_at",
        "parse_time_of_use",
        "slot_factors",
    ),
    "credentials": (
        "LicenceNumber",
        "identify_number",
        "normalise_number",
        "parse_gongan",
        "parse_icp_filing",
        "parse_licence",
        "parse_uscc",
    ),
    "calibration": ("Calibration", "load_calibration"),
    "gpus": (
        "GPUS",
        "GpuSpec",
        "find_gpu",
        "resolve_gpu",
        "snap_to_memory",
        "suggest_gpus",
    ),
    "holidays": ("load_holidays_file",),
    "job": (
        "Job",
        "Requirements",
        "load_job",
    ),
    "job_model": ("job_schema",),
    "money": (
        "FxTable",
        "money_str",
        "money_text",
        "parse_decimal",
        "round_money",
    ),
    "offer_filter": ("FilteredOffers", "GroupSummary", "OfferFilter"),
    "offer_list": ("OfferList",),
    "offer_source": ("GroupPricing", "OfferSource", "ProfileSource"),
    "offer_view": ("OfferView",),
    "policy": ("JobPolicy",),
    "profile": (
        "Certification",
        "DataCenter",
        "Filing",
        "License",
        "ProviderProfile",
        "load_profile",
        "loads_profile",
        "parse_profile",
        "profile_to_dict",
    ),
    "profile_model": ("profile_schema",),
    "provinces": (
        "canonical_city",
        "canonical_province",
    ),
    "zones": (
        "DEFAULT_TIMEZONE",
        "DEFAULT_TIMEZONE_NAME",
    ),
}
__getattr__ = lazy_names(__name__, _HOME)

__all__ = [
    "BILLING_MODES",
    "CONTRACT_MODES",
    "DEFAULT_TIMEZONE",
    "DEFAULT_TIMEZONE_NAME",
    "GPUS",
    "HOURLY_MODES",
    "PERIOD_HOURS",
    "Calibration",
    "Certification",
    "DataCenter",
    "Filing",
    "FilteredOffers",
    "FxTable",
    "GpuSpec",
    "GroupPricing",
    "GroupSummary",
    "HolidaySupplement",
    "Job",
    "JobPolicy",
    "LicenceNumber",
    "License",
    "OfferFilter",
    "OfferList",
    "OfferSource",
    "OfferView",
    "ProfileSource",
    "ProviderProfile",
    "Requirements",
    "canonical_city",
    "canonical_province",
    "collector_paused",
    "factor_at",
    "find_gpu",
    "identify_number",
    "job_schema",
    "load_calibration",
    "load_holidays_file",
    "load_job",
    "load_profile",
    "loads_profile",
    "money_str",
    "money_text",
    "normalise_number",
    "parse_billing",
    "parse_decimal",
    "parse_gongan",
    "parse_icp_filing",
    "parse_licence",
    "parse_profile",
    "parse_time_of_use",
    "parse_uscc",
    "profile_schema",
    "profile_to_dict",
    "resolve_gpu",
    "round_money",
    "slot_factors",
    "snap_to_memory",
    "suggest_gpus",
]

"""Compliance of providers and offers (pure): licences, filings, the job's requirements.

:func:`check_providers` gives one :class:`ProviderReport` per provider (``suanli check``);
:func:`evaluate_offers` splits offers into eligible and excluded ones (:class:`Eligibility`),
what the planner calls. Rules: :mod:`.engine`; licences: :mod:`.licence`; number checks:
:mod:`.numbers`; the job's requirements: :mod:`.job_rules`; service facts and claimed
credentials: :mod:`.service`; network distance: :mod:`.latency`; verdict types: :mod:`.verdicts`.

Each name loads its module on first use (:mod:`comparator.domain.lazy`).
"""

from typing import TYPE_CHECKING

from comparator.domain.lazy import lazy_names

if TYPE_CHECKING:
    from comparator.compliance.engine import (
        check_provider,
        check_providers,
        evaluate_offers,
        needs_chinese_licence,
    )
    from comparator.compliance.latency import Latency, latency_to
    from comparator.compliance.service import FACT_CHECKS, service_checks
    from comparator.compliance.verdicts import (
        FAIL,
        PASS,
        WARN,
        Check,
        DatacenterReport,
        Eligibility,
        Exclusion,
        ProviderReport,
        worst,
    )

_HOME: dict[str, tuple[str, ...]] = {
    "engine": (
        "check_provider",
        "check_providers",
        "evaluate_offers",
        "needs_chinese_licence",
    ),
    "verdicts": (
        "FAIL",
        "PASS",
        "WARN",
        "Check",
        "DatacenterReport",
        "Eligibility",
        "Exclusion",
        "ProviderReport",
        "worst",
    ),
    "latency": ("Latency", "latency_to"),
    "service": ("FACT_CHECKS", "service_checks"),
}
__getattr__ = lazy_names(__name__, _HOME)

__all__ = [
    "FACT_CHECKS",
    "FAIL",
    "PASS",
    "WARN",
    "Check",
    "DatacenterReport",
    "Eligibility",
    "Exclusion",
    "Latency",
    "ProviderReport",
    "check_provider",
    "check_providers",
    "evaluate_offers",
    "latency_to",
    "needs_chinese_licence",
    "service_checks",
    "worst",
]

"""Compliance of providers and offers (pure): licences, filings, the job's requirements.

:func:`check_providers` gives one :class:`ProviderReport` per provider (``suanli check``);
:func:`evaluate_offers` splits offers into eligible and excluded ones (:class:`Eligibility`),
what the planner calls. Rules: :mod:`.engine`; licences: :mod:`.licence`; number checks:
:mod:`.numbers`; the job's requirements: :mod:`.job`; verdict types: :mod:`.model`.
"""

from comparator.compliance.engine import (
    check_provider,
    check_providers,
    evaluate_offers,
    needs_chinese_licence,
)
from comparator.compliance.model import (
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

__all__ = [
    "FAIL",
    "PASS",
    "WARN",
    "Check",
    "DatacenterReport",
    "Eligibility",
    "Exclusion",
    "ProviderReport",
    "check_provider",
    "check_providers",
    "evaluate_offers",
    "needs_chinese_licence",
    "worst",
]

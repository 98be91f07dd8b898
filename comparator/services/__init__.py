"""The service layer: where the catalog database meets the pure core. The CLI calls these.

Each function reads what it needs (job files, current offers, provider profiles), calls the
pure core (:mod:`comparator.compliance`, :mod:`comparator.plan`, :mod:`comparator.verify`) and,
where the command keeps a record, stores it (quotes, verifications). Each name loads its module
on first use (:mod:`comparator.domain.lazy`): `suanli quote` never loads the machine checks.
"""

from typing import TYPE_CHECKING

from comparator.domain.lazy import lazy_names

if TYPE_CHECKING:
    from comparator.services.eligibility import (
        CatalogCheck,
        check_catalog,
        default_verdicts,
        eligible_for_job,
    )
    from comparator.services.offer_listing import ListingQuery, OfferListing, list_offers
    from comparator.services.planning import (
        context_from_settings,
        plan_job_file,
        plan_jobs_files,
    )
    from comparator.services.quoting import make_quote
    from comparator.services.verification import (
        Verified,
        offer_to_verify,
        store_verification,
        verify_machine,
    )
    from comparator.services.weekly_market import market_report

_HOME: dict[str, tuple[str, ...]] = {
    "eligibility": ("CatalogCheck", "check_catalog", "default_verdicts", "eligible_for_job"),
    "weekly_market": ("market_report",),
    "offer_listing": ("ListingQuery", "OfferListing", "list_offers"),
    "planning": ("context_from_settings", "plan_job_file", "plan_jobs_files"),
    "quoting": ("make_quote",),
    "verification": ("Verified", "offer_to_verify", "store_verification", "verify_machine"),
}
__getattr__ = lazy_names(__name__, _HOME)

__all__ = [
    "CatalogCheck",
    "ListingQuery",
    "OfferListing",
    "Verified",
    "check_catalog",
    "context_from_settings",
    "default_verdicts",
    "eligible_for_job",
    "list_offers",
    "make_quote",
    "market_report",
    "offer_to_verify",
    "plan_job_file",
    "plan_jobs_files",
    "store_verification",
    "verify_machine",
]

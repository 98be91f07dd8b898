"""The catalog database: SQLModel tables, the schema and its migrations, and the queries.

:mod:`.db` makes engines and upgrades the schema (Alembic, :mod:`.migrations`); :mod:`.models`
holds the tables; :mod:`.queries` stores profiles and append-only price snapshots and reads the
current offers; :mod:`.history` and :mod:`.changes` compare snapshots; :mod:`.listing` ranks
offers for ``suanli offers``; :class:`CatalogGroups` is the catalog as the planner's offer
source (:mod:`.queries_groups`). Only this package, :mod:`comparator.refresh` and
:mod:`comparator.services` open a database.

Each name loads its module on first use (:mod:`comparator.domain.lazy`): a quote loads the
queries it runs, not the listings, history and change detection.
"""

from typing import TYPE_CHECKING

# a function named as its module: bound here, or importing the module would shadow it
from comparator.catalog.current_offers import current_offers, current_snapshot_ids
from comparator.domain.lazy import lazy_names

if TYPE_CHECKING:
    from comparator.catalog.changes import PriceChange, count_changes, diff_offers
    from comparator.catalog.db import (
        dispose_engines,
        make_engine,
        schema_is_current,
        upgrade_if_needed,
        upgrade_schema,
    )
    from comparator.catalog.history import OfferHistory, iter_price_history
    from comparator.catalog.listing import OfferRow, TopOffers, rank_offers
    from comparator.catalog.models import OfferColumns, OfferIn
    from comparator.catalog.queries import (
        SnapshotResult,
        get_offer,
        has_any_provider,
        load_profiles,
        provider_ids,
        store_profile,
    )
    from comparator.catalog.queries_groups import CatalogGroups
    from comparator.catalog.ranked_offers import (
        OfferPlace,
        current_gpus,
        current_places,
        listing_filter,
        ranked_rows,
        top_offers,
    )

_HOME: dict[str, tuple[str, ...]] = {
    "changes": (
        "PriceChange",
        "count_changes",
        "diff_offers",
    ),
    "db": (
        "dispose_engines",
        "make_engine",
        "schema_is_current",
        "upgrade_if_needed",
        "upgrade_schema",
    ),
    "history": (
        "OfferHistory",
        "iter_price_history",
    ),
    "listing": (
        "OfferRow",
        "TopOffers",
        "rank_offers",
    ),
    "models": (
        "OfferColumns",
        "OfferIn",
    ),
    "queries": (
        "SnapshotResult",
        "get_offer",
        "has_any_provider",
        "load_profiles",
        "provider_ids",
        "store_profile",
    ),
    "queries_groups": ("CatalogGroups",),
    "ranked_offers": (
        "OfferPlace",
        "current_gpus",
        "current_places",
        "listing_filter",
        "ranked_rows",
        "top_offers",
    ),
}
__getattr__ = lazy_names(__name__, _HOME)

__all__ = [
    "CatalogGroups",
    "OfferColumns",
    "OfferHistory",
    "OfferIn",
    "OfferPlace",
    "OfferRow",
    "PriceChange",
    "SnapshotResult",
    "TopOffers",
    "count_changes",
    "current_gpus",
    "current_offers",
    "current_places",
    "current_snapshot_ids",
    "diff_offers",
    "dispose_engines",
    "get_offer",
    "has_any_provider",
    "iter_price_history",
    "listing_filter",
    "load_profiles",
    "make_engine",
    "provider_ids",
    "rank_offers",
    "ranked_rows",
    "schema_is_current",
    "store_profile",
    "top_offers",
    "upgrade_if_needed",
    "upgrade_schema",
]

"""What a price sheet may refer to: the provider ids and data centres the catalog knows."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field


@dataclass(frozen=True)
class KnownCatalog:
    """What a sheet may refer to: provider ids and each provider's data centres (id or name)."""

    regions: Mapping[str, Mapping[str, str]] = field(default_factory=dict)

    def region_id(self, provider: str, region: str) -> str | None:
        return self.regions.get(provider, {}).get(region)

"""Catalog rows as an import before revision ``0010`` wrote them (no
parsed record beside the profile document), for the migration tests."""

from __future__ import annotations

import hashlib
import json
from datetime import UTC, datetime

from sqlalchemy import Engine, text

from comparator.domain.profile import ProviderProfile, profile_to_dict

PROVIDER_SQL = (
    "INSERT INTO provider (id, name, legal_name, uscc, country, website, demo, profile_json,"
    " profile_sha256, updated_at) VALUES (:id, :name, '', '', :country, '', false, :doc, :sha, :at)"
)
DATACENTER_SQL = (
    "INSERT INTO datacenter (provider_id, id, name, country, province, city, region, mainland)"
    " VALUES (:pid, :id, :name, :country, :province, :city, :region, :mainland)"
)


def store_profile_without_record(engine: Engine, profile: ProviderProfile) -> None:
    """The provider row and its data centres' rows, as revisions 0001–0008 stored them."""
    document = json.dumps(profile_to_dict(profile), ensure_ascii=False, sort_keys=True)
    row = {"id": profile.id, "name": profile.name, "country": profile.country, "doc": document}
    row |= {"sha": hashlib.sha256(document.encode()).hexdigest()}
    centres = [
        {"pid": profile.id, "id": dc.id, "name": dc.name, "country": dc.country}
        | {"province": dc.province, "city": dc.city, "region": dc.region, "mainland": dc.mainland}
        for dc in profile.datacenters
    ]
    with engine.begin() as conn:
        conn.execute(text(PROVIDER_SQL), row | {"at": datetime(2026, 12, 1, tzinfo=UTC)})
        if centres:
            conn.execute(text(DATACENTER_SQL), centres)

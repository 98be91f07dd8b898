"""provider.profile_record: each profile as parsed at import, read back without validating

Commands read stored profiles by the thousand (``offers --compliant-for`` about 2,000 at 10,000
providers, a quote the terms of up to 10,000, ``check`` and ``providers`` all of them) and
validated each document again. The import now stores the parsed profile beside its document
(comparator/domain/profile_record.py); this revision adds the column and derives the record
of every stored profile, once. A document that no longer parses keeps no record: reading it
parses it and reports the error as before.

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-03 13:20:00.000000
"""

import json
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

from comparator.domain.profile import parse_profile
from comparator.domain.profile_record import profile_record
from comparator.errors import ProfileError

revision: str = "0010"
down_revision: str | None = "0009"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_BATCH = 1000  # providers read and written per round


def upgrade() -> None:
    with op.batch_alter_table("provider", schema=None) as batch_op:
        batch_op.add_column(sa.Column("profile_record", sa.Text(), nullable=True))
    conn = op.get_bind()
    provider = sa.table(
        "provider", sa.column("id"), sa.column("profile_json"), sa.column("profile_record")
    )
    update = (
        provider.update()
        .where(provider.c.id == sa.bindparam("pid"))
        .values(profile_record=sa.bindparam("record"))
    )
    after = ""
    while True:
        rows = conn.execute(
            sa.select(provider.c.id, provider.c.profile_json)
            .where(provider.c.id > after)
            .order_by(provider.c.id)
            .limit(_BATCH)
        ).all()
        if not rows:
            return
        records = [r for r in (_record(pid, text) for pid, text in rows) if r["record"]]
        if records:
            conn.execute(update, records)
        after = rows[-1][0]


def _record(provider_id: str, text: str) -> dict[str, str | None]:
    try:
        record = profile_record(parse_profile(json.loads(text), f"catalog:{provider_id}"))
    except (ProfileError, ValueError):
        record = None
    return {"pid": provider_id, "record": record}


def downgrade() -> None:
    with op.batch_alter_table("provider", schema=None) as batch_op:
        batch_op.drop_column("profile_record")

"""currentsnapshot: each provider's current snapshot, kept by a trigger

Every reader found the current snapshots as ``max(id)`` per provider over every snapshot
ever stored. The catalog keeps its history, so that grows with every refresh: at 10,000
providers and a year of weekly snapshots (520,000 rows) the grouping took 32 ms on SQLite and
71-95 ms on PostgreSQL, for every query that reads current offers. The table holds one row
per provider; a trigger on ``pricesnapshot`` keeps it on every insert, whoever inserts (a
statement-level trigger over the inserted rows on PostgreSQL, a row trigger on SQLite), and
keeps the greater id, so the table is always the grouping's result.

Revision ID: 0013
Revises: 0012
Create Date: 2026-12-05 00:00:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0013"
down_revision: str | None = "0012"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

TRIGGER = "tr_pricesnapshot_current"
FUNCTION = "suanli_current_snapshot"

_SQLITE_TRIGGER = f"""
CREATE TRIGGER {TRIGGER} AFTER INSERT ON pricesnapshot
BEGIN
    INSERT INTO currentsnapshot (provider_id, snapshot_id) VALUES (NEW.provider_id, NEW.id)
    ON CONFLICT (provider_id) DO UPDATE SET snapshot_id = max(snapshot_id, excluded.snapshot_id);
END
"""
_POSTGRESQL_FUNCTION = f"""
CREATE FUNCTION {FUNCTION}() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO currentsnapshot (provider_id, snapshot_id)
    SELECT provider_id, max(id) FROM inserted GROUP BY provider_id
    ON CONFLICT (provider_id) DO UPDATE
    SET snapshot_id = GREATEST(currentsnapshot.snapshot_id, EXCLUDED.snapshot_id);
    RETURN NULL;
END
$$
"""
_POSTGRESQL_TRIGGER = f"""
CREATE TRIGGER {TRIGGER} AFTER INSERT ON pricesnapshot
REFERENCING NEW TABLE AS inserted FOR EACH STATEMENT EXECUTE FUNCTION {FUNCTION}()
"""


def upgrade() -> None:
    op.create_table(
        "currentsnapshot",
        sa.Column("provider_id", sa.String(length=64), nullable=False),
        sa.Column("snapshot_id", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("provider_id"),
    )
    op.create_index(
        "ix_currentsnapshot_snapshot_id", "currentsnapshot", ["snapshot_id"], unique=True
    )
    op.execute(
        "INSERT INTO currentsnapshot (provider_id, snapshot_id)"
        " SELECT provider_id, max(id) FROM pricesnapshot GROUP BY provider_id"
    )
    if op.get_bind().dialect.name == "postgresql":
        op.execute(_POSTGRESQL_FUNCTION)
        op.execute(_POSTGRESQL_TRIGGER)
    else:
        op.execute(_SQLITE_TRIGGER)


def downgrade() -> None:
    op.execute(
        f"DROP TRIGGER IF EXISTS {TRIGGER}"
        + (" ON pricesnapshot" if op.get_bind().dialect.name == "postgresql" else "")
    )
    if op.get_bind().dialect.name == "postgresql":
        op.execute(f"DROP FUNCTION IF EXISTS {FUNCTION}()")
    op.drop_table("currentsnapshot")

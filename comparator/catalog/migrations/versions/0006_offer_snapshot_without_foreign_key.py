"""offer.snapshot_id without a foreign key: one million offers are COPY'd at twice the speed

PostgreSQL checks a foreign key with one trigger and one index probe per inserted row; for a
national catalog that was 5 of the 11.6 s a million offers took to COPY. Offers are written
only together with their snapshot, in the same transaction, with the id that snapshot's
INSERT … RETURNING gave, and snapshots are never deleted (the catalog is append-only), so the
key guarded nothing the writers do not guarantee by construction; docs/import.md says why and
what checks it instead.

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-01 16:30:00.000000
"""

from collections.abc import Sequence

from alembic import op

revision: str = "0006"
down_revision: str | None = "0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# 0001 left the key unnamed: PostgreSQL named it offer_snapshot_id_fkey, SQLite not at all
_PG_NAME = "offer_snapshot_id_fkey"
_SQLITE_NAME = "fk_offer_snapshot_id_pricesnapshot"
_CONVENTION = {"fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s"}


def upgrade() -> None:
    if op.get_context().dialect.name == "postgresql":
        op.drop_constraint(_PG_NAME, "offer", type_="foreignkey")
        return
    with op.batch_alter_table("offer", naming_convention=_CONVENTION) as batch_op:
        batch_op.drop_constraint(_SQLITE_NAME, type_="foreignkey")


def downgrade() -> None:
    if op.get_context().dialect.name == "postgresql":
        op.create_foreign_key(_PG_NAME, "offer", "pricesnapshot", ["snapshot_id"], ["id"])
        return
    with op.batch_alter_table("offer", naming_convention=_CONVENTION) as batch_op:
        batch_op.create_foreign_key(_SQLITE_NAME, "pricesnapshot", ["snapshot_id"], ["id"])

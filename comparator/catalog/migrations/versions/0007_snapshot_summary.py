"""snapshotsummary: each snapshot's cheapest offer per group, for the market report

The weekly market report read every offer of the weeks on record (2.2 million rows for a
national catalog with 12 weeks of history) to find each provider's cheapest card-hour; it now
reads one row per snapshot, GPU, billing mode, data centre and pricing basis, written when the
snapshot is stored (comparator/catalog/snapshot_summary.py). Existing snapshots are summarised
here, once.

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-03 10:45:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

from comparator.catalog.dbtypes import ExactDecimal
from comparator.catalog.snapshot_summary import summary_insert_sql

revision: str = "0007"
down_revision: str | None = "0006"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "snapshotsummary",
        sa.Column("snapshot_id", sa.Integer(), nullable=False),
        sa.Column("gpu", sa.String(length=64), nullable=False),
        sa.Column("billing", sa.String(length=16), nullable=False),
        sa.Column("region", sa.String(length=128), nullable=False),
        sa.Column("currency", sa.String(length=3), nullable=False),
        sa.Column("tax_inclusive", sa.Boolean(), nullable=False),
        sa.Column("vat_rate", ExactDecimal(), nullable=False),
        sa.Column("time_of_use", sa.String(), nullable=False),
        sa.Column("provider", sa.String(length=64), nullable=False),
        sa.Column("offers", sa.Integer(), nullable=False),
        sa.Column("offer_id", sa.Integer(), nullable=False),
        sa.Column("cards", sa.Integer(), nullable=False),
        sa.Column("price", ExactDecimal(), nullable=False),
        sa.PrimaryKeyConstraint(
            "snapshot_id",
            "gpu",
            "billing",
            "region",
            "currency",
            "tax_inclusive",
            "vat_rate",
            "time_of_use",
        ),
        sqlite_with_rowid=False,
    )
    op.execute(summary_insert_sql(op.get_context().dialect.name, "1 = 1"))


def downgrade() -> None:
    op.drop_table("snapshotsummary")

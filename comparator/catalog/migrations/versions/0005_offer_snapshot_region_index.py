"""index offers by (snapshot_id, region, gpu): a job's places are read from the index

A job that names provinces loads the offers of the current snapshots in those provinces' data
centres only; without this index both databases read every offer of each such snapshot.

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-01 12:30:00.000000
"""

from collections.abc import Sequence

from alembic import op

revision: str = "0005"
down_revision: str | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("offer", schema=None) as batch_op:
        batch_op.create_index(
            "ix_offer_snapshot_region_gpu", ["snapshot_id", "region", "gpu"], unique=False
        )


def downgrade() -> None:
    with op.batch_alter_table("offer", schema=None) as batch_op:
        batch_op.drop_index("ix_offer_snapshot_region_gpu")

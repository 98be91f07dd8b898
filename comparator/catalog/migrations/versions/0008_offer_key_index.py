"""ix_offer_snapshot_region_gpu carries the whole offer key: offers match from the index

The market report matches each offer of this week to last week's on the offer key (data
centre, GPU, cards, billing mode, SKU, time-of-use rule, minimum units, currency). The index
stopped at (snapshot, data centre, GPU), so each match read about six offer rows to compare
the rest; with the key in the index the week's diff over a million offers takes half the CPU.
The index keeps its name and its leading columns, so every query that used it still does.

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-03 11:10:00.000000
"""

from collections.abc import Sequence

from alembic import op

revision: str = "0008"
down_revision: str | None = "0007"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_NAME = "ix_offer_snapshot_region_gpu"
_PLACE = ["snapshot_id", "region", "gpu"]
_KEY_REST = ["cards", "billing", "sku", "time_of_use", "min_units", "currency"]


def upgrade() -> None:
    with op.batch_alter_table("offer", schema=None) as batch_op:
        batch_op.drop_index(_NAME)
        batch_op.create_index(_NAME, _PLACE + _KEY_REST, unique=False)


def downgrade() -> None:
    with op.batch_alter_table("offer", schema=None) as batch_op:
        batch_op.drop_index(_NAME)
        batch_op.create_index(_NAME, _PLACE, unique=False)

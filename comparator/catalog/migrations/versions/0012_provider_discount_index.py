"""provider: a partial index on the providers that state a discount

Every quote reads the discounts the stored profiles state (``load_provider_discounts``); most
providers state none, and the query scanned every provider's row, profile documents and all:
4 ms on SQLite and 6.5 ms on PostgreSQL at 10,000 providers. The index holds only the rows
with a discount, so the read is an index scan of those (docs/planner-pruning.md, "Ninth
round").

Revision ID: 0012
Revises: 0011
Create Date: 2026-12-04 22:30:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0012"
down_revision: str | None = "0011"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_STATED = sa.text("discount IS NOT NULL")


def upgrade() -> None:
    op.create_index(
        "ix_provider_discount",
        "provider",
        ["id"],
        sqlite_where=_STATED,
        postgresql_where=_STATED,
    )


def downgrade() -> None:
    op.drop_index("ix_provider_discount", table_name="provider")

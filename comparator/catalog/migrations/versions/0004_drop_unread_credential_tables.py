"""drop the credential tables nothing read (profiles live in provider.profile_json)

The licence, filing and certification rows were written on every profile import and never
read: compliance reads the profile document. The data centre table stays: offers are
filtered by its province in SQL.

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-01 12:00:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0004"
down_revision: str | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

DROPPED = ("license", "filing", "certification")


def upgrade() -> None:
    for table in DROPPED:
        with op.batch_alter_table(table, schema=None) as batch_op:
            batch_op.drop_index(batch_op.f(f"ix_{table}_provider_id"))
        op.drop_table(table)


def downgrade() -> None:
    # The tables come back empty: importing the profiles again fills them under 0003's code.
    op.create_table(
        "certification",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("provider_id", sa.String(length=64), nullable=False),
        sa.Column("name", sa.String(), nullable=False),
        sa.Column("certifier", sa.String(), nullable=False),
        sa.Column("valid_until", sa.Date(), nullable=True),
        sa.ForeignKeyConstraint(
            ["provider_id"],
            ["provider.id"],
        ),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("certification", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_certification_provider_id"), ["provider_id"], unique=False
        )
    op.create_table(
        "filing",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("provider_id", sa.String(length=64), nullable=False),
        sa.Column("kind", sa.String(), nullable=False),
        sa.Column("number", sa.String(), nullable=True),
        sa.Column("level", sa.Integer(), nullable=True),
        sa.Column("assessed_on", sa.Date(), nullable=True),
        sa.ForeignKeyConstraint(
            ["provider_id"],
            ["provider.id"],
        ),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("filing", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_filing_provider_id"), ["provider_id"], unique=False)
    op.create_table(
        "license",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("provider_id", sa.String(length=64), nullable=False),
        sa.Column("number", sa.String(), nullable=False),
        sa.Column("services", sa.JSON(), nullable=False),
        sa.Column("idc_item", sa.String(), nullable=False),
        sa.Column("coverage", sa.JSON(), nullable=False),
        sa.Column("valid_until", sa.Date(), nullable=True),
        sa.Column("last_annual_report", sa.Integer(), nullable=True),
        sa.ForeignKeyConstraint(
            ["provider_id"],
            ["provider.id"],
        ),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("license", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_license_provider_id"), ["provider_id"], unique=False)

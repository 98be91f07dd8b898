"""provider.discount: each profile's negotiated discount as its document states it

A quote orders the job's groups by a floor that reads the least discount of the providers of
the job's offers, and lists every one of their discounts: it read them by extracting the
``provider`` table of each stored document (up to 10,000 of them, 0.2-0.4 s of PostgreSQL
parsing JSON, then validated one by one), where most providers state none. The import now
writes the discount beside the document (the document's text, NULL without one); this revision
adds the column and derives it from every stored document, by the same field parser the quote
used (a discount the parser refuses stays NULL).

Revision ID: 0011
Revises: 0010
Create Date: 2026-12-03 21:40:00.000000
"""

import json
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

from comparator.domain.profile_values import stored_discount

revision: str = "0011"
down_revision: str | None = "0010"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_BATCH = 1000  # providers read and written per round


def upgrade() -> None:
    with op.batch_alter_table("provider", schema=None) as batch_op:
        batch_op.add_column(sa.Column("discount", sa.String(), nullable=True))
    conn = op.get_bind()
    provider = sa.table(
        "provider", sa.column("id"), sa.column("profile_json"), sa.column("discount")
    )
    update = (
        provider.update()
        .where(provider.c.id == sa.bindparam("pid"))
        .values(discount=sa.bindparam("stated"))
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
        stated = [{"pid": pid, "stated": _stated(text)} for pid, text in rows]
        if stated := [s for s in stated if s["stated"] is not None]:
            conn.execute(update, stated)
        after = rows[-1][0]


def _stated(text: str) -> str | None:
    try:
        document = json.loads(text)
    except ValueError:
        return None
    table = document.get("provider") if isinstance(document, dict) else None
    return stored_discount(table.get("discount") if isinstance(table, dict) else None)


def downgrade() -> None:
    with op.batch_alter_table("provider", schema=None) as batch_op:
        batch_op.drop_column("discount")

"""Alembic environment: runs on the connection that ``comparator.catalog.db`` passes in."""

from typing import Any, Literal

from alembic import context
from sqlmodel import SQLModel
from sqlmodel.sql.sqltypes import AutoString

import comparator.catalog.models  # noqa: F401  (registers the tables on SQLModel.metadata)


def render_item(kind: str, item: Any, autogen_context: Any) -> str | Literal[False]:
    """Write SQLModel's AutoString as plain sa.String so migrations need no sqlmodel import."""
    if kind == "type" and isinstance(item, AutoString):
        return f"sa.String({item.length})" if item.length else "sa.String()"
    return False


connection = context.config.attributes["connection"]
context.configure(
    connection=connection,
    target_metadata=SQLModel.metadata,
    render_as_batch=True,
    compare_type=True,
    render_item=render_item,
)
with context.begin_transaction():
    context.run_migrations()

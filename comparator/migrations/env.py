"""Alembic environment: runs on the connection that ``comparator.db`` passes in."""

from alembic import context
from sqlmodel import SQLModel

import comparator.models  # noqa: F401  (registers the tables on SQLModel.metadata)

connection = context.config.attributes["connection"]
context.configure(
    connection=connection,
    target_metadata=SQLModel.metadata,
    render_as_batch=True,
    compare_type=True,
)
with context.begin_transaction():
    context.run_migrations()

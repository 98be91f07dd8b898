"""The job's group table: the temporary tables a quote's group summaries and shapes are
kept in, made from a query (``CREATE … AS``), and their tally per shape and rule 8's why.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from sqlalchemy import Column, Float, Integer, MetaData, Select, String, Table, func, select
from sqlalchemy.ext.compiler import compiles
from sqlalchemy.sql.base import Executable
from sqlalchemy.sql.elements import ClauseElement

_META = MetaData()
GROUPS = Table(
    "suanli_job_groups",
    _META,
    Column("provider", String),
    Column("region", String),
    Column("gpu", String),
    Column("node_cards", Integer),
    Column("interconnect", String),
    Column("network", String),
    Column("offers", Integer),
    Column("first_id", Integer),
    Column("least", Float),
    Column("most", Float),
    Column("trial", Integer),
    Column("rule_least", String),  # rule 7's (NULL unless the job may not pause)
    Column("rule_greatest", String),
    Column("least_hourly", Float),
    Column("least_minimum", Float),
    Column("least_contract", Float),
    Column("unfit", Integer),  # 0, or 1 + the index of why rule 8 leaves the row's offers out
    prefixes=["TEMPORARY"],
)
SHAPES = Table(
    "suanli_job_shapes",
    _META,
    Column("gpu", String),
    Column("node_cards", Integer),
    Column("interconnect", String),
    Column("network", String),
    Column("link", String),
    Column("stage", Integer),
    Column("card_hours", Float),
    prefixes=["TEMPORARY"],
)
G, S = GROUPS.c, SHAPES.c


# (unfit, GPU, node size, interconnect, network, offers, most trial hours, groups)
Tally = tuple[int, str, int, str | None, str | None, int, int, int]


def tally_of(table: Table) -> Select[Any]:
    """The groups of ``table`` (:data:`GROUPS`' columns) per rule 8's why and shape: its
    counts of unfit offers and its shapes in one small scan, run on each half where it is
    built (at 1M offers the shapes and the counts took 20 + 4 ms after the build, one core
    idle; docs/planner-pruning.md, "Ninth round")."""
    c = table.c
    keys = (c.unfit, c.gpu, c.node_cards, c.interconnect, c.network)
    return select(*keys, func.sum(c.offers), func.max(c.trial), func.count()).group_by(*keys)


def tally_rows(rows: Iterable[Any]) -> list[Tally]:
    """:func:`tally_of`'s rows as plain tuples (pickled by the child process, merged after)."""
    return [
        (int(r[0]), str(r[1]), int(r[2]), r[3], r[4], int(r[5]), int(r[6] or 0), int(r[7]))
        for r in rows
    ]


class CreateTableAs(Executable, ClauseElement):
    """``CREATE TEMPORARY TABLE name AS query`` (or ``CREATE TABLE schema.name AS query``):
    PostgreSQL plans parallel workers for it (not for ``INSERT … SELECT``); the columns are
    the query's labels."""

    inherit_cache = False

    def __init__(self, name: str, query: Select[Any], schema: str | None = None) -> None:
        self.name, self.query, self.schema = name, query, schema


@compiles(CreateTableAs)
def _create_table_as(element: CreateTableAs, compiler: Any, **kw: Any) -> str:
    name = compiler.preparer.quote(element.name)
    query = compiler.process(element.query, **kw)
    if element.schema is not None:
        return f"CREATE TABLE {compiler.preparer.quote(element.schema)}.{name} AS {query}"
    return f"CREATE TEMPORARY TABLE {name} AS {query}"

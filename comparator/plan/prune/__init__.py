"""Pruning that keeps the plan provably cheapest: lower bounds, dominated offers, the SQL
prefilter and streaming the catalog group by group (docs/planner-pruning.md)."""

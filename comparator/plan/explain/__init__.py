"""Explaining a plan: why a job is infeasible, its billing mix in words, its timeline."""

"""The DP of contracts that pause inside their paid periods (run windows, a daily cap):
max-plus products of per-hour matrices, chains across periods and their rebuild, and the
contracts an hourly rate always beats (docs/billing.md)."""

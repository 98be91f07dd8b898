"""``python -m comparator`` runs the ``suanli`` CLI."""

from comparator.cli import run

run()

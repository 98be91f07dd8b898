"""``python -m comparator`` runs the ``suanli`` CLI."""

import sys

from comparator.cli import main

sys.exit(main())

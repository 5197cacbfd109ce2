"""``python -m boundcalc`` runs the ``boundcalc`` command."""

import sys

from .cli import main

sys.exit(main())

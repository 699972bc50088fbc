"""``python -m clsolve``: the command line, as ``clsolve``."""

import sys

from .cli import main

sys.exit(main())

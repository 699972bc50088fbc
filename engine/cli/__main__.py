"""``python -m clsolve.cli``, the same as ``clsolve``."""

import sys

from . import main

sys.exit(main())

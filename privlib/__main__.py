"""``python -m privlib``: the ``privlib`` command."""

import sys

from privlib.cli import main

sys.exit(main())

"""``python -m murlan_cli``: the ``murlan`` command without the console script."""

import sys

from murlan_cli import main

sys.exit(main())

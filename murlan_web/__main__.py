"""``python -m murlan_web``: the same as ``murlan serve``."""

from murlan_web.command import main

raise SystemExit(main())

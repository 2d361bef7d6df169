"""``python -m reducerkit.cli``: the same as ``python -m reducerkit``."""

from . import main

raise SystemExit(main())

"""``python -m reducerkit``: see :mod:`reducerkit.cli`."""

from .cli import main

raise SystemExit(main())

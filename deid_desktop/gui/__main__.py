"""`python -m deid_desktop.gui` and the frozen app's entry point."""

from deid_desktop.gui.app import main

raise SystemExit(main())

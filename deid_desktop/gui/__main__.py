"""`python -m deid_desktop.gui` and the frozen app's entry point."""

from deid_desktop.gui import prefetch

prefetch.start()  # the packaged app on Linux: read the libraries ahead (cold start)

from deid_desktop.gui.app import main  # noqa: E402 - after the read-ahead has started

raise SystemExit(main())

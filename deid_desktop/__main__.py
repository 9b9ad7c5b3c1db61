from deid_desktop.cli import main

raise SystemExit(main())

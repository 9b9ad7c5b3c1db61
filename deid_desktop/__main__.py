from deid_desktop.cli import entry

entry()

"""One light module per pathway, each exporting ``SPEC`` (``core.pathways.registry``).

A new pathway adds its module here (and its builder module and gate rows); the
registry finds it.
"""

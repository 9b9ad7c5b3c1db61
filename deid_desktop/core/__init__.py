"""The engine: pandas in, pandas out. Imports no Qt, ever (tests/core/test_layers.py)."""

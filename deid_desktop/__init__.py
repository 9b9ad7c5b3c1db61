"""deid-desktop: de-identify clinical extracts offline, with the record to prove it."""

__version__ = "0.1.0"

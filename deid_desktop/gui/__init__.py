"""The desktop wizard (PySide6). Calls core, holds no rules; never imports QtNetwork."""

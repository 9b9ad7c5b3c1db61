"""The five wizard steps: load, tag, pathway, review, export."""

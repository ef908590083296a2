"""Fixtures for the knowledge tests (engine, entries, masking)."""

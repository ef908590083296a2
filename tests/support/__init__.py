"""Shared helpers for tests: real servers started on 127.0.0.1 and torn down after."""

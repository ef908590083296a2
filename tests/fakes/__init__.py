"""Fakes of outside services: separate servers speaking the real protocol, driven by real clients."""

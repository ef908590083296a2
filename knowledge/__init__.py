"""Failure knowledge as data and the diagnosis engine. Pure: no I/O beyond the files it is given."""

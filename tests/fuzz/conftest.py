"""Fuzzing with hypothesis: every parser of untrusted input raises only its own documented error.

Profiles: the default keeps the suite fast on a 2-core CI box; `HYPOTHESIS_PROFILE=deep` runs many
more examples when hunting (`.venv/bin/python -m pytest tests/fuzz -p no:cacheprovider`).
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

settings.register_profile(
    "ci",
    max_examples=150,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
settings.register_profile(
    "deep",
    max_examples=5000,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

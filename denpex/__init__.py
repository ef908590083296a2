"""Denpex: tells an ML platform team why a distributed training job died.

The public surface is small: the value types in `denpex.core.models`, `denpex.core.settings.Settings`, and
the `denpex` command line (`denpex.cli`).
"""

__version__ = "0.1.0"

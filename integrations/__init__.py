"""Talking to the outside: Slurm, Kubernetes, Slack client setup, log files on shared storage.

Each integration returns plain evidence values (`denpex.core.models`); none knows about Slack formatting
or Redis.
"""

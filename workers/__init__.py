"""RQ jobs and their orchestration: collect → mask → diagnose → post, with retries and idempotency."""

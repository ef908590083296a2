"""Texts for asks naming fields a line prints (knowledge/answer_fields.py): `useIpv6: false`,
`code: -98`, `gfp_mask=0x140cca`."""

from __future__ import annotations

FIELDS = "As printed in this job's logs: {fields}."
FIELD = "`{field}` ({ref})"

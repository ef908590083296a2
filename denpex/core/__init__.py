"""The ground floor: what every layer shares and spells the same way.

`ids`, `facts` and `plans` are standard library only (identifiers, scheduler fact lines, plan names);
`models` (the typed values that cross layers), `settings` and `texts` (every user-facing message) sit
on them and need only pydantic. Nothing here imports `knowledge`, `integrations`, `workers`, `bot` or
the CLI: import-linter checks it.
"""

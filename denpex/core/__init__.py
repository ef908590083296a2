"""The ground floor: identifiers and scheduler fact lines that every layer spells the same way.

Standard library only, so `knowledge`, `integrations`, `workers` and `bot` can all import it without
pulling anything in. (`denpex.models`, `denpex.settings` and `denpex.texts` are ground floor too; they
move under `denpex/core/` in a later, mechanical step.)
"""

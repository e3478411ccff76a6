"""Settings (trtlint.toml / pyproject.toml), the rule packs and the project root."""

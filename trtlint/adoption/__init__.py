"""Adoption and filters: inline suppressions, per-directory configs, baselines, `trtlint adopt`."""

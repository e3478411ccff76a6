"""Validation against the official SARIF 2.1.0 schema, for the tests that check SARIF output.

The schema is not part of the repository: it sits in ``shared/schemas/`` beside the clone (``../shared`` in CI,
``/work/shared`` here). Only the validation depends on it, so a test checks its SARIF mapping first and
validates last (or in a test of its own). When the schema is missing the validation skips with the reason
locally, and fails under CI (``CI`` set to anything but ``false``/``0``/empty), where it must be present.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import jsonschema
import pytest

SCHEMA_PATH = Path(__file__).resolve().parents[2] / "shared" / "schemas" / "sarif-schema-2.1.0.json"


def in_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")


def validate_sarif(doc: dict) -> None:
    """Assert that ``doc`` is valid SARIF 2.1.0 (every error listed, up to ten)."""
    if not SCHEMA_PATH.is_file():
        why = f"SARIF 2.1.0 schema not found at {SCHEMA_PATH} (expected beside the repository in shared/schemas)"
        if in_ci():
            pytest.fail(why + "; CI must provide it", pytrace=False)
        pytest.skip(why)
    schema = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    cls = jsonschema.validators.validator_for(schema, default=jsonschema.Draft7Validator)
    cls.check_schema(schema)
    errors = sorted(cls(schema).iter_errors(doc), key=lambda e: list(e.path))
    assert not errors, "\n".join(f"{list(e.path)}: {e.message}" for e in errors[:10])

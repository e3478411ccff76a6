"""trtlint: a static analyzer and linter for TensorRT plugin and converter code."""

__version__ = "0.1.0"

import os as _os

# Where the project and its rule pages live. The repository's public address is not final yet; set
# TRTLINT_DOCS_URL to point SARIF helpUri and `trtlint rule` links at a mirror or an internal copy.
PROJECT_URL = _os.environ.get("TRTLINT_PROJECT_URL", "https://github.com/trtlint/trtlint")
DOCS_URL = _os.environ.get("TRTLINT_DOCS_URL", PROJECT_URL + "/blob/main/docs/rules/")

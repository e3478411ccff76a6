"""trtlint: a static analyzer and linter for TensorRT plugin and converter code."""

__version__ = "0.1.0"



def project_url() -> str:
    """The project's web address for SARIF ``tool.driver.informationUri``: ``$TRTLINT_PROJECT_URL``, else ""
    (trtlint has no published address yet, and invents none: the field is left out)."""
    from trtlint.base.envvars import text

    return text("TRTLINT_PROJECT_URL")


def docs_url() -> str:
    """Where the rule pages (``docs/rules/TRTxxx.md``) are published, for SARIF ``helpUri``, the LSP
    ``codeDescription`` and ``trtlint rules --format json``: ``$TRTLINT_DOCS_URL`` (e.g. a repository's
    ``.../blob/<commit>/docs/rules/`` or an internal copy), else "" and no link is given. The rule's text itself
    is always carried (SARIF ``help.text``/``help.markdown``, LSP hover)."""
    from trtlint.base.envvars import text

    return text("TRTLINT_DOCS_URL")

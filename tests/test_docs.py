from pathlib import Path

from trtlint.docsgen import render_all

DOCS = Path(__file__).resolve().parents[1] / "docs" / "rules"


def test_rule_docs_are_up_to_date():
    pages = render_all()
    for name, text in pages.items():
        p = DOCS / name
        assert p.is_file(), f"docs/rules/{name} is missing: run `python -m trtlint.docsgen`"
        assert p.read_text(encoding="utf-8") == text, f"docs/rules/{name} is stale: run `python -m trtlint.docsgen`"
    extra = {p.name for p in DOCS.glob("TRT*.md")} - set(pages)
    assert not extra, f"docs for rules that no longer exist: {extra}"

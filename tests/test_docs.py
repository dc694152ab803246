"""README and docs/: they speak of the project (what is measured, on what, what is not yet), and
the README's table of figures agrees with the docs that state each figure with its command."""

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_docs_speak_of_the_project_not_of_the_work(page):
    text = page.read_text(encoding="utf-8")
    found = [m.group() for m in re.finditer(r"(?i)\b(sessions?|issues?|targets?)\b", text)]
    assert not found, f"{page.name}: {found}"


def _table(section: str) -> list[dict]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    body = text.split(f"## {section}\n", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in body.splitlines() if line.startswith("|")]
    head = [c.strip() for c in rows[0].strip("|").split("|")]
    return [dict(zip(head, (c.strip() for c in r.strip("|").split("|")))) for r in rows[2:]]


def test_readme_table_of_figures_comes_before_install():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert text.index("## How good are the labels") < text.index("## Install")
    rows = _table("How good are the labels")
    labels = " ".join(r["label"] for r in rows)
    for what in ("precision", "accuracy", "sense accuracy", "α F1", "β F1", "exact", "parser"):
        assert what in labels
    command = ""
    for r in rows:
        command = r["command"] if r["command"] != "same" else command
        assert command.startswith("`logicparse ") and r["data"]


def _numbers(text: str) -> list[str]:
    return re.findall(r"\d+\.\d+", text)


def test_readme_figures_are_the_docs_figures():
    for r in _table("How good are the labels"):
        doc = (ROOT / re.search(r"\((docs/\w+\.md)\)", r["docs"]).group(1)).read_text("utf-8")
        stated = set(_numbers(doc))
        for cell in (r["default"], r["paper's literal behaviour"]):
            for figure in _numbers(cell):
                assert figure in stated, f"{figure} ({r['label']}) is not in {r['docs']}"


AREA_DOCS = sorted(p for p in (ROOT / "docs").glob("*.md") if p.name != "history.md")
HISTORY = ROOT / "docs" / "history.md"


@pytest.mark.parametrize("page", AREA_DOCS, ids=lambda p: p.name)
def test_area_docs_are_at_most_400_lines(page):
    """An area doc says what the code does today; past measurements go to docs/history.md."""
    lines = len(page.read_text(encoding="utf-8").splitlines())
    assert lines <= 400, f"{page.name} has {lines} lines (at most 400; the history goes to history.md)"


def _anchors(page: Path) -> set[str]:
    """The anchors GitHub gives the page's headings (code blocks left out)."""
    found, seen, code = set(), {}, False
    for line in page.read_text(encoding="utf-8").splitlines():
        code ^= line.startswith("```")
        heading = None if code else re.match(r"#+\s+(.*)", line)
        if heading:
            slug = re.sub(r"[^\w\- ]", "", heading.group(1).strip().lower()).replace(" ", "-")
            found.add(slug if slug not in seen else f"{slug}-{seen[slug]}")
            seen[slug] = seen.get(slug, 0) + 1
    return found


@pytest.mark.parametrize("name", ["senses.md", "modeling.md", "service.md", "layer.md", "keywords.md"])
def test_shortened_docs_link_their_history(name):
    """The docs whose past measurements moved to history.md link to them, at anchors that exist."""
    text = (ROOT / "docs" / name).read_text(encoding="utf-8")
    links = re.findall(r"\]\(history\.md(?:#([\w-]+))?\)", text)
    assert links, f"{name} does not link to history.md"
    anchors = _anchors(HISTORY)
    missing = [a for a in links if a and a not in anchors]
    assert not missing, f"{name} links to history.md anchors that are not there: {missing}"

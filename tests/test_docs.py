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

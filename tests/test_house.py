"""The package stays readable in pieces: no module of logicparse/ over 400 lines and no function
over 100 (a function's lines include the functions defined inside it)."""

import ast
from pathlib import Path

PACKAGE = Path(__file__).parents[1] / "logicparse"


def test_no_module_is_over_400_lines():
    long = {str(p.relative_to(PACKAGE)): n for p in PACKAGE.rglob("*.py")
            if (n := len(p.read_text(encoding="utf-8").splitlines())) > 400}
    assert long == {}


def test_no_function_is_over_100_lines():
    long = {}
    for p in PACKAGE.rglob("*.py"):
        for node in ast.walk(ast.parse(p.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                n = node.end_lineno - node.lineno + 1
                if n > 100:
                    long[f"{p.relative_to(PACKAGE)}:{node.name}"] = n
    assert long == {}


def test_tests_are_laid_out_like_the_package():
    """A test of a package folder lives in the folder of that name under tests/ (the fixtures and
    the tests of top-level modules stay at tests/)."""
    tests = Path(__file__).parent
    folders = {p.name for p in PACKAGE.iterdir() if (p / "__init__.py").is_file()}
    keywords = {"keywords": "senses"}  # the keyword decisions are the senses package's rules
    misplaced = []
    for p in tests.rglob("test_*.py"):
        area = p.stem.split("_")[1] if p.stem.count("_") else ""
        want = keywords.get(area, area if area in folders else None)
        where = p.parent.name if p.parent != tests else None
        if want != where:
            misplaced.append(str(p.relative_to(tests)))
    assert misplaced == []
    assert {p.parent.name for p in tests.glob("*/test_*.py")} <= folders

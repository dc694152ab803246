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

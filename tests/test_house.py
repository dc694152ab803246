"""The package stays readable in pieces: no module of logicparse/ or tests/ over 400 lines and no
function over 100 (a function's lines include the functions defined inside it)."""

import ast
from pathlib import Path

PACKAGE = Path(__file__).parents[1] / "logicparse"


def test_no_module_is_over_400_lines():
    long = {str(p.relative_to(PACKAGE)): n for p in PACKAGE.rglob("*.py")
            if (n := len(p.read_text(encoding="utf-8").splitlines())) > 400}
    assert long == {}


def test_no_test_module_is_over_400_lines():
    tests = Path(__file__).parent
    long = {str(p.relative_to(tests)): n for p in tests.rglob("*.py")
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


def _module(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports() -> dict[str, set[str]]:
    """Each module of the package -> the package's modules it imports, anywhere in its body:
    at module level, inside functions (a lazy import is a circle that waits for its first call)
    and under ``if TYPE_CHECKING``. Relative imports are resolved; ``from . import x`` names
    module x when there is one, else the package's ``__init__``. A module's import of its own
    package's ``__init__`` counts (the ``__init__`` may import it back); the implicit import of
    the parent package that every submodule import makes does not."""
    modules = {_module(p): p for p in PACKAGE.rglob("*.py")}
    graph: dict[str, set[str]] = {m: set() for m in modules}
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom):
                base = package.split(".")
                base = base[:len(base) - node.level + 1] if node.level else []
                target = ".".join(base + ([node.module] if node.module else []))
                found = {f"{target}.{a.name}" if f"{target}.{a.name}" in modules else target
                         for a in node.names}
            elif isinstance(node, ast.Import):
                found = {a.name for a in node.names}
            else:
                continue
            graph[name] |= {m for m in found if m in modules and m != name}
    return graph


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """One circle through each strongly connected group of more than one module (Tarjan), as
    the modules in import order, the first again at the end."""
    index, low, stack, on, groups = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = set()
            while True:
                w = stack.pop()
                on.discard(w)
                group.add(w)
                if w == v:
                    break
            if len(group) > 1:
                groups.append(group)

    for v in sorted(graph):
        if v not in index:
            visit(v)
    out = []
    for group in groups:  # the shortest way from the group's first module back to it
        start = min(group)
        paths, seen = [[start]], {start}
        while paths:
            path = paths.pop(0)
            nxt = sorted(graph[path[-1]] & group)
            if start in nxt:
                out.append(path + [start])
                break
            for w in nxt:
                if w not in seen:
                    seen.add(w)
                    paths.append(path + [w])
    return sorted(out)


def test_no_module_imports_one_that_imports_it_back():
    """No import circle in logicparse/: a newcomer follows each module's imports downward,
    never back (imports inside functions count too)."""
    found = [" -> ".join(c) for c in circles(imports())]
    assert found == [], "import circles:\n" + "\n".join(found)


def test_the_circle_check_finds_a_circle_and_reads_relative_imports():
    graph = imports()
    assert "logicparse.batch.records" in graph["logicparse.batch.inputs"]  # from . import a, b
    assert "logicparse.batch.filetypes" in graph["logicparse.batch.inputs"]
    assert "logicparse.errors" in graph["logicparse.batch.records"]  # from ..errors import
    assert "logicparse.parser.onnx_network" in graph["logicparse.parser.runtime"]  # in a function
    assert circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c", "a"]]
    assert circles({"p": {"p.x"}, "p.x": {"p"}, "q": set()}) == [["p", "p.x", "p"]]

"""``logicparse keywords``: how right are the relations the Annotator emits for keyword occurrences."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Optional

import typer

from ..resources import ANNOTATIONS_DIR
from .senses import _say

keywords_app = typer.Typer(
    rich_markup_mode=None,
    help="Keyword decisions (the relation each keyword occurrence signals, or none): evaluate "
    "them on hand-labelled occurrences.", no_args_is_help=True)


@keywords_app.command("eval")
def evaluate(
    data: Path = typer.Option(ANNOTATIONS_DIR / "keywords_dev.jsonl",
                              help="Hand-labelled occurrences (JSONL; each with its sentence's "
                              "tree unless --trees parser)."),
    senses: str = typer.Option("default", help="'default' (tree rules + bundled classifiers), "
                               "'rules' (no encoder), 'mpnet' (rules + the all-mpnet-base-v2 "
                               "classifiers of logicparse[mpnet]), 'none' (every keyword its "
                               "lexicon sense, the paper's literal behaviour), or a sense model "
                               "directory."),
    trees: str = typer.Option("stored", help="'stored': the trees in the data file (treebank "
                              "trees); 'parser': parse each sentence with --parser, as the "
                              "Annotator does; or a file written by --save-trees (one tree per "
                              "line, in the data file's order: parse once, evaluate again)."),
    parser: str = typer.Option("default", help="Parser for --trees parser."),
    device: str = typer.Option("cpu"),
    errors_out: Optional[Path] = typer.Option(None, "--errors", help="Write the wrongly decided "
                                              "occurrences to this JSONL file."),
    save_trees: Optional[Path] = typer.Option(None, "--save-trees", help="Write the trees the "
                                              "decisions read (one per line) to this file, for "
                                              "--trees FILE."),
) -> None:
    """Accuracy, precision of the emitted relations and recall, overall and per keyword, with the
    lexicon baseline (every keyword always its first relation) beside them. Per-keyword lines go
    to stderr; the last stdout line is one JSON object."""
    from ..errors import Errors, LogicparseError
    from ..senses import load_senses
    from ..senses.data import read_annotations
    from ..senses.scoring import decide_annotations, errors, score
    from ..trees import read_tree

    anns = read_annotations([data])
    if trees == "parser":
        from ..parser import load_parser

        p = load_parser(parser, device=device)
        parsed = list(p.parse([a.text.split(" ") for a in anns]))
    elif trees == "stored":
        missing = [i + 1 for i, a in enumerate(anns) if not a.tree]
        if missing:
            raise LogicparseError(Errors.E215.format(path=data, lines=missing[:5]))
        parsed = [read_tree(a.tree) for a in anns]
    elif Path(trees).is_file():
        parsed = _read_saved(Path(trees), data, anns)
    else:
        raise LogicparseError(Errors.E214.format(value=trees))
    if save_trees:
        save_trees.write_text("".join(t.to_string() + "\n" for t in parsed), encoding="utf-8")
    model = load_senses(senses, device=device)
    decisions = decide_annotations(model, anns, parsed)
    result = score(anns, decisions)
    if errors_out:
        errors_out.write_text("".join(json.dumps(e, ensure_ascii=False) + "\n"
                                      for e in errors(anns, decisions)), encoding="utf-8")
    for kw, r in [*result["per_keyword"].items(), ("all", result)]:
        lex = r["lexicon"]
        _say(f"{kw:>18}: n={r['n']:<3} " + "  ".join(
            f"{m} {_f(r[m])} (lexicon {_f(lex[m])})" for m in ("accuracy", "precision", "recall"))
            + (f"  {r['sources']}" if kw != "all" else ""))
    typer.echo(json.dumps({"data": str(data), "senses": senses, "trees": trees, **result}))


@keywords_app.command("build-tmp")
def build_tmp(
    treebank: Path = typer.Option(..., help="Penn Treebank file with function tags (e.g. the NLTK "
                                  "WSJ sample, nltk_wsj_sample.mrg)."),
    out: Path = typer.Option(Path("ptb_tmp_in.jsonl"), help="JSONL file to write (the bundled "
                             "logicparse/annotations/ptb_tmp_in.jsonl only when named here)."),
    keywords: str = typer.Option("in", help="Comma-separated keywords whose only relation is "
                                 "temporal (in, during): -TMP is temporal, no -TMP is none."),
) -> None:
    """Label keyword occurrences from the treebank's -TMP function tags (a keyword heading a
    PP/SBAR/ADVP tagged -TMP: temporal; otherwise none), each with its tree, for training and
    measuring the decisions (`keywords eval --data OUT`)."""
    import collections

    from ..senses.data import ptb_tmp_annotations, write_annotations
    from .senses import _keywords

    anns = ptb_tmp_annotations(treebank, _keywords(keywords))
    n = write_annotations(out, anns)
    counts = collections.Counter((a.keyword, a.label) for a in anns)
    _say(f"{out}: {n} occurrences; " + ", ".join(f"{k} {lab}={c}" for (k, lab), c in sorted(counts.items())))
    typer.echo(json.dumps({"out": str(out), "n": n,
                           "labels": {f"{k}:{lab}": c for (k, lab), c in sorted(counts.items())}}))


def _read_saved(path: Path, data: Path, anns) -> list:
    """Trees from a --save-trees file, checked against the occurrences they belong to."""
    from ..errors import Errors, LogicparseError
    from ..trees import read_tree

    lines = [line for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    if len(lines) != len(anns):
        raise LogicparseError(Errors.E219.format(
            path=path, data=data, reason=f"{len(lines)} trees for {len(anns)} occurrences"))
    out = []
    for n, (line, a) in enumerate(zip(lines, anns), 1):
        tree = read_tree(line)
        if tree.leaves != a.text.split(" "):
            raise LogicparseError(Errors.E219.format(
                path=path, data=data, reason=f"tree {n} is not over the words of occurrence {n}"))
        out.append(tree)
    return out


def _f(x) -> str:
    return "  -  " if x is None else f"{x:.3f}"


def register(app: typer.Typer) -> None:
    app.add_typer(keywords_app, name="keywords")

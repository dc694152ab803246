"""`logicparse mapping eval`: α/β mapping against GDTB gold arguments."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Optional

import typer

from ..terminal import safe

mapping_app = typer.Typer(help="Evaluate the α/β mapping against GDTB's annotated arguments.",
                          no_args_is_help=True, rich_markup_mode=None)


@mapping_app.command("eval")
def eval_(
    gdtb: Path = typer.Option(..., "--gdtb", help="GDTB directory (raw/, gold/, const/, SPLITS.json)."),
    trees: str = typer.Option("gold", "--trees", help="'gold': map over DIR/const/ trees (mapping "
                              "measured apart from the parser); 'parser': parse the same tokens; "
                              "or a directory of DOC.mrg files (one tree per line, one line per "
                              "sentence of const/, as --save-trees writes)."),
    parser: str = typer.Option("default", "--parser", help="Parser for --trees parser: 'default', "
                               "a benepar model name, or a path."),
    save_trees: Optional[Path] = typer.Option(
        None, "--save-trees", help="Write the trees mapped over to DIR/DOC.mrg, so that a later "
        "run can take --trees DIR instead of parsing again."),
    mapping: str = typer.Option("default", "--mapping", help="'default' (α/β widened to the "
                                "arguments measured better on GDTB), 'paper' (Algorithm 1 "
                                "exactly) or 'learned' (the default's spans or a candidate the "
                                "bundled classifier scores higher)."),
    errors: Optional[Path] = typer.Option(
        None, "--errors", help="Write every relation not matched exactly to FILE, one JSON object "
        "a line (sentence, tree, predicted and gold spans, missing and extra tokens)."),
    split: Optional[str] = typer.Option("dev", "--split", help="Split of SPLITS.json to score; "
                                        "'all' for every document."),
    model: Optional[Path] = typer.Option(
        None, "--model", help="For --mapping learned: the model directory 'mapping train --out' "
        "wrote (the bundled model by default)."),
) -> None:
    """Compare mapped α with Arg1 and β with Arg2 for every Explicit GDTB relation whose connective
    is a taxonomy keyword (α with Arg2 for unary relations). Token precision/recall/F1 and exact
    match, overall and per relation, per mapping category, per keyword position
    (sentence-initial or medial), per place of the gold α (the keyword's sentence, the one
    before, earlier ones), per place of the gold and the mapped α together, per place of the gold
    β, and per category and label of the constituent the keyword attaches to. Prints progress on
    stderr and one JSON object as the last stdout line."""
    from ..gdtb import read_gdtb
    from ..mapping import MAPPINGS
    from ..scorer import evaluate_mapping

    if mapping not in MAPPINGS:
        raise typer.BadParameter(f"{mapping!r} is not one of {', '.join(map(repr, MAPPINGS))}.",
                                 param_hint="'--mapping'")
    arguments = None
    if model is not None:
        from ..argument_model import load_argument_model

        if mapping != "learned":
            raise typer.BadParameter("a model is used by --mapping learned only.",
                                     param_hint="'--model'")
        chosen = load_argument_model(str(model))
        arguments = lambda doc: chosen  # noqa: E731
    doc_trees = _tree_files(trees)
    docs = read_gdtb(gdtb, None if split == "all" else split)
    p = _parser(trees, parser)
    done = [0]

    def progress(name: str) -> None:
        done[0] += 1
        print(f"[{done[0]}/{len(docs)}] {safe(name)}", file=sys.stderr, flush=True)

    misses: Optional[list] = [] if errors is not None else None
    result = evaluate_mapping(docs, parser=p, progress=progress, mapping=mapping,
                              trees=doc_trees, errors=misses,
                              save_trees=save_trees, arguments=arguments)
    if errors is not None:
        errors.parent.mkdir(parents=True, exist_ok=True)
        with errors.open("w", encoding="utf-8") as f:
            for m in misses:
                f.write(json.dumps(m, ensure_ascii=False) + "\n")
        print(f"{len(misses)} misses written to {errors}", file=sys.stderr)
    result.update({"trees": trees, "split": split})
    print(json.dumps(result))


@mapping_app.command("train")
def train(
    gdtb: Path = typer.Option(..., "--gdtb", help="GDTB directory (raw/, gold/, const/, SPLITS.json)."),
    out: Optional[Path] = typer.Option(
        None, "--out", help="Directory to write the model to (alpha.txt, beta.txt, meta.json); "
        "logicparse/models/arguments is the bundled one; 'mapping eval --model DIR' scores "
        "another."),
    trees: str = typer.Option("gold", "--trees", help="Trees to learn from: 'gold' (DIR/const/), "
                              "'parser' (parse the same tokens), or a directory of DOC.mrg files "
                              "as 'mapping eval --save-trees' writes. The bundled model learnt "
                              "from the bundled parser's trees."),
    split: str = typer.Option("train", "--split", help="Split of SPLITS.json to learn from; "
                              "'all' for every document."),
    seed: int = typer.Option(0, "--seed", help="Seed of the classifiers (same data and seed, "
                             "same model)."),
    folds: Optional[int] = typer.Option(
        None, "--folds", min=2, help="Also score the choice by K-fold cross-validation over the "
        "split's documents (each mapped by a model fitted on the other folds): the figures of "
        "'mapping eval', under \"folds\" in the JSON line."),
) -> None:
    """Fit the learned α/β choice (--mapping learned) on GDTB's annotated arguments: one
    classifier per role scores the candidate spans of each relation the rules map. Give --out to
    write the model, --folds K to score it on the split by cross-validation, or both. Prints
    progress on stderr, then one JSON object as the last stdout line."""
    from ..argument_training import cross_validate, fit, gdtb_examples, parsed_trees, save
    from ..gdtb import read_gdtb

    if out is None and folds is None:
        raise typer.BadParameter("give --out DIR to write the model, --folds K to score it by "
                                 "cross-validation, or both.", param_hint="'--out'")
    trees_of = _tree_files(trees)
    docs = read_gdtb(gdtb, None if split == "all" else split)
    parser = _parser(trees, "default")
    if parser is not None:  # parsed once, for the folds and the model alike
        trees_of = parsed_trees(docs, parser)
    report: dict = {}
    if folds is not None:
        if folds > len(docs):
            raise typer.BadParameter(f"{folds} folds of {len(docs)} documents: give at most "
                                     f"{len(docs)}.", param_hint="'--folds'")
        report["folds"] = cross_validate(
            docs, folds, trees_of, seed,
            lambda k: print(f"fold {k + 1}/{folds} fitted", file=sys.stderr, flush=True), gdtb)
        if out is None:
            print(json.dumps(report))
            return
    examples = gdtb_examples(docs, trees_of)
    if not examples:
        from ..errors import DataFormatError, Errors

        raise DataFormatError(Errors.E532.format(path=gdtb, split=split,
                                                 detail=" (no relation the annotator maps)"))
    print(f"{len(examples)} relations from {len(docs)} documents", file=sys.stderr)
    estimators, codes = fit(examples, seed)
    source = trees if trees in ("gold", "parser") else "directory"
    save(out, estimators, codes, {"split": split, "trees": source, "seed": seed,
                                  "relations": len(examples)})
    meta = json.loads((out / "meta.json").read_text(encoding="utf-8"))
    print(json.dumps({"out": str(out), "relations": len(examples), "files": meta["files"],
                      **report}))


def _tree_files(trees: str):
    """For ``--trees DIR``: a function from a document to the trees of ``DIR/DOC.mrg`` (one a
    line); None for 'gold' and 'parser'."""
    if trees in ("gold", "parser"):
        return None
    tree_dir = Path(trees)
    if not tree_dir.is_dir():
        raise typer.BadParameter(f"{trees!r} is not 'gold', 'parser' or a directory of DOC.mrg "
                                 "files.", param_hint="'--trees'")

    def doc_trees(doc) -> list[str]:
        text = (tree_dir / f"{doc.name}.mrg").read_text(encoding="utf-8")
        return [line for line in text.splitlines() if line.strip()]

    return doc_trees


def _parser(trees: str, name: str):
    """The parser to map over for ``--trees parser``, else None."""
    if trees != "parser":
        return None
    from ..parser import load_parser

    return load_parser(name)


def register(app: typer.Typer) -> None:
    app.add_typer(mapping_app, name="mapping")

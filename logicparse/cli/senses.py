"""``logicparse senses``: build annotations, train, evaluate and plot the sense classifiers."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import List, Optional

import typer

from ..resources import ANNOTATIONS_DIR, SENSE_KEYWORDS
from ..terminal import safe

DEFAULT_KEYWORDS = "since,as,while"  # the paper's three: what `eval` scores by default
BUNDLED_KEYWORDS = ",".join(SENSE_KEYWORDS)  # what logicparse/models/senses/ holds

senses_app = typer.Typer(
    rich_markup_mode=None,
    help="Sense disambiguation of ambiguous keywords (since, as, while, ...): build labelled "
    "occurrences from GDTB, train one SVM per keyword over encoder vectors, evaluate, plot.",
    no_args_is_help=True)


def _keywords(value: str) -> list[str]:
    from ..errors import Errors, LogicparseError
    from ..taxonomy import keywords

    out = [k.strip().lower() for k in value.split(",") if k.strip()]
    for k in out:
        if k not in keywords():
            raise LogicparseError(Errors.E213.format(keyword=k, opts=", ".join(sorted(keywords()))))
    return out


def _say(msg: str) -> None:
    typer.echo(safe(msg, lines=True), err=True)


@senses_app.command("build-annotations")
def build_annotations(
    gdtb: Path = typer.Option(..., help="GDTB directory (raw/, gold/, const/, SPLITS.json)."),
    out: Path = typer.Option(Path("annotations"), help="Where to write gdtb_<split>.jsonl (the "
                             "installed package is never written unless named here)."),
    keywords: str = typer.Option("since,as,while,then,yet,like,in",
                                 help="Comma-separated keywords to collect."),
    splits: str = typer.Option("train,dev", help="Comma-separated splits of SPLITS.json."),
) -> None:
    """Label every occurrence of the keywords in GDTB with the fixed gold mapping (docs/senses.md),
    relabel `since` heading a time expression as temporal (the keyword guide; GDTB marks clausal
    connectives only) and write one JSONL file per split; also turn OUT/hand.tsv (hand-labelled
    sentences) into OUT/hand.jsonl."""
    import collections
    import dataclasses

    from ..gdtb import read_gdtb
    from ..senses.data import gdtb_annotations, read_hand, relabel_since, write_annotations

    if (out / "hand.tsv").is_file():
        n = write_annotations(out / "hand.jsonl", read_hand(out / "hand.tsv"))
        _say(f"{out / 'hand.jsonl'}: {n} hand-labelled occurrences")

    kws = _keywords(keywords)
    for split in [s.strip() for s in splits.split(",") if s.strip()]:
        anns, relabelled = relabel_since(gdtb_annotations(read_gdtb(gdtb, split), kws,
                                                          f"gdtb:{split}", trees=True))
        path = out / f"gdtb_{split}.jsonl"
        n = write_annotations(path, [dataclasses.replace(a, tree="") for a in anns])
        counts = collections.Counter((a.keyword, a.label) for a in anns)
        _say(f"{path}: {n} occurrences ({relabelled} 'since' + time expression relabelled temporal)")
        for kw in kws:
            _say(f"  {kw}: " + ", ".join(f"{lab}={c}" for (k, lab), c in sorted(counts.items())
                                        if k == kw))


@senses_app.command("train")
def train(
    annotations: List[Path] = typer.Option(
        [ANNOTATIONS_DIR / "gdtb_train.jsonl", ANNOTATIONS_DIR / "hand.jsonl"],
        help="Annotation JSONL files (repeat the option). Never the dev split. An occurrence "
        "labelled in several files takes its label from the last."),
    keywords: str = typer.Option(BUNDLED_KEYWORDS, help="Comma-separated keywords to model "
                                 "(default: the bundled set)."),
    encoder: str = typer.Option("default", help="'default' (all-MiniLM-L6-v2, offline), a local "
                                "Hugging Face name such as albert-base-v2, or a model directory."),
    out: Path = typer.Option(Path("senses-model"), help="Model directory to write (the bundled "
                             "models are replaced only when their folder is named here)."),
    device: str = typer.Option("cpu"),
    folds: int = typer.Option(5, help="Cross-validation folds for layer/pooling/SVM selection."),
    repeats: int = typer.Option(3, help="Cross-validation repeats (differently shuffled folds)."),
    window: int = typer.Option(64, help="Subwords around the keyword that are encoded (0: the "
                               "encoder's limit); recorded with the models and used at annotation."),
    keep: bool = typer.Option(False, "--keep", help="Keep the models OUT already holds for the "
                              "keywords not given (trained for the same encoder), e.g. retrain "
                              "'while,yet' and keep the other bundled models."),
) -> None:
    """Train one SVM per keyword; layer, pooling, kernel and C by cross-validation."""
    from ..senses.data import merge_annotations, read_annotations
    from ..senses.features import Encoder
    from ..senses.train import train_models

    anns = merge_annotations(read_annotations([p for p in annotations]))
    # The trained weights' vectors (an int8 encoder's differ a little): the models then decide
    # the same in either precision but for a few occurrences (docs/senses.md).
    encoder = Encoder(encoder, device=device, precision="fp32")
    meta = train_models(anns, encoder, _keywords(keywords), out, folds=folds,
                        repeats=repeats, window=window or None, progress=sys.stderr.isatty(), say=_say,
                        keep=keep)
    typer.echo(json.dumps({"out": str(out), "cv_accuracy": {k: v["cv_accuracy"] for k, v in
                                                             meta["keywords"].items()}}))


@senses_app.command("eval")
def evaluate(
    gdtb: Path = typer.Option(..., help="GDTB directory (raw/, gold/, const/, SPLITS.json)."),
    split: str = typer.Option("dev", help="Split to evaluate on."),
    models: str = typer.Option("default", help="'default' (bundled logicparse/models/senses/) or a model directory."),
    keywords: str = typer.Option(DEFAULT_KEYWORDS, help="Comma-separated keywords to score."),
    rules: bool = typer.Option(True, help="Decide as the Annotator does: the tree rules first "
                               "(on GDTB's trees), then the classifiers. --no-rules scores the "
                               "classifiers alone."),
    trees: str = typer.Option("stored", help="Trees the rules read: 'stored' (GDTB's const/ "
                              "trees) or 'parser' (each sentence parsed with --parser, as the "
                              "Annotator does). Gold labels are fixed on GDTB's trees either way."),
    parser: str = typer.Option("default", help="Parser for --trees parser."),
    device: str = typer.Option("cpu"),
    errors_out: Optional[Path] = typer.Option(None, "--errors", help="Write misclassified "
                                              "occurrences to this JSONL file."),
) -> None:
    """Accuracy on GDTB gold (fixed mapping; `since` heading a time expression relabelled
    temporal, as the keyword guide has it) against the majority-per-keyword baseline. The last
    stdout line is one JSON object: accuracy, majority_baseline, lexicon_baseline, n,
    relabelled, per_keyword (accuracy, baselines, sources, confusion matrix with rows gold and
    columns predicted)."""
    from ..errors import Errors, LogicparseError
    from ..gdtb import read_gdtb
    from ..senses import load_senses
    from ..senses.data import gdtb_annotations, relabel_since
    from ..senses.train import errors, evaluate as run_eval

    if trees not in ("stored", "parser"):
        raise LogicparseError(Errors.E214.format(value=trees))
    kws = _keywords(keywords)
    anns, relabelled = relabel_since(gdtb_annotations(read_gdtb(gdtb, split), kws,
                                                      f"gdtb:{split}", trees=True))
    _say(f"relabelled {relabelled} occurrence(s) of 'since' heading a time expression: none -> "
         "temporal")
    if trees == "parser":
        anns = _with_parser_trees(anns, parser, device)
    model = load_senses(models, device=device, rules=rules)
    result = run_eval(model, anns, kws)
    if errors_out:
        errors_out.write_text("".join(json.dumps(e, ensure_ascii=False) + "\n"
                                      for e in errors(model, anns)), encoding="utf-8")
    for kw, r in result["per_keyword"].items():
        _say(f"{kw:>6}: accuracy {r['accuracy']:.3f}  majority {r['majority_baseline']:.3f}  "
             f"n={r['n']}  {r['sources']}")
    typer.echo(json.dumps({**result, "relabelled": relabelled, "rules": rules, "trees": trees}))


def _with_parser_trees(anns, parser: str, device: str):
    """The annotations with each sentence's tree replaced by the parser's (one parse per
    sentence, however many occurrences it holds)."""
    import dataclasses

    from ..parser import load_parser

    sentences = sorted({a.text for a in anns})
    parsed = load_parser(parser, device=device).parse([s.split(" ") for s in sentences])
    tree = {s: t.to_string() for s, t in zip(sentences, parsed)}
    return [dataclasses.replace(a, tree=tree[a.text]) for a in anns]


@senses_app.command("plot")
def plot(
    out: Path = typer.Option(Path("since_pca.png"), help="PNG file to write."),
    keyword: str = typer.Option("since", help="Keyword whose vectors are plotted."),
    annotations: List[Path] = typer.Option(
        [ANNOTATIONS_DIR / "gdtb_train.jsonl", ANNOTATIONS_DIR / "hand.jsonl"],
        help="Annotation JSONL files (repeat the option)."),
    models: str = typer.Option("default", help="Model directory whose layer/pooling/encoder to use."),
    device: str = typer.Option("cpu"),
) -> None:
    """Figure 2 of the paper: 2-D PCA of the keyword's vectors, coloured by gold sense."""
    from ..senses.classifier import load_senses
    from ..senses.data import read_annotations
    from ..senses.plot import pca_figure

    kw = _keywords(keyword)[0]
    model = load_senses(models, device=device)
    anns = [a for a in read_annotations(annotations) if a.keyword == kw]
    pca_figure(model, anns, kw, out)
    typer.echo(json.dumps({"out": str(out), "keyword": kw, "n": len(anns)}))


def register(app: typer.Typer) -> None:
    app.add_typer(senses_app, name="senses")

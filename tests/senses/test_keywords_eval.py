"""``logicparse keywords eval``: known answers on a tiny hand-computed fixture, the committed dev
set, and clear errors for bad input."""

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from logicparse.resources import ANNOTATIONS_DIR
from logicparse.senses.data import Annotation, read_annotations, write_annotations

TINY = Path(__file__).parents[1] / "fixtures" / "keywords" / "tiny.jsonl"


def run(*args):
    from logicparse.cli import _register, app

    _register()
    res = CliRunner().invoke(app, ["keywords", "eval", *args])
    return res, (json.loads(res.stdout.strip().splitlines()[-1]) if res.exit_code == 0 else None)


def test_known_answer_rules_and_lexicon():
    """Eight occurrences (tests/fixtures/keywords/tiny.jsonl), decided by the tree rules:
    right: in Paris -> none, in 1998 -> temporal, I like -> none, fruits like -> example,
    if ... then -> none, works like -> analogy, looks like a resort -> analogy (a resemblance,
    not the evidential 'looks like sixteen'); wrong: 'As it rained' (causal; the rule leaves a
    clause to the classifier, and there is none: the lexicon's temporal).
    accuracy 7/8; emitted 5 (in 1998, fruits like, works like, looks like, As), 4 right:
    precision 4/5; 5 gold relations, 4 found: recall 4/5. The lexicon emits all 8, 2 right
    (in 1998, fruits like): 2/8, 2/8, 2/5."""
    res, out = run("--data", str(TINY), "--senses", "rules")
    assert res.exit_code == 0, res.output
    assert (out["accuracy"], out["precision"], out["recall"]) == (0.875, 0.8, 0.8)
    assert (out["n"], out["correct"], out["emitted"], out["emitted_right"],
            out["gold_relations"]) == (8, 7, 5, 4, 5)
    lex = out["lexicon"]
    assert (lex["accuracy"], lex["precision"], lex["recall"]) == (0.25, 0.25, 0.4)
    assert out["sources"] == {"rule": 7, "lexicon": 1}
    like = out["per_keyword"]["like"]
    # like: 4 of 4 right; emitted 3 (example, analogy, analogy), all right; 3 gold relations, 3 found.
    assert (like["accuracy"], like["precision"], like["recall"]) == (1.0, 1.0, 1.0)
    assert (like["lexicon"]["accuracy"], like["lexicon"]["precision"],
            like["lexicon"]["recall"]) == (0.25, 0.25, 0.3333)
    assert like["sources"] == {"rule": 4}
    # then: nothing emitted and nothing to find: precision and recall are undefined, not 0.
    then = out["per_keyword"]["then"]
    assert (then["accuracy"], then["precision"], then["recall"]) == (1.0, None, None)


def test_senses_none_is_the_lexicon():
    res, out = run("--data", str(TINY), "--senses", "none")
    assert res.exit_code == 0, res.output
    assert {k: out[k] for k in ("accuracy", "precision", "recall")} == \
        {k: out["lexicon"][k] for k in ("accuracy", "precision", "recall")}
    assert out["sources"] == {"lexicon": 8}


def test_errors_file_lists_the_wrong_ones(tmp_path):
    err = tmp_path / "err.jsonl"
    res, _ = run("--data", str(TINY), "--senses", "rules", "--errors", str(err))
    assert res.exit_code == 0, res.output
    rows = [json.loads(line) for line in err.read_text().splitlines()]
    assert rows == [{"keyword": "as", "gold": "causal", "predicted": "temporal", "source": "lexicon",
                     "doc": "tiny", "context": "[As] it rained , we stayed ."}]


def test_error_context_is_80_characters_before_and_60_after():
    from logicparse.senses import SenseDecision
    from logicparse.senses.scoring import errors

    text = "x " * 50 + "since" + " y" * 35  # 100 characters before 'since', 70 after
    a = Annotation("since", text, 100, 105, "causal", "hand", doc="long")
    right, wrong = SenseDecision("causal", 0.9, "classifier"), SenseDecision(None, 0.6, "classifier")
    assert errors([a, a], [right, wrong]) == [
        {"keyword": "since", "gold": "causal", "predicted": "none", "source": "classifier",
         "doc": "long", "context": "x " * 40 + "[since]" + " y" * 30}]
    # fewer than 80 characters before it: the context starts at the text's first character
    short = Annotation("since", "Ok since then", 3, 8, "temporal", "hand", doc="short")
    assert errors([short], [wrong])[0]["context"] == "Ok [since] then"


def test_committed_dev_set_is_stratified_and_complete():
    anns = read_annotations([ANNOTATIONS_DIR / "keywords_dev.jsonl"])
    assert len(anns) >= 300
    assert all(a.tree and a.source == "hand:gdtb-dev" for a in anns)
    kws = {a.keyword for a in anns}
    assert {"in", "like", "when", "if", "as", "since", "while", "then", "yet", "before",
            "after", "until", "no"} <= kws and len(kws) >= 50
    assert max(sum(a.keyword == k for a in anns) for k in kws) <= 40  # no keyword dominates


def test_missing_tree_and_bad_tree_source_are_clear_errors(tmp_path):
    path = tmp_path / "no_tree.jsonl"
    write_annotations(path, [Annotation("in", "in 1990", 0, 2, "temporal", "hand")])
    res, _ = run("--data", str(path), "--senses", "rules")
    assert res.exit_code == 2
    assert "[E215]" in res.output
    assert "no_tree.jsonl has occurrences without a tree (lines [1])" in res.output
    assert "--trees parser" in res.output
    res, _ = run("--data", str(TINY), "--senses", "rules", "--trees", "gold")
    assert res.exit_code == 2 and "[E214] Unknown tree source 'gold'" in res.output


def test_ptb_tmp_labels_from_function_tags(tmp_path):
    """`in` heading a -TMP phrase is temporal, any other `in` none; traces are dropped and each
    occurrence keeps its tree; the command writes them and the rules can be scored on them."""
    from logicparse.senses.data import ptb_tmp_annotations

    src = Path(__file__).parents[1] / "fixtures" / "keywords" / "tmp_sample.mrg"
    anns = ptb_tmp_annotations(src)
    assert [(a.text[a.char_start:a.char_end + 5], a.label) for a in anns] == [
        ("in its ", "none"), ("in 1956", "temporal"), ("in heav", "none"), ("in clos", "temporal")]
    assert anns[0].text == "Lorillard stopped using crocidolite in its filters in 1956 ."
    assert "-NONE-" not in anns[0].tree and "PP-TMP" in anns[0].tree

    from logicparse.cli import _register, app

    _register()
    out = tmp_path / "tmp.jsonl"
    res = CliRunner().invoke(app, ["keywords", "build-tmp", "--treebank", str(src), "--out", str(out)])
    assert res.exit_code == 0, res.output
    assert json.loads(res.stdout.strip().splitlines()[-1])["labels"] == {"in:none": 2, "in:temporal": 2}
    assert read_annotations([out]) == anns
    res, scored = run("--data", str(out), "--senses", "rules")
    # The rule: 'in its filters' none, 'in 1956' temporal, 'in heavy trading' none; 'in closing'
    # (a clause, no time word) none: 3 of 4.
    assert res.exit_code == 0 and scored["correct"] == 3 and scored["n"] == 4


def test_saved_trees_give_the_same_scores_and_are_checked(tmp_path):
    """--save-trees writes the trees the decisions read; --trees FILE reads them back (parse
    once, evaluate again) with the same figures; a file of the wrong length or over other words
    is refused (E219)."""
    saved = tmp_path / "tiny.trees"
    res, first = run("--data", str(TINY), "--senses", "rules", "--save-trees", str(saved))
    assert res.exit_code == 0, res.output
    assert len(saved.read_text().splitlines()) == 8
    res, again = run("--data", str(TINY), "--senses", "rules", "--trees", str(saved))
    assert res.exit_code == 0, res.output
    assert {k: v for k, v in again.items() if k != "trees"} == {k: v for k, v in first.items()
                                                                 if k != "trees"}
    short = tmp_path / "short.trees"
    short.write_text("\n".join(saved.read_text().splitlines()[:7]) + "\n")
    res, _ = run("--data", str(TINY), "--senses", "rules", "--trees", str(short))
    assert res.exit_code == 2 and "[E219]" in res.output and "7 trees for 8 occurrences" in res.output
    swapped = tmp_path / "swapped.trees"
    lines = saved.read_text().splitlines()
    swapped.write_text("\n".join([lines[1], lines[0], *lines[2:]]) + "\n")
    res, _ = run("--data", str(TINY), "--senses", "rules", "--trees", str(swapped))
    assert res.exit_code == 2 and "tree 1 is not over the words of occurrence 1" in res.output


def test_the_default_annotators_added_keywords_are_decided_and_scored():
    # 'whereas' is not in the paper's lists, only in the default annotator's extensions
    from logicparse.senses.scoring import decide_annotations, score

    text = "He stayed whereas she left ."
    start = text.index("whereas")
    a = Annotation(keyword="whereas", text=text, char_start=start, char_end=start + 7,
                   label="comparative", source="test", doc="d")
    (dec,) = decide_annotations(None, [a])
    assert (dec.relation, dec.source) == ("comparative", "lexicon")
    out = score([a], [dec])
    assert out["per_keyword"]["whereas"]["accuracy"] == 1.0
    assert out["per_keyword"]["whereas"]["lexicon"]["accuracy"] == 1.0

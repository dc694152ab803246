"""Draw the keyword occurrences of the dialogue development set and its blind part, unlabelled.

    python tools/dialogue_keywords.py --dream DIR --dialogsum DIR --out DIR
    python tools/dialogue_keywords.py --passes PASS_A PASS_B --out DIR --trees

Reads DREAM's dialogues (``train.json``, ``dev.json``, ``test.json``) and DialogSum's
(``dialogsum.dev.jsonl``, ``dialogsum.test.jsonl``), drops the speaker tags (``M:``, ``W:``,
``#Person1#:``), splits each turn into sentences as the Annotator does (spaCy's sentencizer),
keeps sentences of 4-55 tokens, and collects every keyword the default annotator's matcher finds
(``mapping.find_keywords(extended=True)``). The dialogues are split once, with
``random.Random(2911)``, two thirds for development and one third kept aside (the blind part);
each part is sampled per keyword, in sorted order, with ``random.Random(2912)`` and the quotas
below (the blind part half of each, at least 2). A sentence that occurs in both parts (a greeting, "I see what you mean") is left out of the
blind part. Writes ``dialogue_dev.unlabelled.jsonl`` and ``dialogue_blind.unlabelled.jsonl``: one
``Annotation`` per occurrence with ``label`` empty. ``--passes`` merges two labelled passes of
those files: the occurrences both label alike are kept (``dialogue_dev.jsonl``,
``dialogue_blind.jsonl``) and the agreement and Cohen's kappa printed; ``--trees`` adds the
bundled parser's tree of each sentence.
"""

from __future__ import annotations

import argparse
import json
import random
import re
from collections import defaultdict
from pathlib import Path

from logicparse.mapping import find_keywords
from logicparse.segmentation import load_spacy
from logicparse.senses.data import Annotation, write_annotations

# Up to 8 of each keyword; more of those that vary most in conversation.
QUOTA = {"but": 25, "as": 25, "then": 25, "if": 20, "or": 15, "in": 15, "when": 15,
         "while": 12, "after": 12, "like": 12, "since": 12, "yet": 8, "not": 15, "no": 10,
         "and": 15, "because": 10, "before": 10, "otherwise": 8}
DEFAULT_QUOTA = 8
BLIND_SHARE = 1 / 3
BLIND_QUOTA_SHARE = 0.5  # the blind part: half of each quota
MIN_TOKENS, MAX_TOKENS = 4, 55
_SPEAKER = re.compile(r"^\s*(?:#Person\d+#|[A-Z][a-z]{0,12}|[MWFQ])\s*:\s*")


def dialogues(dream: Path, dialogsum: Path) -> list[tuple[str, list[str]]]:
    """(dialogue id, turns without speaker tags), DREAM's first, in file order, each once."""
    out, seen = [], set()
    for split in ("train", "dev", "test"):
        for turns, _questions, did in json.loads((dream / f"{split}.json").read_text("utf-8")):
            if did not in seen:
                seen.add(did)
                out.append((f"dream:{did}", [_SPEAKER.sub("", t) for t in turns]))
    for split in ("dev", "test"):
        for line in (dialogsum / f"dialogsum.{split}.jsonl").read_text("utf-8").splitlines():
            rec = json.loads(line)
            turns = [_SPEAKER.sub("", t) for t in rec["dialogue"].split("\n") if t.strip()]
            out.append((f"dialogsum:{rec['fname']}", turns))
    return out


def occurrences(dialogs, nlp) -> dict[str, list[Annotation]]:
    """Every keyword occurrence in a kept sentence, by keyword."""
    by_kw: dict[str, list[Annotation]] = defaultdict(list)
    for did, turns in dialogs:
        for doc in nlp.pipe(turns):
            for sent in doc.sents:
                tokens = [t.text for t in sent if not t.is_space]
                if not MIN_TOKENS <= len(tokens) <= MAX_TOKENS:
                    continue
                text = " ".join(tokens)
                starts = [0]
                for tok in tokens[:-1]:
                    starts.append(starts[-1] + len(tok) + 1)
                for m in find_keywords(tokens, extended=True):
                    a, b = starts[m.start], starts[m.end - 1] + len(tokens[m.end - 1])
                    kw = m.keyword.text
                    by_kw[kw].append(Annotation(keyword=kw, text=text, char_start=a,
                                                char_end=b, label="", source="hand:dialogue",
                                                doc=did, sense="", tree=""))
    return by_kw


def sample(by_kw: dict[str, list[Annotation]], rng: random.Random, share: float = 1.0
           ) -> list[Annotation]:
    """Up to ``share`` of each keyword's quota (at least 2), keywords in sorted order."""
    out = []
    for kw in sorted(by_kw):
        occ = by_kw[kw]
        quota = max(2, round(QUOTA.get(kw, DEFAULT_QUOTA) * share))
        out.extend(rng.sample(occ, min(len(occ), quota)))
    return out


def add_trees(anns: list[Annotation]) -> list[Annotation]:
    from dataclasses import replace

    from logicparse.parser import load_parser

    texts = sorted({a.text for a in anns})
    trees = load_parser("default").parse([t.split(" ") for t in texts])
    by_text = {t: tree.to_string() for t, tree in zip(texts, trees)}
    return [replace(a, tree=by_text[a.text]) for a in anns]


def merge(pass_a: Path, pass_b: Path) -> tuple[list[Annotation], dict]:
    """The occurrences both passes label alike (the first pass's record, its note dropped), and
    the passes' agreement and Cohen's kappa."""
    from sklearn.metrics import cohen_kappa_score

    a = [json.loads(line) for line in pass_a.read_text("utf-8").splitlines()]
    b = [json.loads(line) for line in pass_b.read_text("utf-8").splitlines()]
    if len(a) != len(b) or any((x["text"], x["char_start"]) != (y["text"], y["char_start"])
                               for x, y in zip(a, b)):
        raise SystemExit(f"{pass_a} and {pass_b} do not hold the same occurrences in one order")
    kept = [Annotation(**{k: v for k, v in x.items() if k != "note"})
            for x, y in zip(a, b) if x["label"] == y["label"]]
    la, lb = [x["label"] for x in a], [y["label"] for y in b]
    return kept, {"n": len(a), "agreed": len(kept), "agreement": round(len(kept) / len(a), 4),
                  "kappa": round(float(cohen_kappa_score(la, lb)), 4)}


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--dream", type=Path, help="folder with DREAM's train/dev/test.json")
    ap.add_argument("--dialogsum", type=Path,
                    help="folder with dialogsum.dev.jsonl and dialogsum.test.jsonl")
    ap.add_argument("--out", type=Path, required=True, help="folder to write the files into")
    ap.add_argument("--trees", action="store_true", help="add the bundled parser's trees")
    ap.add_argument("--passes", type=Path, nargs=2, metavar=("PASS_A", "PASS_B"),
                    help="merge two labelled passes (folders holding dialogue_dev.jsonl and "
                         "dialogue_blind.jsonl) instead of drawing: keeps what both label alike")
    args = ap.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    if args.passes:
        for name in ("dialogue_dev", "dialogue_blind"):
            kept, stats = merge(*(d / f"{name}.jsonl" for d in args.passes))
            if args.trees:
                kept = add_trees(kept)
            write_annotations(args.out / f"{name}.jsonl", kept)
            print(json.dumps({"set": name, **stats}))
        return
    if not (args.dream and args.dialogsum):
        ap.error("--dream and --dialogsum are needed to draw the occurrences")
    dialogs = dialogues(args.dream, args.dialogsum)
    order = list(range(len(dialogs)))
    random.Random(2911).shuffle(order)
    n_blind = int(len(order) * BLIND_SHARE)
    blind_ids = set(order[:n_blind])
    nlp = load_spacy(None)
    dev_occ = occurrences([d for i, d in enumerate(dialogs) if i not in blind_ids], nlp)
    blind_occ = occurrences([d for i, d in enumerate(dialogs) if i in blind_ids], nlp)
    dev_texts = {a.text for occ in dev_occ.values() for a in occ}
    blind_occ = {k: [a for a in v if a.text not in dev_texts] for k, v in blind_occ.items()}
    rng = random.Random(2912)
    dev = sample(dev_occ, rng)
    blind = sample({k: v for k, v in blind_occ.items() if v}, rng, BLIND_QUOTA_SHARE)
    if args.trees:
        dev, blind = add_trees(dev), add_trees(blind)
    for name, anns in (("dialogue_dev", dev), ("dialogue_blind", blind)):
        n = write_annotations(args.out / f"{name}.unlabelled.jsonl", anns)
        print(f"{name}: {n} occurrences of {len({a.keyword for a in anns})} keywords")


if __name__ == "__main__":
    main()

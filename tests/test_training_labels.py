"""What a label source feeds a model (logicparse.training.labels), without a parser: the texts
file and run folder the cache annotates into and the settings it annotates with, the digest that
tells runs fed other labels apart, and the shuffled control's permutation."""

import dataclasses
import hashlib
import json
import locale
import logging

import numpy as np
import pytest

from logicparse.batch import RunConfig, WorkerSpec
from logicparse.training import labels as L
from logicparse.training.labels import annotate_missing, digest, shuffle_labels, text_id
from logicparse.tokens import Document, Relation

TEXTS = ["Il a plu, donc nous sommes restés au café.", "It rained."]


def doc_of(text: str, doc_id: str = "", logic=None) -> Document:
    tokens = text.split()
    starts, pos = [], 0
    for t in tokens:
        pos = text.index(t, pos)
        starts.append(pos)
        pos += len(t)
    return Document(id=doc_id, text=text, tokens=tokens, token_starts=starts,
                    token_ends=[s + len(t) for s, t in zip(starts, tokens)], sentence_starts=[0],
                    logic=logic if logic is not None else [[] for _ in tokens])


class Recording:
    """An annotator that records what it is asked for."""

    def __init__(self):
        self.calls = []

    def pipe(self, texts, batch_size, ids):
        self.calls.append((list(texts), batch_size, list(ids)))
        return [doc_of(t, i) for t, i in zip(texts, ids)]


@pytest.fixture
def no_batch_run(monkeypatch):
    """The batch annotator replaced by a recorder (it would load the real parser)."""
    calls = []
    monkeypatch.setattr("logicparse.batch.annotate_corpus",
                        lambda inputs, out, config, progress: calls.append((inputs, out, config)))
    return calls


def test_missing_texts_go_to_a_jsonl_and_a_run_named_by_their_digest(tmp_path, no_batch_run,
                                                                      caplog):
    shards = tmp_path / "cache" / "labels"  # neither folder exists yet
    key = hashlib.sha1("\n\x00".join(TEXTS).encode("utf-8")).hexdigest()[:12]
    annotator = Recording()
    before = locale.setlocale(locale.LC_CTYPE)
    locale.setlocale(locale.LC_CTYPE, "C")  # the texts file is UTF-8 whatever the locale
    try:
        with caplog.at_level(logging.INFO, logger=L.__name__):
            out = annotate_missing(TEXTS, shards, annotator=annotator)
    finally:
        locale.setlocale(locale.LC_CTYPE, before)
    jsonl = shards / f"texts-{key}.jsonl"
    assert out == shards / f"run-{key}" and out.is_dir()
    assert jsonl.read_bytes() == "".join(
        f'{{"id": "{text_id(t)}", "text": "{t}"}}\n' for t in TEXTS).encode("utf-8")
    assert [r.getMessage() for r in caplog.records] == [
        f"annotating 2 texts into {out} (or run: logicparse annotate {jsonl} --out {out})"]
    # the annotator given runs in process, 32 texts a batch, each text's id its hash
    assert annotator.calls == [(TEXTS, 32, [text_id(t) for t in TEXTS])]
    assert [d.id for d in L.load_labels(str(out), TEXTS)[0].values()] == [text_id(t) for t in TEXTS]
    assert no_batch_run == []
    # the same texts again (the folders exist now), in batches of 5
    assert annotate_missing(TEXTS, shards, annotator=annotator, batch_size=5) == out
    assert annotator.calls[-1][1] == 5


def test_without_an_annotator_the_batch_annotator_runs_with_the_defaults(tmp_path, no_batch_run):
    out = annotate_missing(TEXTS[1:], tmp_path)
    ((inputs, to, config),) = no_batch_run
    assert inputs == [str(tmp_path / f"texts-{out.name[4:]}.jsonl")] and to == out
    assert config == RunConfig(workers=1, overwrite=True,
                               worker=WorkerSpec(parser="default", senses="default", device="cpu"))
    annotate_missing(TEXTS[1:], tmp_path, parser=str(tmp_path), senses=None, workers=3)
    config = no_batch_run[-1][2]
    assert (config.workers, config.worker) == (3, WorkerSpec(parser=str(tmp_path), senses=None))


def test_digest_is_the_label_rows_of_the_texts_in_order():
    docs = {"a b": doc_of("a b", logic=[[1, 28], []]), "c": doc_of("c", logic=[[]])}
    # sha256 over each text's id and its rows as compact JSON ("null" for a text without labels)
    h = hashlib.sha256()
    for t, rows in (("a b", b"[[1,28],[]]"), ("c", b"[[]]"), ("d", b"null")):
        h.update(text_id(t).encode() + rows)
    assert digest(docs, ["a b", "c", "d"]) == h.hexdigest()[:16] == "3a3de2c5bdb3dab6"
    assert digest(docs, ["c", "a b", "d"]) != digest(docs, ["a b", "c", "d"])
    assert digest(docs, ["a b"]) != digest({}, ["a b"])


IN_PLACE_TEXT = "It rained 0"  # its first permutation at seed 0 is (0, 2, 1)
SHUFFLE = doc_of("It rained , so we stayed in today .",
                 logic=[[28], [], [3, 28], [5], [], [7], [], [], [9]])


def test_the_shuffled_control_is_seeded_by_the_seed_and_the_text():
    # the same text and seed give the same rows in every version: a run's labels can be redone
    assert shuffle_labels(SHUFFLE).logic == shuffle_labels(SHUFFLE, seed=0).logic == [
        [7], [], [5], [], [], [9], [], [3, 28], [28]]
    assert shuffle_labels(SHUFFLE, seed=1).logic == [
        [], [7], [], [], [], [28], [9], [5], [3, 28]]
    rows = SHUFFLE.logic
    # the key is the text, not the tokens joined, when there is one ...
    spaced = doc_of("It  rained , so we stayed in today .", logic=rows)
    assert shuffle_labels(spaced).logic != shuffle_labels(SHUFFLE).logic
    # ... and the tokens joined by spaces when there is none (a Document made from trees)
    from_trees = Document(**{**SHUFFLE.to_dict(), "text": ""})
    assert shuffle_labels(from_trees).logic == shuffle_labels(SHUFFLE).logic


def test_a_shuffle_that_leaves_every_row_in_place_is_drawn_again_and_relations_go():
    rel = Relation(keyword="so", relation="causal", category="connective", sentence=0, depth=1,
                   key=[[3, 4]], alpha=[[0, 2]], beta=[[4, 6]])
    doc = dataclasses.replace(doc_of(IN_PLACE_TEXT, logic=[[28], [], []]), relations=[rel])
    key = int(text_id(IN_PLACE_TEXT), 16) % 2**32
    first = np.random.default_rng([0, key]).permutation(3)
    assert [doc.logic[i] for i in first] == doc.logic  # the first draw changes nothing
    shuffled = shuffle_labels(doc)
    assert shuffled.logic != doc.logic and sorted(map(tuple, shuffled.logic)) == sorted(
        map(tuple, doc.logic))
    assert shuffled.relations == [] and doc.relations == [rel]
    alike = doc_of("a b c", logic=[[1], [1], [1]])
    assert shuffle_labels(alike).logic == alike.logic  # nothing to move

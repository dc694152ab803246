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
from logicparse.batch.progress import PlainProgress, RichProgress
from logicparse.batch.shards import read_manifest, write_documents, write_manifest
from logicparse.errors import DataFormatError, Errors
from logicparse.training import labels as L
from logicparse.training.labels import (annotate_missing, digest, labels_for, load_labels,
                                        shuffle_labels, text_id, transform)
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

    def run(inputs, out, config, progress):
        calls.append((inputs, out, config, progress))
        texts = [json.loads(line)["text"] for line in open(inputs[0], encoding="utf-8")]
        write_documents(out, [doc_of(t, text_id(t)) for t in texts],
                        mapping=config.worker.mapping,
                        settings={"parser": config.worker.parser, "senses": config.worker.senses})

    monkeypatch.setattr("logicparse.batch.annotate_corpus", run)
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


def test_without_an_annotator_the_batch_annotator_runs_with_the_defaults(tmp_path, no_batch_run,
                                                                         monkeypatch):
    out = annotate_missing(TEXTS[1:], tmp_path)
    ((inputs, to, config, progress),) = no_batch_run
    assert inputs == [str(tmp_path / f"texts-{out.name[4:]}.jsonl")] and to == out
    assert config == RunConfig(workers=1, overwrite=True,
                               worker=WorkerSpec(parser="default", senses="default", device="cpu"))
    # annotating a data set's texts takes minutes: its progress is shown (a bar or plain lines)
    assert isinstance(progress, (PlainProgress, RichProgress))
    monkeypatch.setattr("logicparse.resources.check_device", str)  # a GPU this machine may lack
    annotate_missing(TEXTS[1:], tmp_path, parser=str(tmp_path), senses=None, device="cuda:1",
                     workers=3)
    config = no_batch_run[-1][2]
    assert (config.workers, config.worker) == (
        3, WorkerSpec(parser=str(tmp_path), senses=None, device="cuda:1"))


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


def settings(parser="default", senses="default"):
    return {"mapping": "default", "settings": {"parser": parser, "senses": senses}}


def test_labels_for_reads_only_runs_made_as_it_would_make_them(tmp_path, no_batch_run, caplog):
    t = TEXTS[1]
    wanted = doc_of(t, "mine", logic=[[28], []])  # any id: found by its text
    write_documents(tmp_path / "run-a", [wanted], **settings())
    assert labels_for([t], str(tmp_path), "x", annotate=False) == {t: wanted}
    # another parser, other senses or the paper's mapping: not read (annotate=False: E514)
    for i, recorded in enumerate([settings(parser="other"), settings(senses=None),
                                  {**settings(), "mapping": "paper"}]):
        other = tmp_path / f"other-{i}"
        write_documents(other / "run-a", [wanted], **recorded)
        with pytest.raises(DataFormatError, match=r"^\[E514\] " + str(other)):
            labels_for([t], str(other), "x", annotate=False)
    assert any("annotated with senses='none', not the 'default'" in m for m in caplog.messages)
    assert f"The shards at {tmp_path / 'other-0' / 'run-a'} were annotated" in caplog.text
    # ... but read when the same settings are asked for, or a custom annotator is given
    kw = {"parser": "other", "annotate": False}
    assert labels_for([t], str(tmp_path / "other-0"), "x", **kw) == {t: wanted}
    kw = {"senses": None, "annotate": False}
    assert labels_for([t], str(tmp_path / "other-1"), "x", **kw) == {t: wanted}
    annotator = Recording()
    assert labels_for([t], str(tmp_path / "other-1"), "x", annotator=annotator) == {t: wanted}
    assert annotator.calls == []  # nothing missing, nothing annotated
    assert no_batch_run == []


def test_labels_for_annotates_what_is_missing_once_into_the_user_cache(tmp_path, monkeypatch,
                                                                      no_batch_run, caplog):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    data = tmp_path / "data"
    data.mkdir()
    got = labels_for(TEXTS, None, str(data / "train.json"))  # the batch annotator's run
    assert list(got) == TEXTS and len(no_batch_run) == 1
    cache = L.default_cache_dir(str(data / "train.json"))
    assert no_batch_run[0][1].parent == cache
    annotator = Recording()
    failing = lambda texts, batch_size, ids: [  # noqa: E731
        Document.failed(i, x, "[E320] boom") for x, i in zip(texts, ids)]
    annotator.pipe = failing
    with caplog.at_level(logging.WARNING):
        got = labels_for(["A", "B", TEXTS[1]], str(tmp_path / "s"), "x", annotator=annotator)
    assert [d.error for d in got.values()] == ["[E320] boom"] * 3
    assert "3 of 3 texts failed annotation; their tokens take E" in caplog.messages


def test_labels_for_feeds_each_source(tmp_path):
    t = SHUFFLE.text
    rel = Relation(keyword="so", relation="causal", category="C", sentence=0, depth=1,
                   key=[[3, 4]], alpha=[[0, 2]], beta=[[4, 8]])
    doc = dataclasses.replace(doc_of(t, text_id(t), logic=SHUFFLE.logic), relations=[rel])
    write_documents(tmp_path, [doc])
    kw = {"annotate": False}
    assert labels_for([t], str(tmp_path), "x", "shuffled", **kw)[t].logic == shuffle_labels(
        doc, 0).logic == transform(doc, "shuffled").logic
    assert labels_for([t], str(tmp_path), "x", "shuffled", seed=5, **kw)[t].logic == \
        shuffle_labels(doc, 5).logic == transform(doc, "shuffled", 5).logic
    assert labels_for([t], str(tmp_path), "x", "random", seed=2, **kw)[t].logic == \
        L.random_labels(doc, 2).logic == transform(doc, "random", 2).logic
    all_e = labels_for([t], str(tmp_path), "x", "all-e", **kw)[t]
    assert (all_e.logic, all_e.relations, all_e.tokens) == ([[]] * 9, [], doc.tokens)
    assert transform(doc, "default") is doc
    with pytest.raises(DataFormatError, match=r"^\[E530\] " + str(tmp_path) + ": document"):
        labels_for([t], str(tmp_path), "x", "paper", **kw)
    with pytest.raises(DataFormatError, match=r"^\[E530\] shards: document"):
        transform(doc, "paper")


def test_an_unknown_label_source_is_refused_naming_every_source():
    assert L.check_source("all-e") == "all-e"
    with pytest.raises(DataFormatError) as e:
        L.check_source("all_e")
    assert str(e.value) == ("[E506] Unknown label source 'all_e'. "
                            "Options: none, paper, default, shuffled, random, all-e.")


def test_load_labels_skips_unfinished_runs_and_checks_what_it_reads(tmp_path, caplog):
    a, b = "It rained", "It snowed"
    write_documents(tmp_path / "run-a", [doc_of(a, text_id(a))])
    write_manifest(tmp_path / "run-a", {**read_manifest(tmp_path / "run-a"), "complete": False})
    # made from trees: no text, the tokens joined are not the text, found by its id
    from_trees = Document(**{**doc_of(b, text_id(b)).to_dict(), "text": "",
                             "tokens": ["It", "snowed", "."], "token_starts": [0, 3, 10],
                             "token_ends": [2, 9, 11], "logic": [[], [], []]})
    write_documents(tmp_path / "run-b", [from_trees])
    with caplog.at_level(logging.WARNING):
        found, missing = load_labels(str(tmp_path), [a, b])
    assert found == {b: from_trees} and missing == [a]
    assert caplog.messages == [f"{tmp_path / 'run-a'} is an unfinished annotation run: not read"]
    # a document that does not hold together names its run
    bad = Document(**{**doc_of(a, text_id(a)).to_dict(), "token_ends": [2]})
    write_documents(tmp_path / "run-c", [bad])
    with pytest.raises(DataFormatError, match=r"^\[E515\] " + str(tmp_path / "run-c")):
        load_labels(str(tmp_path), [a])
    # another text under a text's id is refused
    other = tmp_path / "other"
    write_documents(other, [doc_of("Something else", text_id(a))])
    with pytest.raises(DataFormatError) as e:
        load_labels(str(other), [a])
    assert str(e.value) == Errors.E516.format(where=str(other), id=text_id(a))


def test_runs_made_otherwise_are_named_and_passed_over_for_the_next_run(tmp_path, caplog):
    t = TEXTS[1]
    wanted = doc_of(t, "mine", logic=[[28], []])
    # sorted: the two runs made otherwise come first, the run to read last
    write_documents(tmp_path / "run-a", [doc_of(t, "a")], **{**settings(), "mapping": "paper"})
    write_documents(tmp_path / "run-b", [doc_of(t, "b")], **settings(parser="other"))
    write_documents(tmp_path / "run-c", [wanted], **settings())
    with caplog.at_level(logging.WARNING):
        found, missing = load_labels(str(tmp_path), [t], mapping="default",
                                     made_with={"parser": "default", "senses": "default"})
    assert found == {t: wanted} and missing == []
    assert caplog.messages == [
        f"{tmp_path / 'run-a'} was annotated with mapping='paper', not 'default': not read",
        Errors.E533.format(path=tmp_path / "run-b", setting="parser", got="other",
                           want="default")]
    assert "with parser='other', not the 'default'" in caplog.messages[1]


def test_a_run_with_a_manifest_and_no_shard_is_still_a_run(tmp_path, caplog):
    t = TEXTS[1]
    write_documents(tmp_path / "run-a", [doc_of(t, text_id(t))])
    # interrupted before its first shard (while the models loaded): only its manifest
    (tmp_path / "run-a" / "shard-00000.arrow").unlink()
    write_manifest(tmp_path / "run-a", {**read_manifest(tmp_path / "run-a"), "complete": False})
    with caplog.at_level(logging.WARNING):
        assert load_labels(str(tmp_path), [t]) == ({}, [t])
    assert caplog.messages == [f"{tmp_path / 'run-a'} is an unfinished annotation run: not read"]
    # finished, its shard deleted since: refused, not taken as empty
    write_manifest(tmp_path / "run-a", {**read_manifest(tmp_path / "run-a"), "complete": True})
    with pytest.raises(DataFormatError, match=r"^\[E314\] .*file missing"):
        load_labels(str(tmp_path), [t])


def test_a_text_without_labels_is_named_by_its_id_and_first_60_characters(tmp_path):
    long = "It rained all day and all night, so the roads were closed until Monday morning."
    write_documents(tmp_path / "run-a", [doc_of(TEXTS[1], text_id(TEXTS[1]))], **settings())
    with pytest.raises(DataFormatError) as e:
        labels_for([TEXTS[1], long], str(tmp_path), "x", annotate=False)
    assert len(long) > 61 and str(e.value) == Errors.E514.format(
        where=tmp_path, id=text_id(long), text=long[:60])


def test_random_labels_keep_the_labelled_tokens_and_draw_which_label():
    doc = dataclasses.replace(SHUFFLE, relations=[Relation(
        keyword="so", relation="causal", category="C", sentence=0, depth=1, key=[[3, 4]],
        alpha=[[0, 2]], beta=[[4, 8]])])
    drawn = L.random_labels(doc, 0)
    assert [len(r) for r in drawn.logic] == [len(r) for r in doc.logic]  # same places, same depth
    ids = [v for r in drawn.logic for v in r]
    assert ids and all(1 <= v <= 34 for v in ids) and drawn.relations == []
    assert drawn.logic != doc.logic and drawn.tokens == doc.tokens
    assert L.random_labels(doc, 0).logic == drawn.logic != L.random_labels(doc, 1).logic
    assert drawn.logic != shuffle_labels(doc, 0).logic
    # Over many texts every label that is not E is drawn, and about equally often.
    counts = np.bincount([v for i in range(300) for r in L.random_labels(
        dataclasses.replace(doc, text=f"{doc.text} {i}"), 0).logic for v in r], minlength=35)
    assert counts[0] == 0 and counts[1:].min() > 0.5 * counts[1:].mean()


def test_random_labels_are_the_same_draws_in_every_release():
    # A random-label control is rerun and compared across sittings: the draws for a text and a
    # seed are pinned, and a document built from trees (no text) draws as its joined tokens do.
    drawn = [[20], [], [26, 3], [22], [], [7], [], [], [15]]
    assert L.random_labels(SHUFFLE, 0).logic == drawn == L.random_labels(SHUFFLE).logic  # seed 0 by default
    assert L.random_labels(dataclasses.replace(SHUFFLE, text=""), 0).logic == drawn

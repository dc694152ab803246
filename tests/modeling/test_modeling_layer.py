"""The centered logical layer (the default) against the paper's: what an unlabelled token keeps,
how much a label moves a token, the random stream a logical model shares with the plain one, and
the positive control: a task whose answer is only in the labels, learned through the public API."""

import pytest
import torch
import transformers as T

from logicparse.errors import Errors, ModelingError
from logicparse.modeling import LogicalEmbedding, from_pretrained, logical_embedding, logicalize
from logicparse.modeling.embedding import IDENTITY_GAIN
from logicparse.training.control import CLASS_LABELS, control_examples, fit_control


def ids(shape, vocab=30, seed=0):
    return torch.randint(3, vocab, shape, generator=torch.Generator().manual_seed(seed))


def test_centered_is_the_paper_recursion_minus_its_all_e_value():
    emb = LogicalEmbedding(30, 6, n_logic=4, k=3, init_seed=0)
    x = ids((2, 5))
    lab = torch.randint(0, 35, (2, 5, 3), generator=torch.Generator().manual_seed(1))
    lab[0, 1] = 0  # one token with no label at all

    def u(labels):
        out = emb.weight[x]
        for i in range(3):
            v = emb.logic_vectors.weight[labels[..., i]]
            out = torch.nn.functional.gelu(emb.proj(torch.cat([out, v], -1)))
        return out

    expected = emb.weight[x] + u(lab) - u(torch.zeros_like(lab))
    torch.testing.assert_close(emb(x, lab), expected)
    assert torch.equal(emb(x, lab)[0, 1], emb.weight[x[0, 1]])  # exactly the word vector


def test_the_centered_delta_keeps_float32_under_bf16_autocast():
    """The delta is a difference of two close projections: taken in bf16 it would carry rounding
    errors of about 0.4% of each projection, a large share of the label's own contribution."""
    emb = LogicalEmbedding(30, 64, n_logic=16, k=3, init_seed=0)
    x = ids((4, 9))
    lab = torch.randint(0, 35, (4, 9, 3), generator=torch.Generator().manual_seed(1))
    exact = emb(x, lab)
    with torch.autocast("cpu", dtype=torch.bfloat16):
        mixed = emb(x, lab)
    assert mixed.dtype == torch.float32
    torch.testing.assert_close(mixed, exact, rtol=1e-5, atol=1e-6)


def test_no_labels_leave_every_token_at_its_pretrained_embedding():
    emb = LogicalEmbedding(30, 6, init_seed=0)
    x = ids((3, 7))
    assert torch.equal(emb(x), emb.weight[x])
    assert torch.equal(emb(x, torch.zeros(3, 7, 3, dtype=torch.long)), emb.weight[x])
    paper = LogicalEmbedding(30, 6, variant="paper", init_seed=0)
    assert not torch.allclose(paper(x), paper.weight[x])  # the paper's layer moves every token


def test_w_u_starts_near_the_identity_scaled_by_the_activation():
    emb = LogicalEmbedding(30, 8, n_logic=4, init_std=0.02, init_seed=0)
    w_u = emb.proj.weight[:, :8]
    assert IDENTITY_GAIN["gelu"] == 2.0
    torch.testing.assert_close(torch.diagonal(w_u).mean(), torch.tensor(2.0), atol=0.03, rtol=0)
    off = w_u - torch.diag(torch.diagonal(w_u))
    assert off.abs().max() < 0.1 and off.std() > 0.01
    assert 0.01 < emb.logic_vectors.weight.std() < 0.03  # the host's initializer scale
    paper = LogicalEmbedding(30, 8, n_logic=4, variant="paper", init_seed=0)
    assert torch.diagonal(paper.proj.weight[:, :8]).abs().max() < 0.1


def test_label_share_measures_what_labels_add_and_what_all_e_moves():
    emb = LogicalEmbedding(30, 6, init_seed=0)
    x = ids((1, 4))
    lab = torch.zeros(1, 4, 3, dtype=torch.long)
    lab[0, 2, 0] = 10
    share = emb.label_share(x, lab)
    w = emb.weight[x]
    expected = ((emb(x, lab) - w)[0, 2].norm() / w[0, 2].norm()).item()
    assert share["labelled_tokens"] == 1
    assert share["labelled"] == pytest.approx(expected, rel=1e-3)
    assert share["all_e"] == 0.0
    paper = LogicalEmbedding(30, 6, variant="paper", init_seed=0)
    moved = ((paper(x) - paper.weight[x]).norm(dim=-1) / paper.weight[x].norm(dim=-1)).mean()
    assert paper.label_share(x, lab)["all_e"] == pytest.approx(moved.item(), rel=1e-3)


def test_logicalize_does_not_draw_from_the_global_stream():
    model = tiny_classifier(40)
    torch.manual_seed(7)
    logicalize(model)
    after_logicalize = torch.rand(3)
    torch.manual_seed(7)
    assert torch.equal(after_logicalize, torch.rand(3))


def test_the_new_parameters_come_from_their_own_seed():
    a, b = LogicalEmbedding(30, 6, init_seed=3), LogicalEmbedding(30, 6, init_seed=3)
    assert torch.equal(a.logic_vectors.weight, b.logic_vectors.weight)
    assert torch.equal(a.proj.weight, b.proj.weight)
    assert not torch.equal(a.logic_vectors.weight, LogicalEmbedding(30, 6, init_seed=4).logic_vectors.weight)


def test_a_wrong_variant_or_vector_std_names_the_choices():
    with pytest.raises(ModelingError) as e:
        LogicalEmbedding(30, 6, variant="gated")
    assert "centered, paper" in str(e.value) and "E506" in str(e.value)
    with pytest.raises(ModelingError, match="above 0"):
        LogicalEmbedding(30, 6, vector_std=0)


@pytest.mark.parametrize("setting", [{"k": 2.5}, {"k": "3"}, {"k": True}, {"k": 0},
                                     {"n_logic": 0}, {"n_logic": -4}, {"n_logic": 8.0},
                                     {"projection": "mlp", "mlp_hidden": -1}])
def test_a_size_that_is_not_a_positive_integer_is_refused_when_the_layer_is_made(setting):
    """k=2.5 was taken and failed at the first forward; n_logic=0 became N unsaid."""
    with pytest.raises(ModelingError, match=r"\[E506\].*1, 2, 3"):
        LogicalEmbedding(30, 6, **setting)
    import numpy as np

    assert LogicalEmbedding(30, 6, k=np.int64(2), n_logic=np.int32(4)).n_logic == 4


def tiny_classifier(vocab):
    cfg = T.BertConfig(vocab_size=vocab, hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
                       intermediate_size=64, max_position_embeddings=64, num_labels=2)
    torch.manual_seed(0)
    return T.BertForSequenceClassification(cfg)


def test_variant_is_saved_and_old_checkpoints_load_as_the_paper_layer(tmp_path):
    model = logicalize(tiny_classifier(40), variant="paper")
    model.save_pretrained(tmp_path / "m")
    assert logical_embedding(from_pretrained(str(tmp_path / "m"))).variant == "paper"
    config = T.AutoConfig.from_pretrained(tmp_path / "m")
    del config.logicparse["variant"]  # what checkpoints from before the centered layer hold
    config.save_pretrained(tmp_path / "m")
    assert logical_embedding(from_pretrained(str(tmp_path / "m"))).variant == "paper"


@pytest.fixture(scope="module")
def tokenizer():
    from logicparse.modeling import bundled_model_path

    return T.AutoTokenizer.from_pretrained(bundled_model_path())


def test_the_control_task_says_nothing_in_its_text():
    docs, ys = control_examples(400, seed=0)
    assert 150 < sum(ys) < 250
    words = {c: sum(len(d.tokens) for d, y in zip(docs, ys) if y == c) / ys.count(c) for c in (0, 1)}
    assert abs(words[0] - words[1]) < 1.0
    for d, y in zip(docs, ys):
        assert any(CLASS_LABELS[y] in row for row in d.logic)
        assert not any(CLASS_LABELS[1 - y] in row for row in d.logic)


@pytest.mark.slow
def test_positive_control_a_tiny_logical_model_learns_what_only_labels_say(tokenizer):
    """One learning rate for every parameter, 60 steps: the centered layer learns the task; the
    same model fed no labels (the path from labels to logits cut) stays near chance. (At this
    budget the paper's layer is still at chance too: it learns only after about 100 steps.)"""
    train, test = control_examples(800, seed=0), control_examples(300, seed=1)
    vocab = tokenizer.vocab_size
    logical = fit_control(logicalize(tiny_classifier(vocab)), tokenizer, train, test, steps=60,
                          lr=3e-3, eval_every=60)
    plain = fit_control(tiny_classifier(vocab), tokenizer, train, test, steps=60, lr=3e-3,
                        eval_every=60, logical=False)
    assert logical["accuracy"] >= 0.9, logical
    assert plain["accuracy"] <= 0.62, plain

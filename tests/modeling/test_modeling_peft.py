"""A logicalized model under PEFT (LoRA): ``logic_modules`` names the logical layer's modules, so
that they train and are saved beside the adapters; without them PEFT freezes the layer at its
random start. Tiny random BERT and BART configurations."""

import pytest
import torch
import transformers as T

from logicparse.errors import ModelingError
from logicparse.modeling import logic_modules, logicalize

peft = pytest.importorskip("peft")


def _bert():
    torch.manual_seed(0)
    cfg = T.BertConfig(vocab_size=100, hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
                       intermediate_size=64, num_labels=2, hidden_dropout_prob=0.0,
                       attention_probs_dropout_prob=0.0)
    return logicalize(T.BertForSequenceClassification(cfg), n_logic=8, k=3, seed=0)


def _bart():
    torch.manual_seed(0)
    cfg = T.BartConfig(vocab_size=100, d_model=32, encoder_layers=1, decoder_layers=1,
                       encoder_attention_heads=2, decoder_attention_heads=2, encoder_ffn_dim=64,
                       decoder_ffn_dim=64, max_position_embeddings=64, num_labels=2, dropout=0.0)
    return logicalize(T.BartForSequenceClassification(cfg), n_logic=8, k=3, seed=0)


def _lora(model, with_logic=True):
    config = peft.LoraConfig(task_type="SEQ_CLS", r=4, target_modules=["query", "value", "q_proj",
                                                                       "v_proj"],
                             modules_to_save=logic_modules(model) if with_logic else None)
    return peft.get_peft_model(model, config)


IDS = torch.tensor([[0, 5, 6, 7, 8, 2]])  # BART classifies at its </s> (id 2)
LOGIC = torch.tensor([[[0, 0, 0], [1, 0, 0], [28, 5, 0], [29, 0, 0], [0, 0, 0], [0, 0, 0]]])


def test_the_names_are_the_logical_layers_own():
    assert logic_modules(_bert()) == ["bert.embeddings.word_embeddings.logic_vectors",
                                      "bert.embeddings.word_embeddings.proj"]
    with pytest.raises(ModelingError, match=r"\[E518\] BertModel is not logicalized"):
        logic_modules(T.BertModel(T.BertConfig(vocab_size=10, hidden_size=8, num_hidden_layers=1,
                                               num_attention_heads=1, intermediate_size=8)))


@pytest.mark.parametrize("build", [_bert, _bart], ids=["bert", "bart"])
def test_with_the_names_the_logical_layer_trains_and_nothing_else_is_copied(build):
    model = _lora(build())
    trainable = [n for n, p in model.named_parameters() if p.requires_grad]
    logic = [n for n in trainable if "logic_vectors" in n or "word_embeddings.proj" in n
             or "embed_tokens.proj" in n or "shared.proj" in n]
    assert logic and all("modules_to_save" in n for n in logic)
    # LoRA, the classification head PEFT adds, and the layer: no other projection copied whole
    # (a bare "proj" would have taken BART's q_proj, k_proj, v_proj and out_proj).
    rest = [n for n in trainable if n not in logic and "lora_" not in n]
    assert all("classif" in n or "score" in n for n in rest), rest
    model.train()
    out = model(input_ids=IDS, logic_ids=LOGIC, labels=torch.tensor([1]))
    out.loss.backward()
    assert all(p.grad is not None and p.grad.abs().sum() > 0
               for n, p in model.named_parameters() if n in logic)


def test_without_the_names_peft_freezes_the_layer():
    model = _lora(_bert(), with_logic=False)
    frozen = [p.requires_grad for n, p in model.named_parameters()
              if "logic_vectors" in n or "word_embeddings.proj" in n]
    assert frozen and not any(frozen)


def test_the_saved_adapter_holds_the_trained_layer_and_loads_it_back(tmp_path):
    model = _lora(_bert())
    opt = torch.optim.SGD([p for p in model.parameters() if p.requires_grad], lr=1.0)
    model.train()
    for _ in range(3):
        opt.zero_grad()
        model(input_ids=IDS, logic_ids=LOGIC, labels=torch.tensor([1])).loss.backward()
        opt.step()
    model.eval()
    trained = model(input_ids=IDS, logic_ids=LOGIC).logits
    model.save_pretrained(tmp_path / "adapter")
    loaded = peft.PeftModel.from_pretrained(_bert(), tmp_path / "adapter").eval()
    assert torch.allclose(loaded(input_ids=IDS, logic_ids=LOGIC).logits, trained, atol=1e-6)
    fresh = _lora(_bert()).eval()
    assert not torch.allclose(fresh(input_ids=IDS, logic_ids=LOGIC).logits, trained, atol=1e-4)


def test_a_lora_on_the_layers_projection_takes_part_in_its_forward():
    """target_modules="all-linear" puts a LoRA on the layer's L too: its weight was read past the
    adapter, so the adapter was saved and counted but never ran, and the layer stayed at its
    random start."""
    model = peft.get_peft_model(_bert(), peft.LoraConfig(task_type="SEQ_CLS", r=2,
                                                         target_modules="all-linear"))
    lora = {n: p for n, p in model.named_parameters() if "word_embeddings.proj.lora" in n}
    assert lora
    model(input_ids=IDS, logic_ids=LOGIC, labels=torch.tensor([1])).loss.backward()
    assert all(p.grad is not None for p in lora.values())  # B starts at 0: A's gradient is 0
    assert all(p.grad.abs().sum() > 0 for n, p in lora.items() if "lora_B" in n)


def test_the_layers_saved_copies_take_the_one_matrix_path():
    """PEFT's copies for modules_to_save are not tuner layers: the projection reads their weight
    (one matrix product a layer), not the per-token concatenation a LoRA on L needs."""
    model = _lora(_bert())
    calls = []
    proj = [m for n, m in model.named_modules() if n.endswith("word_embeddings.proj")][0]
    proj.register_forward_hook(lambda *a: calls.append(1))
    model(input_ids=IDS, logic_ids=LOGIC)
    assert type(proj).__name__ == "ModulesToSaveWrapper" and calls == []

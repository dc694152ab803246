"""A logicalized model as Hugging Face users handle one: deep-copied (EMA, teacher, SWA),
pickled, loaded with head settings, and loaded into another head than the one it was saved from."""

import copy
import io
import pickle

import pytest
import torch
import transformers as T

from logicparse.errors import ModelLoadError
from logicparse.modeling import from_pretrained, logical_embedding, logicalize
from test_modeling import ids, labels, tiny


def test_a_deep_copy_runs_itself_not_the_original():
    model = tiny("bert", T.AutoModelForSequenceClassification)
    logicalize(model, k=2)
    model.eval()
    x, lab = ids((2, 6)), labels((2, 6), 2)
    copied = copy.deepcopy(model)
    torch.testing.assert_close(copied(input_ids=x, logic_ids=lab).logits,
                               model(input_ids=x, logic_ids=lab).logits)
    with torch.no_grad():
        logical_embedding(copied).logic_vectors.weight.add_(1.0)  # only the copy's labels move
    assert not torch.allclose(copied(input_ids=x, logic_ids=lab).logits,
                              model(input_ids=x, logic_ids=lab).logits)
    copied(input_ids=x, logic_ids=lab).logits.sum().backward()  # gradients land on the copy
    assert logical_embedding(copied).logic_vectors.weight.grad is not None
    assert logical_embedding(model).logic_vectors.weight.grad is None


@pytest.mark.parametrize("kind, auto", [("bert", T.AutoModelForSequenceClassification),
                                        ("bart", T.AutoModelForSeq2SeqLM)])
def test_each_data_parallel_replica_runs_itself(kind, auto, monkeypatch):
    """torch's own replicate(), as nn.DataParallel (and Trainer on several GPUs) calls it; the
    CUDA broadcast of the parameters is replaced by CPU copies, the second device's zeroed, since
    no GPU is here. The forward copied with a replica's __dict__ ran the original model."""
    import sys

    import torch.nn.parallel.replicate  # noqa: F401 (the module, not the function of that name)

    replicate = sys.modules["torch.nn.parallel.replicate"]
    monkeypatch.setattr(replicate, "_broadcast_coalesced_reshape", lambda tensors, devices, detach=False: [
        [t.detach().clone() if d == 0 else torch.zeros_like(t) for t in tensors] for d in devices])
    model = tiny(kind, auto)
    logicalize(model, k=2)
    model.eval()
    x, lab = ids((2, 6)), labels((2, 6), 2)
    first, second = replicate.replicate(model, [0, 1])
    ran = {"first": first(input_ids=x, logic_ids=lab).logits,
           "second": second(input_ids=x, logic_ids=lab).logits}
    torch.testing.assert_close(ran["first"], model(input_ids=x, logic_ids=lab).logits)
    assert not torch.allclose(ran["second"], ran["first"])  # its own, zeroed, parameters
    assert logical_embedding(second) is not logical_embedding(model)
    assert second.forward.emb is logical_embedding(second)


def test_a_model_pickles_and_generate_keeps_its_labels_after():
    model = tiny("bart", T.AutoModelForSeq2SeqLM)
    logicalize(model, k=2)
    model.eval()
    x, lab = ids((2, 8)), labels((2, 8), 2)
    buf = io.BytesIO()
    torch.save(model, buf)  # pickle underneath
    for again in (pickle.loads(pickle.dumps(model)),
                  torch.load(io.BytesIO(buf.getvalue()), weights_only=False)):
        torch.testing.assert_close(again(input_ids=x, decoder_input_ids=x, logic_ids=lab).logits,
                                   model(input_ids=x, decoder_input_ids=x, logic_ids=lab).logits)
        scores = [again.generate(input_ids=x, logic_ids=l, max_new_tokens=3, do_sample=False,
                                 output_scores=True, return_dict_in_generate=True).scores[0]
                  for l in (lab, torch.zeros_like(lab))]
        assert not torch.allclose(*scores), "generate of the loaded model reads its labels"


def test_a_checkpoint_loads_with_head_settings_and_into_another_head(tmp_path):
    head = tiny("bert", T.AutoModelForSequenceClassification)
    logicalize(head, k=2)
    head.save_pretrained(tmp_path / "head")
    x, lab = ids((2, 6)), labels((2, 6), 2)
    # Head settings, as `logicparse train` passes them when it continues from a checkpoint.
    same = from_pretrained(str(tmp_path / "head"), num_labels=2, problem_type="single_label_classification")
    assert same.config.problem_type == "single_label_classification"
    three = from_pretrained(str(tmp_path / "head"), num_labels=3, ignore_mismatched_sizes=True)
    assert three(input_ids=x, logic_ids=lab).logits.shape == (2, 3)
    # The logic parameters follow the encoder into a base model, and back into a head.
    base = from_pretrained(str(tmp_path / "head"), T.AutoModel).eval()
    torch.testing.assert_close(logical_embedding(base).logic_vectors.weight,
                               logical_embedding(head).logic_vectors.weight)
    base.save_pretrained(tmp_path / "base")
    again = from_pretrained(str(tmp_path / "base"), T.AutoModelForSequenceClassification)
    torch.testing.assert_close(logical_embedding(again).proj.weight,
                               logical_embedding(head).proj.weight)


def test_a_checkpoint_without_its_logic_parameters_names_them(tmp_path):
    model = tiny("bert", T.AutoModelForSequenceClassification)
    logicalize(model, k=2)
    model.save_pretrained(tmp_path, safe_serialization=False)
    state = torch.load(tmp_path / "pytorch_model.bin", weights_only=True)
    torch.save({k: v for k, v in state.items() if "logic_vectors" not in k},
               tmp_path / "pytorch_model.bin")
    with pytest.raises(ModelLoadError, match=r"\[E527\].*lacks the logic parameters.*logic_vectors"):
        from_pretrained(str(tmp_path))

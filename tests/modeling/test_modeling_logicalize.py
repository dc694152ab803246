"""A logicalized model as Hugging Face users handle one: deep-copied (EMA, teacher, SWA),
pickled, loaded with head settings, and loaded into another head than the one it was saved from."""

import copy
import io
import pickle

import pytest
import torch
import transformers as T

from logicparse.errors import ModelLoadError
from logicparse.modeling import NoLabelsWarning, from_pretrained, logical_embedding, logicalize
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


@pytest.mark.parametrize("kind, auto", [("bert", T.AutoModelForMaskedLM),
                                        ("bart", T.AutoModelForSeq2SeqLM)])
def test_the_layer_survives_resize_token_embeddings(kind, auto):
    """BART's set_input_embeddings puts its shared embedding back into the encoder: the layer and
    its trained parameters were gone, and a call with logic_ids failed."""
    model = tiny(kind, auto)
    logicalize(model, k=2)
    emb = logical_embedding(model)
    model.resize_token_embeddings(130)
    assert logical_embedding(model) is emb and emb.num_embeddings == 130
    assert emb.weight is model.get_input_embeddings().weight  # still the shared, tied weight
    x, lab = torch.tensor([[3, 125, 129, 7]]), labels((1, 4), 2)
    kw = {"decoder_input_ids": x} if kind == "bart" else {}
    model.eval()
    assert not torch.allclose(model(input_ids=x, logic_ids=lab, **kw).logits,
                              model(input_ids=x, logic_ids=torch.zeros_like(lab), **kw).logits)
    with pytest.warns(NoLabelsWarning):
        assert model(input_ids=x, **kw).logits.shape[-1] == 130


def test_a_batch_without_labels_keeps_every_logic_parameter_in_the_graph():
    """DistributedDataParallel (find_unused_parameters=False) stopped at the step after a batch
    whose tokens had no label: the layer's parameters had had no gradient."""
    model = tiny("bert", T.AutoModelForSequenceClassification)
    logicalize(model, k=2)
    x = ids((2, 6))
    model(input_ids=x, logic_ids=torch.zeros(2, 6, 2, dtype=torch.long),
          labels=torch.tensor([0, 1])).loss.backward()
    emb = logical_embedding(model)
    for p in (*emb.logic_vectors.parameters(), *emb.proj.parameters()):
        assert p.grad is not None and not p.grad.any()


def test_distributed_data_parallel_trains_on_after_a_batch_without_labels(tmp_path):
    import torch.distributed as dist

    dist.init_process_group("gloo", init_method=f"file://{tmp_path / 'store'}", rank=0,
                            world_size=1)
    try:
        model = tiny("bert", T.AutoModelForSequenceClassification)
        ddp = torch.nn.parallel.DistributedDataParallel(logicalize(model, k=2))
        x, lab = ids((2, 6)), labels((2, 6), 2)
        for step in (lab, torch.zeros_like(lab), lab):  # the third stopped: "unused parameters"
            ddp(input_ids=x, logic_ids=step, labels=torch.tensor([0, 1])).loss.backward()
    finally:
        dist.destroy_process_group()


def test_two_threads_running_one_model_read_their_own_labels():
    """Labels reach the embedding through the module: a thread read another's. Here the first
    thread's embedding waits, inside its call, until the second thread's call has begun."""
    import threading

    model = tiny("bert", T.AutoModelForSequenceClassification)
    logicalize(model, k=2)
    model.eval()
    x, lab = ids((2, 6)), labels((2, 6), 2)
    given = {"A": lab, "B": torch.zeros_like(lab)}
    with torch.no_grad():
        want = {name: model(input_ids=x, logic_ids=given[name]).logits for name in given}
    began = {name: threading.Event() for name in ("A", "B", "A done", "B done")}

    def hold(module, args):
        me = threading.current_thread().name
        began[me].set()
        began["B" if me == "A" else "A done"].wait(10)

    got = {}

    def run():
        me = threading.current_thread().name
        with torch.no_grad():
            got[me] = model(input_ids=x, logic_ids=given[me]).logits
        began[me + " done"].set()

    handle = logical_embedding(model).register_forward_pre_hook(hold)
    first = threading.Thread(target=run, name="A")
    first.start()
    assert began["A"].wait(10)
    second = threading.Thread(target=run, name="B")
    second.start()
    first.join(20)
    second.join(20)
    handle.remove()
    torch.testing.assert_close(got["A"], want["A"])
    torch.testing.assert_close(got["B"], want["B"])


def test_a_checkpoint_loads_from_the_hub_cache_and_a_subfolder(tmp_path):
    model = tiny("bert", T.AutoModelForSequenceClassification)
    logicalize(model, k=2)
    model.save_pretrained(tmp_path / "local" / "sub")
    repo = tmp_path / "hub" / "models--me--logical-bert"
    snapshot = repo / "snapshots" / ("a" * 40)
    model.save_pretrained(snapshot)
    (repo / "refs").mkdir()
    (repo / "refs" / "main").write_text("a" * 40)
    x, lab = ids((2, 6)), labels((2, 6), 2)
    model.eval()
    for loaded in (from_pretrained(str(tmp_path / "local"), subfolder="sub"),
                   from_pretrained("me/logical-bert", cache_dir=str(tmp_path / "hub"),
                                   local_files_only=True)):
        torch.testing.assert_close(loaded.eval()(input_ids=x, logic_ids=lab).logits,
                                   model(input_ids=x, logic_ids=lab).logits)


@pytest.mark.parametrize("entry, reason", [
    ({"k": 2, "n_logic": 16, "seed": 3, "layer": "x"}, r"unknown keys 'layer', 'seed'"),
    ("k=2", r"str, not a mapping"),
    ({"k": 2.5}, r"\[E506\] Unknown K \(logic depth\) 2.5"),
    ({"k": 2, "n_logic": 8}, r"size mismatch"),
])
def test_an_edited_logicparse_config_entry_is_a_coded_error(tmp_path, entry, reason):
    import json

    model = tiny("bert", T.AutoModelForSequenceClassification)
    logicalize(model, k=2)
    model.save_pretrained(tmp_path)
    config = json.loads((tmp_path / "config.json").read_text())
    config["logicparse"] = entry
    (tmp_path / "config.json").write_text(json.dumps(config))
    with pytest.raises(ModelLoadError, match=r"\[E519\].*" + reason):
        from_pretrained(str(tmp_path))


def test_a_model_pickled_before_labels_were_kept_per_thread_still_runs():
    model = tiny("bert", T.AutoModelForSequenceClassification)
    logicalize(model, k=2)
    model.eval()
    x, lab = ids((2, 6)), labels((2, 6), 2)
    emb = logical_embedding(model)
    old = {k: v for k, v in emb.__dict__.items() if k != "_by_thread"}
    old.update(_labels=None, labels_used=False)  # what such a pickle holds
    emb.__dict__.clear()
    emb.__setstate__(old)
    assert emb._by_thread == {} and "_labels" not in emb.__dict__
    assert model(input_ids=x, logic_ids=lab).logits.shape == (2, 2)


def test_numpy_sizes_save_and_load(tmp_path):
    import numpy as np

    model = tiny("bert", T.AutoModelForSequenceClassification)
    logicalize(model, k=np.int64(2), n_logic=np.int32(8), projection="mlp", mlp_hidden=np.int64(4))
    model.save_pretrained(tmp_path)  # json refused numpy integers
    assert logical_embedding(from_pretrained(str(tmp_path))).mlp_hidden == 4


def test_an_embedding_of_another_size_is_refused_and_the_wrong_class_keeps_its_error(tmp_path):
    from logicparse.errors import ModelingError

    model = tiny("bart", T.AutoModelForSeq2SeqLM)
    logicalize(model, k=2)
    with pytest.raises(ModelingError, match=r"\[E539\] .* size 8, .* projects size 16"):
        model.set_input_embeddings(torch.nn.Embedding(120, 8))
    assert logical_embedding(model) is not None
    model.save_pretrained(tmp_path)
    with pytest.raises(ModelingError, match=r"\[E503\] logicalize\(\) found no word embedding"):
        from_pretrained(str(tmp_path), T.BartForCausalLM)


def test_only_the_checkpoints_own_weight_files_are_read(tmp_path):
    """Every *.safetensors of the folder was read: a stray file holding the same names (another
    run's weights, an adapter) made the parameters ambiguous."""
    from safetensors.torch import save_file

    model = tiny("bert", T.AutoModelForSequenceClassification)
    logicalize(model, k=2)
    model.save_pretrained(tmp_path)
    save_file({k: v + 1 for k, v in model.state_dict().items() if "logic_vectors" in k
               or "word_embeddings.proj" in k}, str(tmp_path / "other.safetensors"))
    loaded = from_pretrained(str(tmp_path))
    torch.testing.assert_close(logical_embedding(loaded).logic_vectors.weight,
                               logical_embedding(model).logic_vectors.weight)

"""What a run selects on and reports: the test set is scored with the best dev epoch's weights,
and the dev carve and training subset are the split seed's, whatever the training seed."""

import importlib

import pytest
import torch
import transformers as T
from test_training import FIX, tokenizer  # noqa: F401 (fixture)
from test_training_downstream import tiny_pair_model

from logicparse.training import TrainConfig, train

CONJ = FIX / "conjnli"
DEV, TEST = 4, 6  # pairs carved as dev from the 12 training pairs; pairs in the test file
loop = importlib.import_module("logicparse.training.train")
FORWARD = T.BertForSequenceClassification.forward


def _watch(monkeypatch, seen):
    """Every call of the pair model: (training or not, its inputs, its weights, its logits)."""
    def watched(self, **batch):
        out = FORWARD(self, **batch)
        weights = {k: v.detach().clone() for k, v in self.state_dict().items()}
        seen.append((self.training, batch, weights, out.logits.detach().clone()))
        return out

    monkeypatch.setattr(T.BertForSequenceClassification, "forward", watched)


@pytest.mark.parametrize("checkpoint", [True, False])  # best/ on disk, or the weights in memory
def test_the_test_set_is_scored_with_the_best_dev_epochs_weights(tmp_path, tokenizer, monkeypatch,
                                                                 checkpoint):
    # Dev scores that make the first of three epochs the best: correct answers of the 4 dev pairs.
    dev_correct = iter([3, 1, 2])
    real = loop.count_correct
    monkeypatch.setattr(loop, "count_correct", lambda logits, labels: next(dev_correct)
                        if len(labels) == DEV else real(logits, labels))
    seen = []
    _watch(monkeypatch, seen)
    path = tiny_pair_model(tmp_path / "m", tokenizer)
    # On the CPU wherever the test runs: the weights are rescored below in float32, where a GPU
    # run's were scored under bf16 autocast.
    result = train(TrainConfig(task="conjnli", model=path, data=str(CONJ), out=str(tmp_path / "o"),
                               logic="none", dev_size=DEV, batch_size=4, eval_batch_size=16,
                               epochs=3, lr=1e-2, bucket=False, checkpoint=checkpoint, quiet=True,
                               device="cpu"))
    assert result["dev_curve"] == [0.75, 0.25, 0.5] and result["dev"]["epoch"] == 0
    evaluated = [(batch, weights, logits) for training, batch, weights, logits in seen
                 if not training]
    after_epoch = [weights for batch, weights, _ in evaluated if len(batch["labels"]) == DEV]
    (test_batch, _, scored), = [e for e in evaluated if len(e[0]["labels"]) == TEST]
    assert len(after_epoch) == 3

    def logits_of(weights):
        model = T.BertForSequenceClassification.from_pretrained(path)
        model.load_state_dict(weights)
        model.eval()
        with torch.no_grad():
            return FORWARD(model, **test_batch).logits

    best, last = logits_of(after_epoch[0]), logits_of(after_epoch[-1])
    assert not torch.allclose(best, last)  # the epochs' models answer differently
    torch.testing.assert_close(scored, best)
    assert result["test"]["predictions"] == best.argmax(-1).tolist()  # file order: no buckets


def _examples_read(tmp_path, tokenizer, monkeypatch, seed, split_seed):
    seen = []
    _watch(monkeypatch, seen)
    path = tiny_pair_model(tmp_path / f"m{seed}-{split_seed}", tokenizer)
    train(TrainConfig(task="conjnli", model=path, data=str(CONJ), logic="none",
                      out=str(tmp_path / f"o{seed}-{split_seed}"), dev_size=DEV, train_size=6,
                      batch_size=2, eval_batch_size=16, epochs=1, lr=0.0, seed=seed,
                      split_seed=split_seed, checkpoint=False, quiet=True))
    texts = {True: set(), False: set()}
    for training, batch, _, _ in seen:
        if training or len(batch["labels"]) == DEV:
            texts[training] |= set(tokenizer.batch_decode(batch["input_ids"],
                                                          skip_special_tokens=True))
    return texts[True], texts[False]  # training pairs, dev pairs


def test_every_training_seed_trains_and_selects_on_the_split_seeds_examples(tmp_path, tokenizer,
                                                                           monkeypatch):
    train0, dev0 = _examples_read(tmp_path, tokenizer, monkeypatch, seed=0, split_seed=5)
    assert len(train0) == 6 and len(dev0) == DEV and not train0 & dev0
    assert _examples_read(tmp_path, tokenizer, monkeypatch, seed=1, split_seed=5) == (train0, dev0)
    train2, dev2 = _examples_read(tmp_path, tokenizer, monkeypatch, seed=0, split_seed=6)
    assert dev2 != dev0 and train2 != train0

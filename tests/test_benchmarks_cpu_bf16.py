"""The figures `benchmarks/speed/cpu_bf16.py` prints (a training step in float32 against bf16
autocast on CPU), on known timings, and one real run of a tiny model."""

import json

import transformers as T

from tests.conftest import benchmark_module


def test_medians_and_ratio_on_known_timings():
    bench = benchmark_module("speed/cpu_bf16")
    out = bench.summarize({"fp32": [6.0, 7.0, 9.0], "bf16": [2.0, 1.0, 3.0, 2.0]})
    assert out == {"fp32_step_s": 7.0, "bf16_step_s": 2.0, "ratio": 3.5}


def test_a_tiny_model_runs_both_precisions_and_prints_one_json_line(tmp_path, capsys):
    cfg = T.BertConfig(vocab_size=100, hidden_size=16, num_hidden_layers=1, num_attention_heads=2,
                       intermediate_size=32, max_position_embeddings=32)
    T.BertForSequenceClassification(cfg).save_pretrained(tmp_path / "m")
    bench = benchmark_module("speed/cpu_bf16")
    assert bench.main(["--model", str(tmp_path / "m"), "--batch-size", "2", "--length", "8",
                       "--steps", "2", "--rounds", "1"]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    summary = json.loads(lines[-1])
    assert lines[0].startswith("fp32: ") and lines[1].startswith("bf16: ")
    assert summary["steps"] == 2 and summary["ratio"] > 0
    assert lines[-2].endswith(f"{summary['ratio']:.2f}x")

"""Choosing the decoder's span bias on development data (``logicparse parser calibrate``).

Trained with span cross-entropy, where most spans are "no constituent", the parser is cautious:
its precision runs ahead of its recall. Adding one constant to every real label's score before
CKY trades the two; the constant that maximises F1 on development trees (never the test set) is
stored in the model's ``config.json`` (``logicparse.span_bias``). Span scores are computed once and
re-decoded for each candidate, so this takes one parsing pass.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Sequence

import numpy as np

from .evalb import evalb
from .fast_span import decode_chart
from .treebank import TreebankExample


def calibrate_span_bias(model, examples: Sequence[TreebankExample],
                        candidates: Sequence[float] = (-1.0, -0.5, 0.0, 0.25, 0.5, 0.75, 1.0,
                                                       1.5, 2.0)) -> dict:
    """F1 for each candidate bias on ``examples``; ``model`` is a loaded ChartParserModel."""
    parser = model.chart_parser
    scores = []
    for b in range(0, len(examples), 64):
        scores += list(parser.parse(list(examples[b : b + 64]), return_scores=True,
                                    subbatch_max_tokens=model.subbatch_max_tokens))
    gold = [ex.tree for ex in examples]
    results = {}
    for bias in candidates:
        predicted = []
        for ex, sc in zip(examples, scores):
            chart = decode_chart(np.asarray(sc, dtype=np.float32), parser.decoder.force_root_constituent,
                                 bias)
            out = parser.decoder.compressed_output_from_chart(chart)
            predicted.append(out.to_tree(ex.pos(), parser.decoder.label_from_index))
        results[bias] = evalb(gold, predicted).to_dict()
    return results


def write_span_bias(model_dir: str | Path, bias: float, results: dict, dev: str) -> None:
    cfg_path = Path(model_dir) / "config.json"
    config = json.loads(cfg_path.read_text())
    config.setdefault("logicparse", {})["span_bias"] = bias
    config["logicparse"]["span_bias_calibration"] = {
        "dev": dev, "f1_by_bias": {str(k): v["f1"] for k, v in results.items()}}
    cfg_path.write_text(json.dumps(config, indent=2, sort_keys=True))

"""`parser calibrate`'s choice of span bias, on hand-built span scores decoded by benepar's own
ChartDecoder: the bias decides which cautious spans enter the chart, and with them the F1."""

import json

import nltk
import numpy as np
import pytest
from benepar.decode_chart import ChartDecoder

from logicparse.parser.calibration import CANDIDATES, best_bias, f1_by_bias
from logicparse.parser.treebank import TreebankExample

LABELS = {"": 0, "S": 1, "NP": 2, "VP": 3}
GOLD = "(TOP (S (NP (PRP I)) (VP (VBP like) (NP (NN tea)))))"


def scores() -> np.ndarray:
    """Spans (i, j) cover words i..j. Against 'no constituent' at 0: the subject NP is sure; the
    VP and the object NP are cautious (-0.3); a wrong NP over 'like' is unlikely (-1.6);
    everything else is very unlikely. The root S scores low too (-1.0): it is there because
    the decoder forces a root, whatever the bias."""
    s = np.full((3, 3, len(LABELS)), -5.0, dtype=np.float32)
    s[..., 0] = 0.0
    s[0, 2, LABELS["S"]] = -1.0
    s[0, 0, LABELS["NP"]] = 2.0
    s[1, 2, LABELS["VP"]] = -0.3
    s[2, 2, LABELS["NP"]] = -0.3
    s[1, 1, LABELS["NP"]] = -1.6
    return s


def test_bias_changes_the_chart_and_the_best_is_chosen():
    example = TreebankExample.from_tree(nltk.Tree.fromstring(GOLD))
    results = f1_by_bias(ChartDecoder(LABELS, force_root_constituent=True), [example], [scores()])
    f1 = {b: results[b]["f1"] for b in CANDIDATES}
    # Below 0.3 only S and the subject NP: 2 of 4 gold brackets, all right: F1 2/3.
    # From 0.5 the cautious VP and NP join: the gold tree. At 2.0 the wrong NP joins: P 4/5.
    expected = {-1.0: 2 / 3, -0.5: 2 / 3, 0.0: 2 / 3, 0.25: 2 / 3, 0.5: 1.0, 0.75: 1.0,
                1.0: 1.0, 1.5: 1.0, 2.0: 8 / 9}
    assert f1 == pytest.approx(expected, abs=1e-6)
    assert results[0.0]["precision"] == 1.0 and results[0.0]["recall"] == 0.5
    assert results[2.0]["precision"] == pytest.approx(0.8) and results[2.0]["recall"] == 1.0
    assert best_bias(results) == 0.5  # the most cautious of the equally good


def test_write_span_bias_keeps_the_config_and_records_the_search(tmp_path):
    from logicparse.parser.calibration import write_span_bias

    results = {0.0: {"f1": 0.5}, 0.5: {"f1": 0.75}}
    for before in ({"vocab": 7, "d_model": 32, "logicparse": {"name": "x"}}, {"d_model": 32}):
        (tmp_path / "config.json").write_text(json.dumps(before))
        write_span_bias(tmp_path, 0.5, results, "dev.mrg")
        config = json.loads((tmp_path / "config.json").read_text())
        assert config["d_model"] == 32
        assert config["logicparse"].get("name") == before.get("logicparse", {}).get("name")
        assert config["logicparse"]["span_bias"] == 0.5
        assert config["logicparse"]["span_bias_calibration"] == {
            "dev": "dev.mrg", "f1_by_bias": {"0.0": 0.5, "0.5": 0.75}}
        # written as it is kept under version control: keys sorted, two-space indents
        assert (tmp_path / "config.json").read_text() == json.dumps(config, indent=2,
                                                                    sort_keys=True)
        assert list(config) == sorted(config)

"""`logicparse senses train` fits the classifiers on the float32 encoder's vectors, whatever
precision annotation runs the encoder in."""

import json

from typer.testing import CliRunner


def test_senses_train_reads_the_float32_encoder(tmp_path, monkeypatch):
    from logicparse.cli import _register, app
    from logicparse.senses import train

    seen = []

    def fit(anns, encoder, keywords, out, **kwargs):
        seen.append(encoder.precision)
        return {"keywords": {}}

    monkeypatch.setenv("LOGICPARSE_ENCODER_PRECISION", "int8")
    monkeypatch.setattr(train, "train_models", fit)
    _register()
    data = tmp_path / "train.jsonl"
    data.write_text(json.dumps({"keyword": "since", "text": "Since then .", "char_start": 0,
                                "char_end": 5, "label": "temporal", "source": "hand"}) + "\n")
    res = CliRunner().invoke(app, ["senses", "train", "--annotations", str(data), "--out",
                                   str(tmp_path / "svm")])
    assert res.exit_code == 0, res.output
    assert seen == ["fp32"]

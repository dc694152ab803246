"""Train benepar's ChartParser on cleaned treebanks (``logicparse parser train``).

One readable loop, nanoGPT style: read a TOML config, seed everything, build
``benepar.parse_chart.ChartParser`` (its span scorer, CKY decoder and label handling) on a
pretrained encoder, train with periodic dev F1, keep the best model, stop early, checkpoint so a
later session can ``--resume``, and export the best model in benepar's release format.

Three choices differ from benepar's own recipe, all for a CPU budget:
- ``loss = "span_ce"`` trains every span's label with cross-entropy (independent span
  classification) instead of benepar's structured margin loss, whose CKY (torch-struct) costs more
  than the encoder on a CPU. Decoding is still benepar's CKY, so outputs are always trees.
  ``loss = "margin"`` restores benepar's loss.
- ``freeze_word_embeddings``: the encoder's word-piece embedding matrix (half of MiniLM's weights)
  is kept as installed, so the exported model omits it and rebuilds it from the installed package,
  keeping the bundled files under 30 MB.
- ``cache_layers = k`` keeps MiniLM's embeddings and bottom k layers as installed and runs them
  once over the training set before training (their outputs do not change), so each step runs
  only the top layers and benepar's head: several times more sentences per second on a CPU, while
  the top layers are still fine-tuned. Inference runs the whole, unchanged ChartParser.

The configuration keys and their defaults are in ``train_config.py``; the objective and the
layer cache in ``layer_cache.py``.
"""

from __future__ import annotations

import json
import math
import random
import sys
import time
from pathlib import Path
from typing import Optional

import numpy as np
import torch

from ..checkpoints import load_checkpoint, save_checkpoint as write_checkpoint
from ..errors import Errors, ModelLoadError
from .evalb import evalb
from .layer_cache import BottomLayerCache, span_loss
from ..resources import MINILM, encoder_path, known_encoder
from .train_config import load_config
from .treebank import TreebankExample, load_examples


def log(msg: str) -> None:
    print(time.strftime("%H:%M:%S"), msg, flush=True)


def build_parser(model_cfg: dict, train_trees: list, pretrained: bool = True):
    """A fresh ChartParser whose vocabularies come from the training trees."""
    from benepar import decode_chart, nkutil, parse_chart

    label_vocab = decode_chart.ChartDecoder.build_vocab(train_trees)
    tags = sorted({tag for t in train_trees for _, tag in t.pos()})
    tag_vocab = {"UNK": 0, **{t: i + 1 for i, t in enumerate(x for x in tags if x != "UNK")}}
    hp = dict(model_cfg)
    if hp["force_root_constituent"] == "auto":
        hp["force_root_constituent"] = decode_chart.ChartDecoder.infer_force_root_constituent(
            train_trees)
    hp["pretrained_model"] = encoder_path(hp["pretrained_model"])
    hparams = nkutil.HParams(**hp)
    from .loading import quiet_pad_advice

    if pretrained:
        parser = parse_chart.ChartParser(tag_vocab, label_vocab, None, hparams)
    else:  # random encoder weights from the config alone (tests, or weights loaded afterwards)
        parser = parse_chart.ChartParser(tag_vocab, label_vocab, None, hparams,
                                         pretrained_model_path=hp["pretrained_model"])
    quiet_pad_advice(parser)
    return parser


def bucketed_order(examples: list, batch_size: int, window: int) -> list[int]:
    """A shuffled epoch in which each run of ``batch_size`` indices holds similar lengths.

    Span scores are computed for every (start, end) pair of the longest sentence in a batch, so a
    batch of similar lengths pads far less; batches are shuffled again so lengths still mix.
    """
    order = random.sample(range(len(examples)), len(examples))
    if window <= 1:
        return order
    batches = []
    step = batch_size * window
    for a in range(0, len(order), step):
        chunk = sorted(order[a : a + step], key=lambda i: len(examples[i].words))
        batches += [chunk[b : b + batch_size] for b in range(0, len(chunk), batch_size)]
    random.shuffle(batches)
    return [i for b in batches for i in b]


def dev_f1(parser, examples: list[TreebankExample], subbatch_max_tokens: int) -> dict:
    from .fast_span import install

    install(parser)  # benepar's trees, decoded without autograd (see fast_span)
    predicted = parser.parse(examples, subbatch_max_tokens=subbatch_max_tokens)
    return evalb([ex.tree for ex in examples], predicted).to_dict()


def make_optimizer(parser, tcfg: dict):
    enc, head = [], []
    for name, p in parser.named_parameters():
        if not p.requires_grad:
            continue
        (enc if name.startswith("pretrained_model.") else head).append(p)
    groups = [{"params": head, "lr": tcfg["lr_head"], "base_lr": tcfg["lr_head"]}]
    if enc:
        groups.append({"params": enc, "lr": tcfg["lr_encoder"], "base_lr": tcfg["lr_encoder"]})
    return torch.optim.AdamW(groups, weight_decay=tcfg["weight_decay"])


def train(config_path: str, out_dir: str, resume: bool = False, overrides: Optional[dict] = None,
          export_to: Optional[str] = None, pretrained: bool = True) -> dict:
    """Run training; returns a summary dict (best dev F1, sentences seen, minutes, paths)."""
    run = _Training(config_path, out_dir, overrides, export_to)  # the config, seeds, out/
    run.load_data()
    run.build(pretrained, resume)
    if resume:
        run.resume()
    run.loop()
    return run.summary()


class _Training:
    """One parser training run, its steps in the order :func:`train` takes them."""

    def __init__(self, config_path: str, out_dir: str, overrides: Optional[dict],
                 export_to: Optional[str]):
        cfg = load_config(config_path)
        for k, v in (overrides or {}).items():
            section = "model" if k in cfg["model"] else "train"
            cfg[section][k] = v
        tcfg = self.tcfg = cfg["train"]
        self.mcfg = cfg["model"]
        self.out = Path(out_dir)
        self.out.mkdir(parents=True, exist_ok=True)
        (self.out / "config.json").write_text(json.dumps(cfg, indent=2))
        self.export_to = export_to
        torch.set_num_threads(int(tcfg["threads"]))
        random.seed(tcfg["seed"])
        np.random.seed(tcfg["seed"])
        torch.manual_seed(tcfg["seed"])
        self.state = dict(step=0, seen=0, epoch=0, pos=0, best_f1=-1.0, evals_since_best=0,
                          lr_scale=1.0, started=time.time(), elapsed=0.0, history=[], order=None)
        self.ckpt_path = self.out / "checkpoint.pt"

    def load_data(self) -> None:
        tcfg = self.tcfg
        self.train_ex: list[TreebankExample] = []
        for path in tcfg["train"]:
            exs = load_examples(path, max_len=tcfg["max_train_len"])
            log(f"train {path}: {len(exs)} trees (<= {tcfg['max_train_len']} words)")
            self.train_ex += exs
        self.dev_ex = load_examples(tcfg["dev"])[: tcfg["dev_limit"] or None]
        log(f"dev {tcfg['dev']}: {len(self.dev_ex)} trees")

    def build(self, pretrained: bool, resume: bool) -> None:
        tcfg, mcfg = self.tcfg, self.mcfg
        parser = build_parser(mcfg, [ex.tree for ex in self.train_ex], pretrained=pretrained)
        if tcfg["init_from"] and not resume:
            # Warm start from an exported model (weights only: a fresh optimizer and schedule).
            from .loading import load_chart_parser

            start, meta = load_chart_parser(Path(tcfg["init_from"]), "")
            if start.label_vocab != parser.label_vocab or start.tag_vocab != parser.tag_vocab:
                raise ModelLoadError(Errors.E121.format(
                    path=tcfg["init_from"], reason="its label or tag vocabulary differs from this "
                    "config's training data"))
            parser.load_state_dict(start.state_dict())
            log(f"initialised from {tcfg['init_from']} ({meta.get('metrics', {})})")
        if tcfg["freeze_encoder"]:
            parser.pretrained_model.requires_grad_(False)
        else:
            if tcfg["freeze_word_embeddings"]:
                parser.pretrained_model.embeddings.word_embeddings.weight.requires_grad_(False)
            n_frozen = max(tcfg["freeze_layers"], tcfg["cache_layers"])
            if n_frozen:
                parser.pretrained_model.embeddings.requires_grad_(False)
                for layer in parser.pretrained_model.encoder.layer[:n_frozen]:
                    layer.requires_grad_(False)
        self.parser, self.optimizer = parser, make_optimizer(parser, tcfg)
        # Weights training leaves as installed (frozen MiniLM weights) are left out of the export
        # and rebuilt from the package when the model loads.
        self.omit = []
        if pretrained and known_encoder(mcfg["pretrained_model"]) == MINILM:
            self.omit = [f"pretrained_model.{k}" for k, p in parser.pretrained_model.named_parameters()
                         if not p.requires_grad]
        n_params = sum(p.numel() for p in parser.parameters() if p.requires_grad)
        log(f"{len(parser.label_vocab)} span labels, {len(parser.tag_vocab)} tags, "
            f"{n_params / 1e6:.1f}M trainable parameters, loss={tcfg['loss']}")

    def resume(self) -> None:
        path, parser, state = self.ckpt_path, self.parser, self.state
        ckpt = load_checkpoint(
            path, ("state_dict", "optimizer", "state", "label_vocab", "rng"),
            lambda reason: ModelLoadError(Errors.E121.format(path=path, reason=reason)))
        if ckpt["label_vocab"] != parser.label_vocab:
            raise ModelLoadError(Errors.E121.format(
                path=path, reason="its label vocabulary differs from this config's data"))
        parser.load_state_dict(ckpt["state_dict"])
        self.optimizer.load_state_dict(ckpt["optimizer"])
        state.update(ckpt["state"])
        random.setstate(ckpt["rng"]["python"])
        torch.set_rng_state(ckpt["rng"]["torch"])
        log(f"resumed at step {state['step']} ({state['seen']} sentences, best dev F1 "
            f"{state['best_f1']:.4f})")

    def save_checkpoint(self) -> None:
        state = self.state
        state["elapsed"] = time.time() - state["started"]
        write_checkpoint({"state_dict": self.parser.state_dict(),
                          "optimizer": self.optimizer.state_dict(), "state": state,
                          "label_vocab": self.parser.label_vocab, "config": self.parser.config,
                          "rng": {"python": random.getstate(), "torch": torch.get_rng_state()}},
                         self.ckpt_path)

    def set_lr(self) -> None:
        warm = min(1.0, (self.state["step"] + 1) / max(1, self.tcfg["warmup_steps"]))
        for g in self.optimizer.param_groups:
            g["lr"] = g["base_lr"] * warm * self.state["lr_scale"]

    def export(self, res: dict) -> None:
        from .export import export_model

        tcfg = self.tcfg
        metrics = {"dev_f1": res["f1"], "dev": tcfg["dev"], "dev_sentences": res["sentences"],
                   "seen": self.state["seen"]}
        for where in [self.out / "model"] + ([Path(self.export_to)] if self.export_to else []):
            export_model(self.parser, where, name=tcfg["name"], dtype=tcfg["export_dtype"],
                         omit_word_embeddings=self.omit, metrics=metrics,
                         max_train_words=tcfg["max_train_len"])

    def evaluate(self) -> bool:
        """Score dev, keep the best model; returns True when training should stop."""
        tcfg, state = self.tcfg, self.state
        t0 = time.time()
        res = dev_f1(self.parser, self.dev_ex, tcfg["subbatch_max_tokens"])
        state["history"].append({"seen": state["seen"], "step": state["step"],
                                 "minutes": round((time.time() - state["started"]) / 60, 1),
                                 **res})
        improved = res["f1"] > state["best_f1"]
        if improved:
            state["best_f1"] = res["f1"]
            state["evals_since_best"] = 0
            self.export(res)
        else:
            state["evals_since_best"] += 1
            if state["evals_since_best"] % tcfg["plateau_patience"] == 0:
                state["lr_scale"] *= 0.5
        log(f"dev F1 {res['f1']:.4f} (P {res['precision']:.4f} R {res['recall']:.4f}) after "
            f"{state['seen']} sentences, {(time.time() - state['started']) / 60:.1f} min, "
            f"eval {time.time() - t0:.0f}s{' *best*' if improved else ''} lr x{state['lr_scale']}")
        self.save_checkpoint()
        return state["evals_since_best"] >= tcfg["early_stop_patience"]

    def next_batch(self) -> Optional[list[int]]:
        """The next batch's example indices (a new bucketed order each epoch); None when the
        epochs are done."""
        state, bs = self.state, self.tcfg["batch_size"]
        if state["order"] is None or state["pos"] >= len(state["order"]):
            if state["order"] is not None:
                state["epoch"] += 1
                if state["epoch"] >= self.tcfg["max_epochs"]:
                    return None
            state["order"] = bucketed_order(self.train_ex, bs, self.tcfg["bucket_batches"])
            state["pos"] = 0
        batch_ids = state["order"][state["pos"]: state["pos"] + bs]
        state["pos"] += len(batch_ids)
        return batch_ids

    def step(self, batch_ids: list[int], cache) -> float:
        """One optimizer step on a batch; its loss."""
        tcfg, parser = self.tcfg, self.parser
        self.set_lr()
        self.optimizer.zero_grad(set_to_none=True)
        batch_loss = 0.0
        if cache is not None:
            loss = cache.loss(parser, batch_ids, tcfg["loss"])
            loss.backward()
            batch_loss += loss.item()
        else:
            batch = [self.train_ex[i] for i in batch_ids]
            for _, sub in parser.encode_and_collate_subbatches(batch, tcfg["subbatch_max_tokens"]):
                loss = span_loss(parser, sub, tcfg["loss"])
                loss.backward()
                batch_loss += loss.item()
        if tcfg["clip_grad_norm"]:
            torch.nn.utils.clip_grad_norm_(parser.parameters(), tcfg["clip_grad_norm"])
        self.optimizer.step()
        self.state["step"] += 1
        self.state["seen"] += len(batch_ids)
        if not math.isfinite(batch_loss):
            raise FloatingPointError(f"loss is {batch_loss} at step {self.state['step']}")
        return batch_loss

    def loop(self) -> None:
        tcfg, state = self.tcfg, self.state
        state["started"] = time.time() - state["elapsed"]
        cache = None
        if tcfg["cache_layers"] and not tcfg["freeze_encoder"]:
            cache = BottomLayerCache(self.parser, self.train_ex, tcfg["cache_layers"], log=log)
        self.parser.train()
        next_eval = (state["seen"] // tcfg["eval_every"] + 1) * tcfg["eval_every"]
        stop = False
        t_log, seen_log = time.time(), state["seen"]
        loss_sum, loss_n = 0.0, 0
        while not stop and state["epoch"] < tcfg["max_epochs"]:
            batch_ids = self.next_batch()
            if batch_ids is None:
                break
            loss_sum += self.step(batch_ids, cache)
            loss_n += 1
            if state["step"] % tcfg["log_every"] == 0:
                rate = (state["seen"] - seen_log) / max(1e-9, time.time() - t_log)
                log(f"epoch {state['epoch']} step {state['step']} seen {state['seen']} "
                    f"loss {loss_sum / loss_n:.3f} {rate:.1f} sent/s")
                t_log, seen_log, loss_sum, loss_n = time.time(), state["seen"], 0.0, 0
            minutes = (time.time() - state["started"]) / 60
            out_of_time = tcfg["max_minutes"] and minutes >= tcfg["max_minutes"]
            if state["seen"] >= next_eval or out_of_time:
                next_eval += tcfg["eval_every"]
                stop = self.evaluate()
                self.parser.train()
                if out_of_time:
                    log(f"time limit of {tcfg['max_minutes']} minutes reached")
                    stop = True
        if not stop and (not state["history"] or state["history"][-1]["seen"] != state["seen"]):
            self.evaluate()  # ran out of epochs: score the last weights too

    def summary(self) -> dict:
        state = self.state
        summary = {"best_dev_f1": state["best_f1"], "sentences_seen": state["seen"],
                   "steps": state["step"], "epochs": state["epoch"],
                   "minutes": round((time.time() - state["started"]) / 60, 1),
                   "model": str(self.out / "model"), "history": state["history"]}
        (self.out / "summary.json").write_text(json.dumps(summary, indent=2))
        return summary


if __name__ == "__main__":  # pragma: no cover - `logicparse parser train` is the front door
    print(json.dumps(train(sys.argv[1], sys.argv[2], resume="--resume" in sys.argv)))

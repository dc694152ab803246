"""Fine-tune a Logical Transformer (or its baseline, ``logic="none"``) on a downstream task:
DREAM, LogiQA (multiple choice), DialogSum (summaries), ConjNLI (sentence pairs).

Read top to bottom: :func:`train` names the steps (the data and its labels, the model, the encoded
splits, the optimizer, the loop, the final evaluation), and :class:`Run` takes them in that order,
one method each; what a run is asked to do is ``config.TrainConfig``. The same code runs on CPU and
GPU; on a GPU it trains under bf16 autocast. Every run writes to ``out``:

    metrics.jsonl   one JSON object per logged step and per evaluation
    ckpt.pt         model + optimizer + scheduler + position, for ``resume=True`` (the model's
                    size times three: 276 MB for MiniLM; ``checkpoint=False`` writes neither it
                    nor best/ and keeps the best dev weights in memory)
    best/           the best model on dev (save_pretrained; logical ones load with
                    logicparse.modeling.from_pretrained), with its tokenizer
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import sys
import time
import warnings
from dataclasses import asdict

import numpy as np
import torch

from ..checkpoints import load_checkpoint, load_state, rng_state, save_folder, set_rng_state
from ..checkpoints import save_checkpoint as write_checkpoint
from ..errors import DataFormatError, Errors
from ..resources import native_cpu_bf16
from ..terminal import safe
from . import batches as B
from . import labels as L
from . import tasks as T
from .metrics import count_correct, mean_loss, rouge
from .config import TrainConfig
from .splits import read_splits, resolve_model_path


def train(cfg: TrainConfig, annotator=None) -> dict:
    """Run the whole job; returns the final metrics (also the last line of metrics.jsonl)."""
    run = Run(cfg)  # seeds, device; a checkpoint to resume is checked before the data is read
    run.prepare_data(annotator)
    run.build_model()
    run.encode_data()
    run.build_optimizer()
    run.loop()
    return run.finish()


class Run:
    """One training run, its steps in the order :func:`train` takes them."""
    MODEL_KEYS = ("task", "logic", "k", "n_logic", "projection", "layer")  # what a checkpoint is
    # What orders the batches: resumed with another, an epoch would repeat some examples, skip others.
    ORDER_KEYS = ("seed", "split_seed", "train_size", "batch_size", "grad_accum", "bucket")

    def __init__(self, cfg: TrainConfig):
        import transformers

        transformers.set_seed(cfg.seed)
        self.cfg = cfg
        self.device = device = cfg.device if cfg.device != "auto" else (
            "cuda" if torch.cuda.is_available() else "cpu")
        on_cuda = device.startswith("cuda")
        self.use_bf16 = (cfg.bf16 and on_cuda and torch.cuda.is_bf16_supported()) or \
            (cfg.cpu_bf16 and device == "cpu")
        kind = "cuda" if on_cuda else "cpu"
        if self.use_bf16 and not on_cuda and not native_cpu_bf16():
            warnings.warn(Errors.W502.format(capability=torch.backends.cpu.get_cpu_capability()),
                          stacklevel=2)
        self.autocast = (lambda: torch.autocast(kind, dtype=torch.bfloat16)) if self.use_bf16 \
            else contextlib.nullcontext
        self.ckpt_path = ckpt_path = os.path.join(cfg.out, "ckpt.pt")
        self.fail = lambda why: DataFormatError(Errors.E523.format(path=ckpt_path, reason=why))
        self.ckpt = None
        if cfg.resume and os.path.exists(ckpt_path):
            self.ckpt = load_checkpoint(ckpt_path, ("config", "model", "optimizer", "scheduler",
                                                    "step", "epoch", "micro", "best", "rng"), self.fail)
            trained = self.ckpt["config"] if isinstance(self.ckpt["config"], dict) else {}
            for key in (*self.MODEL_KEYS, *self.ORDER_KEYS):  # the latter where recorded
                was = trained.get(key, "paper" if key == "layer" else None)  # older: the paper's layer
                if was != getattr(cfg, key) and (key in trained or key in self.MODEL_KEYS):
                    raise self.fail(f"it was trained with {key}={was!r}")
        self.tty = sys.stderr.isatty() and not cfg.quiet
        self.metrics_file = None  # opened at the first record: a run refused before it leaves nothing

    def log(self, record: dict) -> None:
        if self.metrics_file is None:
            os.makedirs(self.cfg.out, exist_ok=True)
            self.metrics_file = open(os.path.join(self.cfg.out, "metrics.jsonl"), "a",
                                     encoding="utf-8")
        self.metrics_file.write(json.dumps(record) + "\n")
        self.metrics_file.flush()
        if not self.tty and not self.cfg.quiet:
            print(safe(" ".join(f"{k}={v:.4g}" if isinstance(v, float) else f"{k}={v}"
                                for k, v in record.items())), file=sys.stderr, flush=True)

    # ---- data and labels: everything is checked before the model is even loaded ---------------
    def prepare_data(self, annotator=None) -> None:
        cfg = self.cfg
        self.task, self.files, self.splits = task, files, splits = read_splits(cfg)
        T.check_splits(splits, files)
        if task.described and not cfg.quiet:
            print(safe(task.described), file=sys.stderr, flush=True)
        self.path = resolve_model_path(cfg.model)
        # a model without the task's head: refused here
        self.auto, self.model_config = task.model_class(self.path)
        self.logical = cfg.logic != "none"
        self.labels, self.fingerprints = None, {}
        if self.logical:
            texts = L.texts_of(ex for exs in splits.values() for ex in exs)
            annotation = L.labels_for(texts, cfg.shards, files["train"], source="default",
                                      annotator=annotator, parser=cfg.parser, senses=cfg.senses,
                                      device=self.device, workers=cfg.annotate_workers)
            where = str(cfg.shards or L.default_cache_dir(files["train"]))
            self.labels = {t: L.transform(d, cfg.logic, cfg.seed, where)
                           for t, d in annotation.items()}
            # What the model is fed, and the annotation its test texts had (a table's groups).
            self.fingerprints = {"labels_sha": L.digest(self.labels, texts),
                                 "test_annotation_sha": L.digest(
                                     annotation, L.texts_of(splits.get("test", [])))}

    # ---- model and tokenizer -----------------------------------------------------------------
    def build_model(self) -> None:
        import transformers

        from ..modeling import LogicAligner, from_pretrained, logical_embedding, logicalize

        cfg, task, path, auto = self.cfg, self.task, self.path, self.auto
        self.head = {"num_labels": len(task.classes), "id2label": dict(enumerate(task.classes)),
                     "label2id": {c: i for i, c in enumerate(task.classes)}} \
            if task.kind == T.PAIR else {}
        self.tokenizer = transformers.AutoTokenizer.from_pretrained(path, use_fast=True)
        saved_logic = getattr(self.model_config, "logicparse", None)
        if saved_logic and self.logical:
            model = from_pretrained(path, auto, **self.head)  # continue from a logical checkpoint
        else:
            model = auto.from_pretrained(path, **self.head)
            if self.logical:
                logicalize(model, n_logic=cfg.n_logic, k=cfg.k, projection=cfg.projection,
                           variant=cfg.layer, seed=cfg.seed)
        if self.ckpt is not None:  # another model's checkpoint is refused before data is encoded
            load_state(model, self.ckpt["model"], self.fail)
        self.model = model
        # A logical checkpoint keeps the depth it was trained with, whatever --k says.
        k = logical_embedding(model).k if self.logical else cfg.k
        self.aligner = LogicAligner(self.tokenizer, k=k, max_length=cfg.max_length) \
            if self.logical else None
        self.max_len = min(cfg.max_length,
                           getattr(model.config, "max_position_embeddings", 10**6) or 10**6)

    # ---- encode every split once (int32/uint8 on the host; padded per batch) ------------------
    def encode(self, ex, labels) -> dict:
        task, tokenizer, aligner, max_len = self.task, self.tokenizer, self.aligner, self.max_len
        if task.kind == T.MULTIPLE_CHOICE:
            enc = B.encode_choices(ex, tokenizer, aligner, labels, max_len)
            enc["labels"] = torch.tensor(ex.label)
        elif task.kind == T.PAIR:
            enc = B.encode_texts(ex.texts(), tokenizer, aligner, labels, max_len)
            enc["labels"] = torch.tensor(ex.label)
        else:
            enc = B.encode_texts([ex.dialogue], tokenizer, aligner, labels, max_len)
            enc["labels"] = torch.tensor(tokenizer(text_target=ex.summaries[0], truncation=True,
                                                   max_length=self.cfg.max_target_length).input_ids)
        if self.model.config.is_encoder_decoder:
            enc.pop("token_type_ids", None)  # BART-like models have no segments
        small = {"logic_ids": torch.uint8, "attention_mask": torch.int8, "token_type_ids": torch.int8}
        return {k: v.to(small.get(k, torch.int32)) for k, v in dict(enc).items()}

    def encode_data(self) -> None:
        from tqdm.auto import tqdm

        cfg, splits = self.cfg, self.splits
        if self.aligner:
            self.aligner.max_length = self.max_len
        self.data = {s: [self.encode(ex, self.labels)
                         for ex in tqdm(exs, desc=f"encode {s}", disable=not self.tty)]
                     for s, exs in splits.items()}
        # Test-time ablations: the test examples with labels shuffled, redrawn or none (all E).
        self.ablations = [a for a in L.ABLATIONS
                          if self.logical and a != cfg.logic and "test" in splits]
        for a in self.ablations:
            swapped = {t: L.transform(d, a, cfg.seed) for t, d in self.labels.items()}
            self.data[f"test:{a}"] = [self.encode(ex, swapped) for ex in splits["test"]]
            splits[f"test:{a}"] = splits["test"]

    def collate(self, items: list[dict]) -> dict:
        return B.collate(items, self.tokenizer.pad_token_id or 0)

    def batches(self, split: str, size: int, shuffle: bool, epoch: int = 0):
        lengths = np.array([it["input_ids"].shape[-1] for it in self.data[split]])
        for idx in B.batch_order(lengths, size, shuffle, self.cfg.seed * 1000 + epoch,
                                 self.cfg.bucket):
            batch = self.collate([self.data[split][j] for j in idx])
            batch["index"] = torch.as_tensor(idx)
            yield batch

    def to_device(self, batch: dict) -> dict:
        return {k: v.to(self.device) for k, v in batch.items() if k != "index"}

    # ---- optimizer: AdamW without decay on biases and norms; warm-up then linear decay ---------
    def build_optimizer(self) -> None:
        import transformers

        from ..modeling import logic_param_groups

        cfg, model = self.cfg, self.model
        model.to(self.device)
        self.optimizer = torch.optim.AdamW(
            logic_param_groups(model, cfg.lr, cfg.logic_lr, cfg.weight_decay), lr=cfg.lr,
            fused=self.device.startswith("cuda"))
        steps_per_epoch = math.ceil(math.ceil(len(self.data["train"]) / cfg.batch_size)
                                    / cfg.grad_accum)
        self.total_steps = steps_per_epoch * cfg.epochs
        if cfg.max_steps:
            self.total_steps = min(self.total_steps, cfg.max_steps)
        self.scheduler = transformers.get_linear_schedule_with_warmup(
            self.optimizer, int(cfg.warmup * self.total_steps), self.total_steps)
        # Resume: same run, same position (the shuffle order is a function of seed and epoch).
        self.step, self.epoch, self.micro_done, self.best = 0, 0, 0, None
        self.curve, self.step_time = [], 0.0
        self.best_state = None  # the best dev weights, in memory when nothing goes to disk
        ckpt = self.ckpt
        if ckpt is not None:
            self.optimizer.load_state_dict(ckpt["optimizer"])
            self.scheduler.load_state_dict(ckpt["scheduler"])
            self.step, self.epoch, self.micro_done = ckpt["step"], ckpt["epoch"], ckpt["micro"]
            self.best = ckpt["best"]
            self.curve, self.step_time = ckpt.get("curve", []), ckpt.get("step_time", 0.0)
            set_rng_state(ckpt["rng"], self.device)
            self.log({"event": "resume", "step": self.step, "epoch": self.epoch})

    def save_checkpoint(self, micro: int) -> None:
        cfg = self.cfg
        if not cfg.checkpoint or (self.task.name == "table" and not cfg.resumable):
            return
        write_checkpoint({"model": self.model.state_dict(), "optimizer": self.optimizer.state_dict(),
                          "scheduler": self.scheduler.state_dict(), "step": self.step,
                          "epoch": self.epoch, "micro": micro, "best": self.best,
                          "curve": self.curve, "step_time": self.step_time,
                          "config": asdict(cfg), "rng": rng_state(self.device)}, self.ckpt_path)

    # ---- evaluation: accuracy (and each answer), or loss + ROUGE-1/2/L/Lsum of summaries ------
    @property
    def classify(self) -> bool:
        return self.task.kind != T.SEQ2SEQ

    @torch.no_grad()
    def evaluate(self, split: str) -> dict:
        cfg, model = self.cfg, self.model
        model.eval()
        correct, n, loss_sum, preds, order = 0, 0, 0.0, [], []
        for batch in self.batches(split, cfg.eval_batch_size, shuffle=False):
            order += batch["index"].tolist()
            batch = self.to_device(batch)
            with self.autocast():
                out = model(**batch)
            loss_sum += mean_loss(out.logits, batch["labels"]).item() * len(batch["labels"])
            n += len(batch["labels"])
            if self.classify:
                correct += count_correct(out.logits, batch["labels"])
                preds += out.logits.argmax(-1).tolist()
            else:
                gen_in = {k: v for k, v in batch.items() if k != "labels"}
                with self.autocast():
                    ids = model.generate(**gen_in, num_beams=cfg.num_beams,
                                         max_new_tokens=cfg.max_target_length)
                preds += self.tokenizer.batch_decode(ids, skip_special_tokens=True)
        model.train()
        preds = [p for _, p in sorted(zip(order, preds))]  # back to file order
        result = {"split": split, "loss": loss_sum / max(n, 1), "n": n}
        if self.classify:
            result["accuracy"] = correct / max(n, 1)
            result["predictions"] = preds  # per example, in file order: for paired statistics
        else:
            result.update(rouge(preds, [ex.summaries for ex in self.splits[split]]))
        return result

    # ---- how much the labels move the embedding output (labelled tokens; all-E tokens) -----------
    def label_share(self):
        from ..modeling import logical_embedding

        if not self.logical:
            return None
        return logical_embedding(self.model).label_share(
            self.probe["input_ids"].to(self.device), self.probe["logic_ids"].to(self.device))

    # ---- the loop --------------------------------------------------------------------------------
    def loop(self) -> None:
        from tqdm.auto import tqdm

        cfg, model = self.cfg, self.model
        self.probe = self.collate(self.data["train"][:64]) if self.logical else None
        self.share_init = self.label_share()
        self.log({"event": "start", **asdict(cfg), "params": sum(p.numel() for p in model.parameters()),
                  "device": self.device, "bf16": self.use_bf16, "train": len(self.data["train"]),
                  "steps": self.total_steps})
        model.train()
        bar = tqdm(total=self.total_steps, initial=self.step, desc=f"{cfg.task} (logic: {cfg.logic})",
                   disable=not self.tty, dynamic_ncols=True)
        self.started, running, first_step = time.perf_counter(), None, self.step
        n_micro = math.ceil(len(self.data["train"]) / cfg.batch_size)
        while self.epoch < cfg.epochs and self.step < self.total_steps:
            micro = self.micro_done - 1
            for micro, batch in enumerate(self.batches("train", cfg.batch_size, True, self.epoch)):
                if micro < self.micro_done:  # resuming mid-epoch: these were already trained on
                    continue
                tick = time.perf_counter()
                batch = self.to_device(batch)
                with self.autocast():
                    loss = model(**batch).loss / cfg.grad_accum
                loss.backward()
                if (micro + 1) % cfg.grad_accum and micro != n_micro - 1:
                    continue  # accumulate
                grad_norm = torch.nn.utils.clip_grad_norm_(model.parameters(), cfg.clip)
                self.optimizer.step()
                self.scheduler.step()
                self.optimizer.zero_grad(set_to_none=True)
                self.step += 1
                value = loss.item() * cfg.grad_accum
                self.step_time += time.perf_counter() - tick  # training alone: the logic layer's cost
                running = value if running is None else 0.9 * running + 0.1 * value
                bar.update(1)
                bar.set_postfix(loss=f"{running:.4f}", lr=f"{self.scheduler.get_last_lr()[0]:.2e}")
                if self.step % cfg.log_every == 0 or self.step == self.total_steps:
                    elapsed = time.perf_counter() - self.started  # eta_s: at the pace so far
                    self.log({"step": self.step, "epoch": self.epoch, "loss": value,
                              "lr": self.scheduler.get_last_lr()[0], "grad_norm": float(grad_norm),
                              "elapsed_s": elapsed, "eta_s": round(
                                  elapsed / (self.step - first_step) * (self.total_steps - self.step), 1)})
                if self.step >= self.total_steps:
                    break
            if self.end_epoch(micro, n_micro):
                break
        bar.close()

    def end_epoch(self, micro: int, n_micro: int) -> bool:
        """Evaluate on dev and keep the best; checkpoint. True when the run stops mid-epoch (by
        max_steps; ckpt.pt records where)."""

        cfg = self.cfg
        stopped_mid_epoch = micro + 1 < n_micro
        if "dev" in self.data:
            result = {"epoch": self.epoch, "step": self.step, **self.evaluate("dev")}
            result.pop("predictions", None)
            self.log(result)
            key = "accuracy" if self.classify else "rougeL"
            self.curve.append(result[key])
            if self.best is None or result[key] > self.best[key]:
                self.best = result
                if cfg.checkpoint:
                    save_folder(os.path.join(cfg.out, "best"), self.model, self.tokenizer)
                else:
                    self.best_state = {k: v.detach().clone() for k, v in self.model.state_dict().items()}
        if stopped_mid_epoch:
            self.micro_done = micro + 1
            self.save_checkpoint(self.micro_done)
            return True
        self.epoch, self.micro_done = self.epoch + 1, 0
        self.save_checkpoint(0)
        return False

    # ---- final: the best dev model (or the last one) on test ----------------------------------
    def finish(self) -> dict:
        from ..modeling import from_pretrained

        cfg, step = self.cfg, self.step
        final = {"task": cfg.task, "logic": cfg.logic, "layer": cfg.layer if self.logical else None,
                 "seed": cfg.seed, "steps": step,
                 "train_seconds": round(time.perf_counter() - self.started, 2),
                 "step_seconds": round(self.step_time / max(step, 1), 4),
                 "train": len(self.data["train"]), **self.fingerprints}
        if self.best is not None:
            final["dev"] = {k: v for k, v in self.best.items() if k not in ("split",)}
            final["dev_curve"] = self.curve  # dev accuracy (or ROUGE-L) after each epoch
            best_dir = os.path.join(cfg.out, "best")
            if self.best_state is not None:
                self.model.load_state_dict(self.best_state)
            elif os.path.isdir(best_dir):
                self.model = (from_pretrained(best_dir, self.auto) if self.logical
                              else self.auto.from_pretrained(best_dir))
                self.model.to(self.device)
        if self.share_init is not None:
            final["label_share"] = {"init": self.share_init, "after": self.label_share()}
        if "test" in self.data:
            final["test"] = {k: v for k, v in self.evaluate("test").items() if k != "split"}
            for a in self.ablations:  # the drop from "test" is how much the model uses its labels
                final[f"test_{a}"] = {k: v for k, v in self.evaluate(f"test:{a}").items()
                                      if k != "split"}
        if self.task.name == "table" and cfg.checkpoint:  # the model to predict with
            if self.best is None:
                save_folder(os.path.join(cfg.out, "best"), self.model, self.tokenizer)
            final["model"] = os.path.join(cfg.out, "best")
        self.log({"event": "final", **final})
        self.metrics_file.close()
        return final

"""Fine-tune a Logical Transformer (or its baseline, ``logic="none"``) on a downstream task:
DREAM, LogiQA (multiple choice), DialogSum (summaries), ConjNLI (sentence pairs).

Read top to bottom: config, data and labels, model, optimizer, loop, evaluation. The same code runs
on CPU and GPU; on a GPU it trains under bf16 autocast. Every run writes to ``out``:

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
from dataclasses import asdict, dataclass
from typing import Optional

import numpy as np
import torch

from ..checkpoints import load_checkpoint, load_state, rng_state, save_folder, set_rng_state
from ..checkpoints import save_checkpoint as write_checkpoint
from ..errors import DataFormatError, Errors
from ..terminal import safe
from . import batches as B
from . import labels as L
from . import tasks as T
from .metrics import count_correct, mean_loss, rouge
from .splits import read_splits, resolve_model_path


@dataclass
class TrainConfig:
    task: str = "dream"
    model: str = "all-MiniLM-L6-v2"  # a local Hugging Face directory (this name: the bundled MiniLM)
    data: Optional[str] = None  # directory laid out like data/tasks/<task>/
    train_file: Optional[str] = None
    dev_file: Optional[str] = None
    test_file: Optional[str] = None
    shards: Optional[str] = None  # annotation shards; default: the user cache, per label source
    out: str = "out/train"
    # Label source: default | paper | shuffled (the control for positions) | all-e (the control for
    # the layer: no labels) | none (the baseline: same everything without the logic embedding);
    # True/False are read as default/none.
    logic: str = "default"
    layer: str = "centered"  # the logical layer: centered, or paper (the paper's layer as printed)
    dev_size: Optional[int] = None  # pairs carved from train as dev (default: the task's, if no dev file)
    train_size: Optional[int] = None  # a seeded subset of the training examples (after the carve)
    split_seed: int = 0  # the carve and the subset; apart from seed, so every run shares them
    k: int = 3  # logic depth K
    n_logic: Optional[int] = None  # logic vector size (default: the word embedding size)
    projection: str = "linear"  # or "mlp" (footnote 4)
    epochs: int = 3
    batch_size: int = 8
    eval_batch_size: int = 16
    grad_accum: int = 1
    lr: float = 2e-5
    logic_lr: Optional[float] = None  # the new parameters' learning rate (default: lr)
    weight_decay: float = 0.01
    warmup: float = 0.1  # fraction of the optimizer steps
    clip: float = 1.0
    max_length: int = 512
    bucket: bool = True  # batches of similar length (less padding); the order is still seeded
    max_target_length: int = 128
    num_beams: int = 4
    max_steps: Optional[int] = None  # stop early (smoke runs)
    limit: Optional[int] = None  # first N examples of each split
    seed: int = 0
    device: str = "auto"
    bf16: bool = True  # autocast on CUDA only
    log_every: int = 10
    resume: bool = False
    checkpoint: bool = True  # ckpt.pt and best/ on disk (False: best dev weights kept in memory)
    resumable: bool = False  # a user's table writes ckpt.pt (3x the model) only when asked
    # --task table: the columns of the user's table (None: guessed from common names)
    text_column: Optional[str] = None
    pair_column: Optional[str] = None
    label_column: Optional[str] = None
    choices_column: Optional[str] = None  # multiple choice
    parser: str = "default"  # for annotating texts that the shards lack
    senses: Optional[str] = "default"
    annotate_workers: int = 1
    quiet: bool = False

    def __post_init__(self):
        if isinstance(self.logic, bool):
            self.logic = "default" if self.logic else "none"
        L.check_source(self.logic)
        from ..modeling.embedding import VARIANTS

        if self.layer not in VARIANTS:
            raise DataFormatError(Errors.E506.format(what="logical layer", name=self.layer,
                                                     opts=", ".join(VARIANTS)))
        if self.logic_lr is not None and not self.logic_lr >= 0:
            raise DataFormatError(Errors.E506.format(what="logic learning rate",
                                                     name=self.logic_lr, opts="a number, 0 or more"))


def train(cfg: TrainConfig, annotator=None) -> dict:
    """Run the whole job; returns the final metrics (also the last line of metrics.jsonl)."""
    import transformers
    from tqdm.auto import tqdm

    from ..modeling import (LogicAligner, from_pretrained, logic_param_groups, logical_embedding,
                            logicalize)

    # ---- setup: seeds, device, output --------------------------------------------------------
    transformers.set_seed(cfg.seed)
    device = cfg.device if cfg.device != "auto" else ("cuda" if torch.cuda.is_available() else "cpu")
    use_bf16 = cfg.bf16 and device.startswith("cuda") and torch.cuda.is_bf16_supported()
    autocast = (lambda: torch.autocast("cuda", dtype=torch.bfloat16)) if use_bf16 else contextlib.nullcontext
    ckpt_path = os.path.join(cfg.out, "ckpt.pt")
    ckpt, fail = None, lambda why: DataFormatError(Errors.E523.format(path=ckpt_path, reason=why))
    if cfg.resume and os.path.exists(ckpt_path):
        ckpt = load_checkpoint(ckpt_path, ("config", "model", "optimizer", "scheduler", "step",
                                           "epoch", "micro", "best", "rng"), fail)
        for key in ("task", "logic", "k", "n_logic", "projection", "layer"):
            # Checkpoints from before the centered layer trained the paper's.
            trained = dict(ckpt["config"]).get(key, "paper" if key == "layer" else None) \
                if isinstance(ckpt["config"], dict) else None
            if trained != getattr(cfg, key):
                raise fail(f"it was trained with {key}={trained!r}")
    tty = sys.stderr.isatty() and not cfg.quiet
    metrics_file = None  # opened at the first record: a run refused before it leaves nothing

    def log(record: dict) -> None:
        nonlocal metrics_file
        if metrics_file is None:
            os.makedirs(cfg.out, exist_ok=True)
            metrics_file = open(os.path.join(cfg.out, "metrics.jsonl"), "a", encoding="utf-8")
        metrics_file.write(json.dumps(record) + "\n")
        metrics_file.flush()
        if not tty and not cfg.quiet:
            print(safe(" ".join(f"{k}={v:.4g}" if isinstance(v, float) else f"{k}={v}"
                                for k, v in record.items())), file=sys.stderr, flush=True)

    # ---- data and labels: everything is checked before the model is even loaded ---------------
    task, files, splits = read_splits(cfg)
    T.check_splits(splits, files)
    if task.described and not cfg.quiet:
        print(safe(task.described), file=sys.stderr, flush=True)
    path = resolve_model_path(cfg.model)
    auto, model_config = task.model_class(path)  # a model without the task's head: refused here
    logical = cfg.logic != "none"
    labels, fingerprints = None, {}
    if logical:
        texts = L.texts_of(ex for exs in splits.values() for ex in exs)
        annotation = L.labels_for(texts, cfg.shards, files["train"], source="default",
                                  annotator=annotator, parser=cfg.parser, senses=cfg.senses,
                                  device=device, workers=cfg.annotate_workers)
        where = str(cfg.shards or L.default_cache_dir(files["train"]))
        labels = {t: L.transform(d, cfg.logic, cfg.seed, where) for t, d in annotation.items()}
        # What the model is fed, and the annotation its test texts had (a table's relation groups).
        fingerprints = {"labels_sha": L.digest(labels, texts), "test_annotation_sha": L.digest(
            annotation, L.texts_of(splits.get("test", [])))}

    # ---- model and tokenizer -----------------------------------------------------------------
    head = {"num_labels": len(task.classes), "id2label": dict(enumerate(task.classes)),
            "label2id": {c: i for i, c in enumerate(task.classes)}} if task.kind == T.PAIR else {}
    tokenizer = transformers.AutoTokenizer.from_pretrained(path, use_fast=True)
    saved_logic = getattr(model_config, "logicparse", None)
    if saved_logic and logical:
        model = from_pretrained(path, auto, **head)  # continue from a logical checkpoint
    else:
        model = auto.from_pretrained(path, **head)
        if logical:
            logicalize(model, n_logic=cfg.n_logic, k=cfg.k, projection=cfg.projection,
                       variant=cfg.layer, seed=cfg.seed)
    if ckpt is not None:  # a checkpoint of another model is refused before the data is encoded
        load_state(model, ckpt["model"], fail)
    # A logical checkpoint keeps the depth it was trained with, whatever --k says.
    k = logical_embedding(model).k if logical else cfg.k
    aligner = LogicAligner(tokenizer, k=k, max_length=cfg.max_length) if logical else None
    max_len = min(cfg.max_length, getattr(model.config, "max_position_embeddings", 10**6) or 10**6)

    # ---- encode every split once (int32/uint8 on the host; padded per batch) ------------------
    def encode(ex, labels=labels) -> dict:
        if task.kind == T.MULTIPLE_CHOICE:
            enc = B.encode_choices(ex, tokenizer, aligner, labels, max_len)
            enc["labels"] = torch.tensor(ex.label)
        elif task.kind == T.PAIR:
            enc = B.encode_texts(ex.texts(), tokenizer, aligner, labels, max_len)
            enc["labels"] = torch.tensor(ex.label)
        else:
            enc = B.encode_texts([ex.dialogue], tokenizer, aligner, labels, max_len)
            enc["labels"] = torch.tensor(tokenizer(text_target=ex.summaries[0], truncation=True,
                                                   max_length=cfg.max_target_length).input_ids)
        if model.config.is_encoder_decoder:
            enc.pop("token_type_ids", None)  # BART-like models have no segments
        small = {"logic_ids": torch.uint8, "attention_mask": torch.int8, "token_type_ids": torch.int8}
        return {k: v.to(small.get(k, torch.int32)) for k, v in dict(enc).items()}

    if aligner:
        aligner.max_length = max_len
    data = {s: [encode(ex) for ex in tqdm(exs, desc=f"encode {s}", disable=not tty)]
            for s, exs in splits.items()}
    # Test-time ablations: the test examples with labels shuffled, redrawn or none (all E).
    ablations = [a for a in L.ABLATIONS if logical and a != cfg.logic and "test" in splits]
    for a in ablations:
        swapped = {t: L.transform(d, a, cfg.seed) for t, d in labels.items()}
        data[f"test:{a}"] = [encode(ex, swapped) for ex in splits["test"]]
        splits[f"test:{a}"] = splits["test"]

    def collate(items: list[dict]) -> dict:
        return B.collate(items, tokenizer.pad_token_id or 0)

    def batches(split: str, size: int, shuffle: bool, epoch: int = 0):
        lengths = np.array([it["input_ids"].shape[-1] for it in data[split]])
        for idx in B.batch_order(lengths, size, shuffle, cfg.seed * 1000 + epoch, cfg.bucket):
            batch = collate([data[split][j] for j in idx])
            batch["index"] = torch.as_tensor(idx)
            yield batch

    def to_device(batch: dict) -> dict:
        return {k: v.to(device) for k, v in batch.items() if k != "index"}

    # ---- optimizer: AdamW without decay on biases and norms; warm-up then linear decay ---------
    model.to(device)
    optimizer = torch.optim.AdamW(logic_param_groups(model, cfg.lr, cfg.logic_lr, cfg.weight_decay),
                                  lr=cfg.lr, fused=device.startswith("cuda"))
    steps_per_epoch = math.ceil(math.ceil(len(data["train"]) / cfg.batch_size) / cfg.grad_accum)
    total_steps = steps_per_epoch * cfg.epochs
    if cfg.max_steps:
        total_steps = min(total_steps, cfg.max_steps)
    scheduler = transformers.get_linear_schedule_with_warmup(
        optimizer, int(cfg.warmup * total_steps), total_steps)

    # ---- resume: same run, same position (the shuffle order is a function of seed and epoch) ---
    step, epoch, micro_done, best, curve, step_time = 0, 0, 0, None, [], 0.0
    best_state = None  # the best dev weights, in memory when nothing goes to disk
    if ckpt is not None:
        optimizer.load_state_dict(ckpt["optimizer"])
        scheduler.load_state_dict(ckpt["scheduler"])
        step, epoch, micro_done, best = ckpt["step"], ckpt["epoch"], ckpt["micro"], ckpt["best"]
        curve, step_time = ckpt.get("curve", []), ckpt.get("step_time", 0.0)
        set_rng_state(ckpt["rng"], device)
        log({"event": "resume", "step": step, "epoch": epoch})

    def save_checkpoint(micro: int) -> None:
        if not cfg.checkpoint or (task.name == "table" and not cfg.resumable):
            return
        write_checkpoint({"model": model.state_dict(), "optimizer": optimizer.state_dict(),
                          "scheduler": scheduler.state_dict(), "step": step, "epoch": epoch,
                          "micro": micro, "best": best, "curve": curve, "step_time": step_time,
                          "config": asdict(cfg), "rng": rng_state(device)},
                        ckpt_path)

    # ---- evaluation: accuracy (and each answer), or loss + ROUGE-1/2/L/Lsum of summaries ------
    classify = task.kind != T.SEQ2SEQ

    @torch.no_grad()
    def evaluate(split: str) -> dict:
        model.eval()
        correct, n, loss_sum, preds, order = 0, 0, 0.0, [], []
        for batch in batches(split, cfg.eval_batch_size, shuffle=False):
            order += batch["index"].tolist()
            batch = to_device(batch)
            with autocast():
                out = model(**batch)
            loss_sum += mean_loss(out.logits, batch["labels"]).item() * len(batch["labels"])
            n += len(batch["labels"])
            if classify:
                correct += count_correct(out.logits, batch["labels"])
                preds += out.logits.argmax(-1).tolist()
            else:
                gen_in = {k: v for k, v in batch.items() if k != "labels"}
                with autocast():
                    ids = model.generate(**gen_in, num_beams=cfg.num_beams,
                                         max_new_tokens=cfg.max_target_length)
                preds += tokenizer.batch_decode(ids, skip_special_tokens=True)
        model.train()
        preds = [p for _, p in sorted(zip(order, preds))]  # back to file order
        result = {"split": split, "loss": loss_sum / max(n, 1), "n": n}
        if classify:
            result["accuracy"] = correct / max(n, 1)
            result["predictions"] = preds  # per example, in file order: for paired statistics
        else:
            result.update(rouge(preds, [ex.summaries for ex in splits[split]]))
        return result

    # ---- how much the labels move the embedding output (labelled tokens; all-E tokens) -----------
    probe = collate(data["train"][:64]) if logical else None
    label_share = lambda: logical_embedding(model).label_share(  # noqa: E731
        probe["input_ids"].to(device), probe["logic_ids"].to(device)) if logical else None
    share_init = label_share()

    # ---- the loop --------------------------------------------------------------------------------
    log({"event": "start", **asdict(cfg), "params": sum(p.numel() for p in model.parameters()),
         "device": device, "bf16": use_bf16, "train": len(data["train"]), "steps": total_steps})
    model.train()
    bar = tqdm(total=total_steps, initial=step, desc=f"{cfg.task} (logic: {cfg.logic})",
               disable=not tty, dynamic_ncols=True)
    started, running, first_step = time.perf_counter(), None, step
    n_micro = math.ceil(len(data["train"]) / cfg.batch_size)
    while epoch < cfg.epochs and step < total_steps:
        micro = micro_done - 1
        for micro, batch in enumerate(batches("train", cfg.batch_size, True, epoch)):
            if micro < micro_done:  # resuming mid-epoch: these were already trained on
                continue
            tick = time.perf_counter()
            batch = to_device(batch)
            with autocast():
                loss = model(**batch).loss / cfg.grad_accum
            loss.backward()
            if (micro + 1) % cfg.grad_accum and micro != n_micro - 1:
                continue  # accumulate
            grad_norm = torch.nn.utils.clip_grad_norm_(model.parameters(), cfg.clip)
            optimizer.step()
            scheduler.step()
            optimizer.zero_grad(set_to_none=True)
            step += 1
            value = loss.item() * cfg.grad_accum
            step_time += time.perf_counter() - tick  # training alone: the logic layer's cost
            running = value if running is None else 0.9 * running + 0.1 * value
            bar.update(1)
            bar.set_postfix(loss=f"{running:.4f}", lr=f"{scheduler.get_last_lr()[0]:.2e}")
            if step % cfg.log_every == 0 or step == total_steps:
                elapsed = time.perf_counter() - started  # eta_s: the same pace for the steps left
                log({"step": step, "epoch": epoch, "loss": value, "lr": scheduler.get_last_lr()[0],
                     "grad_norm": float(grad_norm), "elapsed_s": elapsed,
                     "eta_s": round(elapsed / (step - first_step) * (total_steps - step), 1)})
            if step >= total_steps:
                break
        stopped_mid_epoch = micro + 1 < n_micro  # by max_steps; ckpt.pt records where
        if "dev" in data:
            result = {"epoch": epoch, "step": step, **evaluate("dev")}
            result.pop("predictions", None)
            log(result)
            key = "accuracy" if classify else "rougeL"
            curve.append(result[key])
            if best is None or result[key] > best[key]:
                best = result
                if cfg.checkpoint:
                    save_folder(os.path.join(cfg.out, "best"), model, tokenizer)
                else:
                    best_state = {k: v.detach().clone() for k, v in model.state_dict().items()}
        if stopped_mid_epoch:
            micro_done = micro + 1
            save_checkpoint(micro_done)
            break
        epoch, micro_done = epoch + 1, 0
        save_checkpoint(0)
    bar.close()

    # ---- final: the best dev model (or the last one) on test ----------------------------------
    final = {"task": cfg.task, "logic": cfg.logic, "layer": cfg.layer if logical else None,
             "seed": cfg.seed, "steps": step,
             "train_seconds": round(time.perf_counter() - started, 2),
             "step_seconds": round(step_time / max(step, 1), 4), "train": len(data["train"]),
             **fingerprints}
    if best is not None:
        final["dev"] = {k: v for k, v in best.items() if k not in ("split",)}
        final["dev_curve"] = curve  # dev accuracy (or ROUGE-L) after each epoch
        best_dir = os.path.join(cfg.out, "best")
        if best_state is not None:
            model.load_state_dict(best_state)
        elif os.path.isdir(best_dir):
            model = (from_pretrained(best_dir, auto) if logical else auto.from_pretrained(best_dir))
            model.to(device)
    if share_init is not None:
        final["label_share"] = {"init": share_init, "after": label_share()}
    if "test" in data:
        final["test"] = {k: v for k, v in evaluate("test").items() if k != "split"}
        for a in ablations:  # the drop from "test" is how much the model uses its labels
            final[f"test_{a}"] = {k: v for k, v in evaluate(f"test:{a}").items() if k != "split"}
    if task.name == "table" and cfg.checkpoint:  # the model to predict with: the best, or the last
        if best is None:
            save_folder(os.path.join(cfg.out, "best"), model, tokenizer)
        final["model"] = os.path.join(cfg.out, "best")
    log({"event": "final", **final})
    metrics_file.close()
    return final

"""`logicparse train`: fine-tune a Logical Transformer (or its baseline) on the user's own labelled
table, or on DREAM, LogiQA, DialogSum, ConjNLI or PARARULE-Plus."""

from __future__ import annotations

import json
from enum import Enum
from pathlib import Path
from typing import Optional

import typer

from ..resources import senses_spec


class TaskName(str, Enum):
    dream = "dream"
    logiqa = "logiqa"
    dialogsum = "dialogsum"
    conjnli = "conjnli"
    pararule = "pararule"
    pararule_balanced = "pararule-balanced"
    table = "table"


class LogicSource(str, Enum):
    none = "none"
    paper = "paper"
    default = "default"
    shuffled = "shuffled"
    random = "random"
    all_e = "all-e"


class Layer(str, Enum):
    centered = "centered"
    paper = "paper"


# `logicparse train`'s options (kept apart so that the command reads as its steps).
_TASK = typer.Option(None, "--task", help="table (the default with "
                                  "--train): your own labelled CSV, TSV, JSONL or Parquet file or "
                                  "datasets folder, one text or a pair of texts per row "
                                  "(AutoModelForSequenceClassification; see --text-column). "
                                  "dream and logiqa: multiple choice "
                                  "(AutoModelForMultipleChoice); dialogsum: summarisation "
                                  "(AutoModelForSeq2SeqLM, e.g. BART); conjnli: sentence-pair "
                                  "inference, 3 classes (AutoModelForSequenceClassification); pararule: "
                                  "PARARULE-Plus, a context and a statement, true or false (the "
                                  "same, 2 classes); pararule-balanced: PARARULE-Plus re-balanced so that no "
                                  "single word gives the answer (built by `logicparse tasks "
                                  "pararule-balanced`).")
_MODEL = typer.Option("all-MiniLM-L6-v2", "--model", help="Local Hugging Face model "
                              "directory (or a logical checkpoint saved by this command). "
                              "'all-MiniLM-L6-v2' is the bundled MiniLM encoder.")
_DATA = typer.Option(None, "--data", help="Directory laid out like "
                                        "data/tasks/<task>/ (DREAM: train/dev/test.json; LogiQA: "
                                        "Train/Eval/Test.txt; DialogSum: dialogsum.<split>.jsonl; "
                                        "ConjNLI: adversarial_train_15k.tsv, and conj_dev.tsv as "
                                        "the test set; PARARULE-Plus: depth2_dev.jsonl to train "
                                        "on, depth2_test.jsonl as the test set).")
_TRAIN_FILE = typer.Option(None, "--train", help="Training file (overrides "
                                              "--data); with no --task, your own table.")
_TEXT_COLUMN = typer.Option(None, "--text-column", help="--task table: the "
                                              "text column (default: the first of text, sentence, "
                                              "sentence1, premise, question, input).")
_PAIR_COLUMN = typer.Option(None, "--pair-column", help="--task table: a "
                                              "second text per row, for text pairs (default: "
                                              "text_pair, sentence2 or hypothesis if present).")
_LABEL_COLUMN = typer.Option(None, "--label-column", help="--task table: the "
                                               "label column, any strings or numbers (default: "
                                               "label, labels or class).")
_CHOICES_COLUMN = typer.Option(None, "--choices-column", help="--task table: "
                                                 "multiple choice, each row's choices (a list, or "
                                                 "joined by ' | ' in CSV; default: choices, options "
                                                 "or endings if present); the text is the context, "
                                                 "--pair-column the question, the label the right "
                                                 "choice's index or text.")
_DEV_FILE = typer.Option(None, "--dev", help="Dev file, evaluated each epoch.")
_TEST_FILE = typer.Option(None, "--test", help="Test file, evaluated at the end "
                                             "with the best dev model.")
_OUT = typer.Option(Path("out/train"), "--out", help="Output directory: metrics.jsonl, "
                             "ckpt.pt, best/.")
_LOGIC = typer.Option(LogicSource.default, "--logic", help="Label source. "
                                      "default: the annotator's labels (keyword decisions, default "
                                      "mapping); paper: the paper's literal labels (Algorithm 1, "
                                      "lexicon senses); shuffled: the control, default's labels "
                                      "permuted over each text's tokens (the control for where labels "
                                      "sit); random: the same labelled tokens with label ids drawn "
                                      "at random (the control for which label); all-e: the logical layer "
                                      "fed no labels; none: the plain model.")
_LAYER = typer.Option(Layer.centered, "--layer", help="The logical layer. centered: "
                                "tokens without labels keep their pretrained embedding and a "
                                "label moves a token by about a tenth of its word vector; paper: "
                                "the paper's layer as printed (every token moved, labels barely).")
_NO_LOGIC = typer.Option(False, "--no-logic", help="Same as --logic none: the baseline, "
                                  "same model and settings without the logical embedding.")
_SHARDS = typer.Option(None, "--shards", help="Shards with the texts' labels "
                                          "(from `logicparse annotate`, made with the label "
                                          "source's --mapping). Default: the user cache "
                                          "(~/.cache/logicparse/labels), one folder per data "
                                          "folder and label source; texts they lack are annotated once.")
_DEV_SIZE = typer.Option(None, "--dev-size", min=0, help="Examples carved from "
                                           "the training file as the dev split (seeded by "
                                           "--split-seed). Default: 1000 for conjnli and pararule "
                                           "(whole contexts), which have no dev file; for a table "
                                           "without --dev, a tenth of its rows (none under 20); "
                                           "0 for the others.")
_TRAIN_SIZE = typer.Option(None, "--train-size", min=1, help="Train on a "
                                             "seeded subset of this many examples (after the carve).")
_SPLIT_SEED = typer.Option(0, "--split-seed", help="Seed of the dev carve and the training "
                                   "subset; apart from --seed, so every run shares them.")
_K = typer.Option(3, "--k", min=1, help="Logic depth K: projection layers per token.")
_N_LOGIC = typer.Option(None, "--n-logic", min=1, help="Size of the 35 logical "
                                          "vectors (default: the word embedding size).")
_PROJECTION = typer.Option("linear", "--projection", help="linear (the paper's L) or "
                                   "mlp (footnote 4).")
_EPOCHS = typer.Option(3, "--epochs", min=1)
_BATCH_SIZE = typer.Option(8, "--batch-size", min=1, help="Examples per micro-batch.")
_EVAL_BATCH_SIZE = typer.Option(16, "--eval-batch-size", min=1)
_GRAD_ACCUM = typer.Option(1, "--grad-accum", min=1, help="Micro-batches per optimizer step.")
_LR = typer.Option(2e-5, "--lr", help="Peak learning rate (AdamW).")
_LOGIC_LR = typer.Option(None, "--logic-lr", help="Peak learning rate of the "
                                             "logical layer's new parameters (default: --lr).")
_NO_BUCKET = typer.Option(False, "--no-bucket", help="Batches in plain shuffled order "
                          "(default: of similar length, which cuts padding but puts examples that "
                          "differ by a word, such as a pararule-balanced quartet, in one batch).")
_WEIGHT_DECAY = typer.Option(0.01, "--weight-decay")
_WARMUP = typer.Option(0.1, "--warmup", help="Warm-up fraction of the steps, then linear decay.")
_CLIP = typer.Option(1.0, "--clip", help="Gradient norm clipping.")
_MAX_LENGTH = typer.Option(512, "--max-length", help="Input subwords (truncated).")
_MAX_TARGET_LENGTH = typer.Option(128, "--max-target-length", help="Summary subwords.")
_NUM_BEAMS = typer.Option(4, "--num-beams", help="Beam size for DialogSum evaluation.")
_MAX_STEPS = typer.Option(None, "--max-steps", help="Stop after this many "
                                            "optimizer steps (smoke runs).")
_LIMIT = typer.Option(None, "--limit", help="Use the first N examples of each split.")
_SEED = typer.Option(0, "--seed")
_DEVICE = typer.Option("auto", "--device", help="auto (cuda when available), cpu, cuda, cuda:1.")
_NO_BF16 = typer.Option(False, "--no-bf16", help="Train in fp32 on GPU too.")
_CPU_BF16 = typer.Option(False, "--cpu-bf16", help="Train and evaluate under bf16 autocast on CPU "
                         "too: about 3x faster on CPUs with AVX512-BF16 or AMX, slower on others.")
_RESUME = typer.Option(False, "--resume", help="Continue from OUT/ckpt.pt.")
_RESUMABLE = typer.Option(False, "--resumable", help="--task table: also write "
                                   "OUT/ckpt.pt after each epoch, for --resume (three times the "
                                   "model's size; the benchmark tasks always write it).")
_NO_CHECKPOINT = typer.Option(False, "--no-checkpoint", help="Write neither OUT/ckpt.pt "
                                       "(three times the model's size: 276 MB for MiniLM) nor "
                                       "OUT/best/; the best dev weights are kept in memory for "
                                       "the test. Such a run cannot be resumed.")
_PARSER = typer.Option("default", "--parser", help="Parser for texts the shards lack.")
_SENSES = typer.Option("default", "--senses", help="Sense models; 'none' keeps lexicon senses.")
_ANNOTATE_WORKERS = typer.Option(1, "--annotate-workers", min=1)
_LOG_EVERY = typer.Option(10, "--log-every", min=1)
_QUIET = typer.Option(False, "--quiet", "-q", help="No progress output.")


def train(
    task: Optional[TaskName] = _TASK,
    model: str = _MODEL,
    data: Optional[Path] = _DATA,
    train_file: Optional[Path] = _TRAIN_FILE,
    text_column: Optional[str] = _TEXT_COLUMN,
    pair_column: Optional[str] = _PAIR_COLUMN,
    label_column: Optional[str] = _LABEL_COLUMN,
    choices_column: Optional[str] = _CHOICES_COLUMN,
    dev_file: Optional[Path] = _DEV_FILE,
    test_file: Optional[Path] = _TEST_FILE,
    out: Path = _OUT,
    logic: LogicSource = _LOGIC,
    layer: Layer = _LAYER,
    no_logic: bool = _NO_LOGIC,
    shards: Optional[Path] = _SHARDS,
    dev_size: Optional[int] = _DEV_SIZE,
    train_size: Optional[int] = _TRAIN_SIZE,
    split_seed: int = _SPLIT_SEED,
    k: int = _K,
    n_logic: Optional[int] = _N_LOGIC,
    projection: str = _PROJECTION,
    epochs: int = _EPOCHS,
    batch_size: int = _BATCH_SIZE,
    eval_batch_size: int = _EVAL_BATCH_SIZE,
    grad_accum: int = _GRAD_ACCUM,
    lr: float = _LR,
    logic_lr: Optional[float] = _LOGIC_LR,
    no_bucket: bool = _NO_BUCKET,
    weight_decay: float = _WEIGHT_DECAY,
    warmup: float = _WARMUP,
    clip: float = _CLIP,
    max_length: int = _MAX_LENGTH,
    max_target_length: int = _MAX_TARGET_LENGTH,
    num_beams: int = _NUM_BEAMS,
    max_steps: Optional[int] = _MAX_STEPS,
    limit: Optional[int] = _LIMIT,
    seed: int = _SEED,
    device: str = _DEVICE,
    no_bf16: bool = _NO_BF16,
    cpu_bf16: bool = _CPU_BF16,
    resume: bool = _RESUME,
    resumable: bool = _RESUMABLE,
    no_checkpoint: bool = _NO_CHECKPOINT,
    parser: str = _PARSER,
    senses: str = _SENSES,
    annotate_workers: int = _ANNOTATE_WORKERS,
    log_every: int = _LOG_EVERY,
    quiet: bool = _QUIET,
) -> None:
    """Fine-tune a model with logic labels (Logical Transformer) or without (--logic none).

    Same command on CPU and GPU (bf16 autocast on GPU; on CPU with --cpu-bf16). Prints progress,
    writes OUT/metrics.jsonl and, unless --no-checkpoint, OUT/best/ (the model to predict with)
    and, for the benchmark tasks or with --resumable, OUT/ckpt.pt; prints the final metrics (best
    dev, test) as one JSON object on the last line of stdout.
    """
    from ..parser import check_parser
    from ..resources import check_device
    from ..training import TrainConfig, train as run

    if task is None:
        if train_file is None:
            raise typer.BadParameter("give --train FILE (your own table) or a benchmark task",
                                     param_hint="'--task'")
        task = TaskName.table
    if device != "auto":
        check_device(device)  # named now, not after the data is read and encoded
    if not no_logic and logic.value != "none":
        check_parser(parser)  # a typo is refused now, not when texts need annotating

    cfg = TrainConfig(
        task=task.value, model=model, data=str(data) if data else None,
        train_file=str(train_file) if train_file else None,
        dev_file=str(dev_file) if dev_file else None,
        test_file=str(test_file) if test_file else None,
        shards=str(shards) if shards else None, out=str(out),
        logic="none" if no_logic else logic.value, dev_size=dev_size, train_size=train_size,
        split_seed=split_seed, checkpoint=not no_checkpoint, resumable=resumable,
        text_column=text_column, pair_column=pair_column, label_column=label_column,
        choices_column=choices_column, k=k,
        n_logic=n_logic, projection=projection, layer=layer.value, logic_lr=logic_lr,
        bucket=not no_bucket, epochs=epochs, batch_size=batch_size,
        eval_batch_size=eval_batch_size, grad_accum=grad_accum, lr=lr, weight_decay=weight_decay,
        warmup=warmup, clip=clip, max_length=max_length, max_target_length=max_target_length,
        num_beams=num_beams, max_steps=max_steps, limit=limit, seed=seed, device=device,
        bf16=not no_bf16, cpu_bf16=cpu_bf16, resume=resume, parser=parser,
        senses=senses_spec(senses), annotate_workers=annotate_workers,
        log_every=log_every, quiet=quiet)
    result = run(cfg)
    print(json.dumps(result))


def _apply(model: Path, data: Path, out: Optional[Path], need_labels: bool, text_column,
           pair_column, label_column, choices_column, batch_size: int, device: str, parser: str,
           senses: str) -> None:
    from ..resources import check_device
    from ..training.predict import predict_table

    if device != "auto":
        check_device(device)
    import torch

    result = predict_table(
        str(model), str(data), str(out) if out else None, need_labels, text_column, pair_column,
        label_column, choices_column, batch_size=batch_size, parser=parser, senses=senses_spec(senses),
        device=device if device != "auto" else ("cuda" if torch.cuda.is_available() else "cpu"))
    print(json.dumps(result))


_MODEL = typer.Option(..., "--model", help="A model folder written by `logicparse train --task "
                      "table` (OUT/best): its label names come with it.")
_DATA = typer.Argument(..., metavar="TABLE", help="CSV, TSV, JSONL or Parquet file, or a datasets "
                       "folder, with the columns the model was trained on.")
_TEXT = typer.Option(None, "--text-column", help="Default: guessed as in training.")
_PAIR = typer.Option(None, "--pair-column", help="Default: guessed as in training.")
_LABEL = typer.Option(None, "--label-column", help="Default: guessed as in training.")
_CHOICES = typer.Option(None, "--choices-column", help="A multiple-choice model's choices. "
                        "Default: guessed as in training.")
_BATCH = typer.Option(32, "--batch-size", min=1)
_APPLY_PARSER = typer.Option("default", "--parser", help="Parser for a logical model's texts.")
_APPLY_SENSES = typer.Option("default", "--senses", help="Sense models for a logical model's texts.")


def predict(model: Path = _MODEL, data: Path = _DATA,
            out: Optional[Path] = typer.Option(None, "--out", help="Write each row's label and "
                                               "class probabilities here (JSON lines)."),
            text_column: Optional[str] = _TEXT, pair_column: Optional[str] = _PAIR,
            label_column: Optional[str] = _LABEL, choices_column: Optional[str] = _CHOICES,
            batch_size: int = _BATCH, device: str = _DEVICE, parser: str = _APPLY_PARSER,
            senses: str = _APPLY_SENSES) -> None:
    """Label the rows of a table with a model trained by `logicparse train --task table`.

    Prints one JSON object (rows, classes, the predictions file, and the accuracy when the table
    has labels) as the last line of stdout."""
    _apply(model, data, out, False, text_column, pair_column, label_column, choices_column,
           batch_size, device, parser, senses)


def evaluate(model: Path = _MODEL, data: Path = _DATA,
             out: Optional[Path] = typer.Option(None, "--out", help="Also write the predictions "
                                                "(JSON lines)."),
             text_column: Optional[str] = _TEXT, pair_column: Optional[str] = _PAIR,
             label_column: Optional[str] = _LABEL, choices_column: Optional[str] = _CHOICES,
             batch_size: int = _BATCH, device: str = _DEVICE, parser: str = _APPLY_PARSER,
             senses: str = _APPLY_SENSES) -> None:
    """Score a model trained by `logicparse train --task table` on a labelled table.

    Prints one JSON object with the accuracy (and rows, correct, classes) as the last line of
    stdout."""
    _apply(model, data, out, True, text_column, pair_column, label_column, choices_column,
           batch_size, device, parser, senses)


def register(app: typer.Typer) -> None:
    app.command("train")(train)
    app.command("predict")(predict)
    app.command("evaluate")(evaluate)

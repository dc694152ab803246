"""What a training run is asked to do (``logicparse train``'s options, one field each)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from ..errors import DataFormatError, Errors
from . import labels as L


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
    bf16: bool = True  # autocast on CUDA
    # autocast on CPU too: about 3x faster where the CPU computes bf16 itself (AVX512-BF16, AMX),
    # slower where it is emulated; off by default so a CPU run's figures stay fp32's
    cpu_bf16: bool = False
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

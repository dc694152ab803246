"""The examples a training run reads: each split of a benchmark task or of the user's own table,
the dev carve and the training subset, all seeded by ``split_seed`` alone so that every run of a
table of runs reads the same examples."""

from __future__ import annotations

import os

from ..errors import Errors, ModelLoadError
from . import tasks as T


def resolve_model_path(name: str) -> str:
    from ..resources import encoder_path

    name = encoder_path(name)
    if not os.path.isfile(os.path.join(name, "config.json")):
        raise ModelLoadError(Errors.E524.format(path=name, reason="no config.json"))
    return name


def read_splits(cfg) -> tuple:
    """(task, split files, split -> examples) as a run reads them (``cfg``: a TrainConfig)."""
    if cfg.task == "table":
        from .usertable import read_table_splits

        files = T.split_files(T.Task("table", T.PAIR, None, {"train": "--train"}), None,
                              {"train": cfg.train_file, "dev": cfg.dev_file, "test": cfg.test_file})
        task, splits = read_table_splits(
            files, {"text": cfg.text_column, "pair": cfg.pair_column, "label": cfg.label_column,
                    "choices": cfg.choices_column}, cfg.dev_size)
        dev_size = task.carve_dev
    else:
        task = T.get_task(cfg.task)
        files = T.split_files(task, cfg.data, {"train": cfg.train_file, "dev": cfg.dev_file,
                                               "test": cfg.test_file})
        splits = {s: task.read(p) for s, p in files.items() if p}
        dev_size = task.carve_dev if cfg.dev_size is None and "dev" not in splits else cfg.dev_size
    if dev_size or cfg.train_size:  # one seeded order for the carve and the subset
        splits["train"], carved = T.carve(splits["train"], dev_size or 0, cfg.train_size,
                                          cfg.split_seed)
        if dev_size:
            splits["dev"] = carved
    return task, files, {s: exs[:cfg.limit] for s, exs in splits.items()}

"""Fine-tuning (Logical) Transformers on the paper's downstream tasks: task readers and the loop."""

from .tasks import (TASKS, ChoiceExample, PairExample, SummaryExample, get_task, read_conjnli,
                    read_dialogsum, read_dream, read_logiqa, read_pararule)
from .train import TrainConfig, train

__all__ = ["TASKS", "ChoiceExample", "PairExample", "SummaryExample", "TrainConfig", "get_task",
           "read_conjnli", "read_dialogsum",
           "read_dream", "read_logiqa", "read_pararule", "train"]

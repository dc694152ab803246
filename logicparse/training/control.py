"""A positive control for a logical model: a task whose answer is only in the labels.

Every example is a sentence of common words drawn alike for both classes. One random span of 1-3
words carries the class's label (``conditional:alpha`` for class 0, ``causal:alpha`` for class 1)
at its shallowest layer, and another span a distractor label drawn alike for both classes. The text
says nothing about the class, so a plain model stays at chance; a logical model learns the task
only if its labels reach its logits with enough weight for ordinary fine-tuning to find them.
``benchmarks/downstream/positive_control.py`` runs it on a real model.
"""

from __future__ import annotations

import numpy as np

from ..taxonomy import LABELS
from ..tokens import Document

WORDS = tuple("""the a people time year way day man thing woman life child world school state
family student group country problem hand part place case week company system program question
work government number night point home water room mother area money story fact month lot right
study book eye job word business issue side kind head house service friend father power hour game
line end member law car city community name president team minute idea kid body back parent face
level office door health person art war history party result change morning reason research girl
moment air teacher force education river garden window table paper street""".split())
CLASS_LABELS = (LABELS.index("conditional:alpha"), LABELS.index("causal:alpha"))
DISTRACTORS = tuple(LABELS.index(x) for x in ("conjunction:alpha", "disjunction:beta",
                                              "negation:alpha", "temporal:beta"))


def _span(rng: np.random.Generator, n: int, taken: set[int]) -> list[int]:
    for _ in range(100):
        width = int(rng.integers(1, 4))
        start = int(rng.integers(0, n - width + 1))
        span = list(range(start, start + width))
        if not taken & set(span):
            return span
    return []


def control_examples(n: int, seed: int = 0, min_words: int = 8, max_words: int = 16
                     ) -> tuple[list[Document], list[int]]:
    """``n`` labelled Documents and their classes (0/1, balanced in expectation), reproducible
    from ``seed``."""
    rng = np.random.default_rng(seed)
    docs, classes = [], []
    for i in range(n):
        words = [str(w) for w in rng.choice(WORDS, size=int(rng.integers(min_words, max_words + 1)))]
        cls = int(rng.integers(0, 2))
        logic: list[list[int]] = [[] for _ in words]
        key = _span(rng, len(words), set())
        for t in key:
            logic[t] = [CLASS_LABELS[cls]]
        for t in _span(rng, len(words), set(key)):
            logic[t] = [int(rng.choice(DISTRACTORS))]
        starts, pos = [], 0
        for w in words:
            starts.append(pos)
            pos += len(w) + 1
        docs.append(Document(id=f"control-{seed}-{i}", text=" ".join(words), tokens=words,
                             token_starts=starts, token_ends=[s + len(w) for s, w in zip(starts, words)],
                             sentence_starts=[0], logic=logic))
        classes.append(cls)
    return docs, classes


def fit_control(model, tokenizer, train: tuple[list[Document], list[int]],
                test: tuple[list[Document], list[int]], steps: int = 150, lr: float = 1e-4,
                batch_size: int = 16, eval_every: int = 25, seed: int = 0, logical: bool = True,
                k: int = 3) -> dict:
    """Fine-tune ``model`` (a sequence classifier with 2 labels, logicalized or plain) on the
    control task with one AdamW learning rate for every parameter, as a ``Trainer`` would, and
    return the test accuracy after every ``eval_every`` steps (``curve``) and at the end. The
    batches come from :class:`~logicparse.modeling.LogicAligner`, the public path from Documents
    to ``logic_ids``; a plain model gets the same ids without them."""
    import torch

    from ..modeling import LogicAligner, logical_embedding

    aligner = LogicAligner(tokenizer, k=k, max_length=64)
    emb = logical_embedding(model) if logical else None

    def batch(docs: list[Document], ys: list[int]) -> dict:
        enc = aligner(docs)
        if not logical:
            enc.pop("logic_ids")
        enc["labels"] = torch.tensor(ys)
        return enc

    @torch.no_grad()
    def accuracy() -> float:
        model.eval()
        right = 0
        for i in range(0, len(test[0]), 64):
            enc = batch(test[0][i:i + 64], test[1][i:i + 64])
            right += int((model(**enc).logits.argmax(-1) == enc["labels"]).sum())
        model.train()
        return right / len(test[0])

    probe = batch(test[0][:64], test[1][:64])
    share = (lambda: emb.label_share(probe["input_ids"], probe["logic_ids"])) if emb else (lambda: None)
    optimizer = torch.optim.AdamW(model.parameters(), lr=lr)
    order = np.random.default_rng(seed)
    out = {"curve": [], "share_init": share()}
    model.train()
    for step in range(1, steps + 1):
        pick = order.integers(0, len(train[0]), size=batch_size)
        loss = model(**batch([train[0][j] for j in pick], [train[1][j] for j in pick])).loss
        loss.backward()
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
        if step % eval_every == 0 or step == steps:
            out["curve"].append((step, accuracy()))
    out["accuracy"] = out["curve"][-1][1]
    out["share_after"] = share()
    return out


__all__ = ["CLASS_LABELS", "DISTRACTORS", "control_examples", "fit_control"]

"""The one error policy for a batch that fails: do the batch at once; if that raises, do its items
one by one, so that only the items at fault fail, and each of those becomes what ``failed`` makes
of it (a Document with ``error``, a placeholder, or a clearer exception).

Used by the Annotator (documents), the parser (sentences) and ``logicparse parser eval``
(sentences of a treebank). Batch workers add nothing: a document's failure is the Annotator's to
record; a worker handles only the death of its process.
"""

from __future__ import annotations

from typing import Callable, Generator, Sequence, TypeVar

Item = TypeVar("Item")
Out = TypeVar("Out")


def one_by_one_steps(items: Sequence[Item], run: Callable[[list], Generator],
                     failed: Callable[[Item, Exception], Out], catch=Exception):
    """A step generator (see :func:`drain`): ``run`` is a step generator over a list of items
    returning one result per item."""
    try:
        return (yield from run(list(items)))
    except catch:  # one bad item must not sink its batch: find it
        out = []
        for item in items:
            try:
                out.extend((yield from run([item])))
            except catch as e:
                out.append(failed(item, e))
        return out


def one_by_one(items: Sequence[Item], run: Callable[[list], list],
               failed: Callable[[Item, Exception], Out], catch=Exception) -> list:
    """``run(items)``, or on failure ``run([item])`` for each item, ``failed(item, error)`` for the
    items that still fail."""
    def steps(batch):
        return run(batch)
        yield  # noqa: unreachable - makes this a (stepless) generator

    return drain(one_by_one_steps(items, steps, failed, catch))


def drain(steps: Generator):
    """Run a step generator to its end; its return value."""
    while True:
        try:
            next(steps)
        except StopIteration as done:
            return done.value

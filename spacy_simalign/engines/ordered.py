"""Ordered, bounded mapping over futures: submit batches while fewer than `window` are
in flight, hand results back in submission order. Memory then holds at most `window`
batches, however long the input, and the output order is the input order."""

from collections import deque
from typing import Any, Callable, Deque, Iterable, Iterator, TypeVar

T = TypeVar("T")


def ordered_results(
    submit: Callable[[Any], Any],
    items: Iterable,
    window: int,
    result: Callable[[Any], T] = lambda future: future.result(),
) -> Iterator[T]:
    """`submit(item)` returns a future; yields `result(future)` in the order of `items`."""
    pending: Deque[Any] = deque()
    for item in items:
        pending.append(submit(item))
        if len(pending) >= window:
            yield result(pending.popleft())
    while pending:
        yield result(pending.popleft())

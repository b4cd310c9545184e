"""A context manager that sets torch's thread count for a block and restores it: the CRF's
tensors are small, and one thread is both fastest and independent of the machine's cores."""

from contextlib import contextmanager

import torch


@contextmanager
def torch_threads(n: int):
    old = torch.get_num_threads()
    if n and n != old:
        torch.set_num_threads(n)
    try:
        yield
    finally:
        if n and n != old:
            torch.set_num_threads(old)

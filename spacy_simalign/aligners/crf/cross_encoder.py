"""The paper's own emission: a cross-encoder over "[CLS] complex [SEP] simple", fine-tuned
through the CRF loss from a Hugging Face checkpoint folder on disk (no download). Slower
than the feature emission; chosen with config emission = "cross-encoder"."""

import os
from pathlib import Path
from typing import Union

import torch
from torch import nn

from ...errors import InputError
from .features import N_NULL_FEATURES, DirectionInput
from .model import NEG


class CrossEncoderEmission(nn.Module):
    """sim(i, j) = the checkpoint's single regression logit for the (complex, simple) text pair."""

    def __init__(self, folder: Union[str, Path], batch_size: int = 32, max_length: int = 128):
        super().__init__()
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        folder = Path(folder)
        if not (folder / "config.json").is_file():
            raise InputError(f"cross-encoder checkpoint folder not found (no config.json): {folder}")
        from transformers import AutoModelForSequenceClassification, AutoTokenizer
        from transformers.utils import logging as hf_logging

        verbosity = hf_logging.get_verbosity()
        hf_logging.set_verbosity_error()  # a fresh classification head is expected, not worth a warning
        try:
            self.tokenizer = AutoTokenizer.from_pretrained(str(folder), local_files_only=True)
            self.encoder = AutoModelForSequenceClassification.from_pretrained(
                str(folder), num_labels=1, local_files_only=True
            )
        finally:
            hf_logging.set_verbosity(verbosity)
        self.batch_size, self.max_length = batch_size, max_length
        self.null = nn.Sequential(nn.Linear(N_NULL_FEATURES, 16), nn.Tanh(), nn.Linear(16, 1))

    def forward(self, x: DirectionInput) -> torch.Tensor:
        n, k = x.cand.shape
        rows, ks = torch.nonzero(x.cand >= 0, as_tuple=True)
        firsts, seconds = [], []
        for i, j in zip(rows.tolist(), x.cand[rows, ks].tolist()):
            src, tgt = x.src_texts[i], x.tgt_texts[j]
            c, s = (src, tgt) if x.src_is_complex else (tgt, src)
            firsts.append(c)
            seconds.append(s)
        logits = []
        for b in range(0, len(firsts), self.batch_size):
            enc = self.tokenizer(
                firsts[b : b + self.batch_size],
                seconds[b : b + self.batch_size],
                truncation=True,
                max_length=self.max_length,
                padding=True,
                return_tensors="pt",
            )
            logits.append(self.encoder(**enc).logits[:, 0])
        pair = torch.full((n, k), NEG)
        if logits:
            pair = pair.index_put((rows, ks), torch.cat(logits))
        scores = torch.cat([self.null(x.null_feats), pair], dim=1)
        return scores.masked_fill(~x.mask, NEG)

    def save_encoder(self, folder: Union[str, Path]) -> None:
        self.encoder.save_pretrained(str(folder))
        self.tokenizer.save_pretrained(str(folder))

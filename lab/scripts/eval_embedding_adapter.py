"""Would a domain's 2 gold documents make the encoder's similarity better on its other documents?
A linear map of the USE embeddings, W = I + A, is fitted on the 2 documents' links (softmax over
each document's complex sentences, temperature 0.05, ridge `lam` on A; Adam, 600 steps) and scored
by how often the gold complex sentence is the most similar one for a linked simple sentence of the
domain's other documents, before and after. Per draw (seeds 0, 1, 2) the domain's documents are shuffled; the first 2 fit the map.

    cd lab && SPACY_SIMALIGN_CACHE=../.cache/emb ../.venv/bin/python scripts/eval_embedding_adapter.py \\
        [--domains bible_verified,mdr.de,stadt-koeln.de] [--lam 1,0.1,0.01,0.001] [--output FILE]
"""

import argparse
import os
import random
import sys
from collections import defaultdict
from pathlib import Path

import numpy as np
import torch
from gold_folds import read_gold_pairs
from script_output import add_output_option, run_main

from spacy_simalign.aligners.crf.aligner import CRFAligner

REPO = Path(__file__).resolve().parents[2]  # the repository: the lab project is its lab/ folder
DATA = Path(os.environ.get("SIMALIGN_SHARED_DATA", REPO.parent / "shared" / "data"))
DEFAULT_DATA = [DATA / "deplain-web-dev" / "pairs.jsonl", DATA / "sgc-dev" / "pairs.jsonl"]
TEMPERATURE = 0.05
STEPS = 600


def embedded_documents(paths, encoder):
    """domain -> [(simple embeddings, complex embeddings, {simple index: gold complex indices})]."""
    docs = defaultdict(list)
    for path in paths:
        domains, pairs = read_gold_pairs(str(path))
        for domain, pair in zip(domains, pairs):
            simple, complex_ = (
                np.asarray(encoder.encode(list(side.sentences), side.lang), dtype=np.float32)
                for side in (pair.simple, pair.complex)
            )
            gold = defaultdict(set)
            for c, s in pair.links:
                gold[s].add(c)
            docs[domain].append((simple, complex_, dict(gold)))
    return docs


def gold_first(docs, mapping=None) -> float:
    """Share of linked simple sentences whose most similar complex sentence is gold."""
    hits = []
    for simple, complex_, gold in docs:
        if mapping is not None:
            simple, complex_ = (x @ mapping for x in (simple, complex_))
            simple, complex_ = (x / np.linalg.norm(x, axis=1, keepdims=True) for x in (simple, complex_))
        sims = simple @ complex_.T
        hits += [int(np.argmax(sims[s])) in wanted for s, wanted in gold.items()]
    return float(np.mean(hits))


def fit_mapping(docs, lam: float, seed: int) -> np.ndarray:
    """W = I + A fitted on the documents' links, A pulled towards 0 by lam * |A|^2."""
    torch.manual_seed(seed)
    dim = docs[0][0].shape[1]
    delta = torch.zeros(dim, dim, requires_grad=True)
    opt = torch.optim.Adam([delta], lr=1e-3)
    data = [(torch.from_numpy(s), torch.from_numpy(c), gold) for s, c, gold in docs]
    n = sum(len(gold) for _, _, gold in data)
    for _ in range(STEPS):
        opt.zero_grad()
        mapping = torch.eye(dim) + delta
        loss = lam * (delta**2).sum()
        for simple, complex_, gold in data:
            s = torch.nn.functional.normalize(simple @ mapping, dim=1)
            c = torch.nn.functional.normalize(complex_ @ mapping, dim=1)
            logp = torch.log_softmax(s @ c.T / TEMPERATURE, dim=1)
            for i, wanted in gold.items():
                loss = loss - torch.logsumexp(logp[i, sorted(wanted)], 0) / n
        loss.backward()
        opt.step()
    return (torch.eye(dim) + delta).detach().numpy()


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", action="append", default=None, help="pair JSONL with gold (repeatable)")
    ap.add_argument("--domains", default="bible_verified,mdr.de,stadt-koeln.de")
    ap.add_argument("--lam", default="1,0.1,0.01,0.001", help="ridge strengths on A")
    ap.add_argument("--draws", default="0,1,2")
    add_output_option(ap)
    args = ap.parse_args(argv)
    docs = embedded_documents(args.data or DEFAULT_DATA, CRFAligner.default().encoder)
    lams = [float(x) for x in args.lam.split(",")]
    draws = [int(x) for x in args.draws.split(",")]
    print(f"gold ranked first on the domain's other documents, mean of draws {args.draws}: USE / mapped with lam")
    print(f"{'domain':<28} {'documents':>9} {'simple':>7} {'USE':>6} " + " ".join(f"{lam:>7g}" for lam in lams))
    for domain in args.domains.split(","):
        if len(docs.get(domain, ())) < 3:
            raise SystemExit(f"error: domain {domain!r} has fewer than 3 gold documents: {sorted(docs)}")
        items = docs[domain]
        base, mapped = [], defaultdict(list)
        for draw in draws:
            order = list(range(len(items)))
            random.Random(draw).shuffle(order)
            train, test = [items[i] for i in order[:2]], [items[i] for i in order[2:]]
            base.append(gold_first(test))
            for lam in lams:
                mapped[lam].append(gold_first(test, fit_mapping(train, lam, draw)))
        simple = sum(len(gold) for _, _, gold in items)
        cells = " ".join(f"{np.mean(mapped[lam]):7.3f}" for lam in lams)
        print(f"{domain:<28} {len(items):>9} {simple:>7} {np.mean(base):6.3f} {cells}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(run_main(main))

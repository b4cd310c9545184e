"""Rebuild a data set of ../shared/data from its upstream repository archive (an asset of
project.yml, the repository at a pinned commit): the files the set is made of are found in the
archive by name, written under OUT_DIR/<set>/, and kept only if their MD5 checksum is the one
given (the file in ../shared/data), so that every figure computed on them is the published one.

    python -m spacy project assets                      # downloads the archives (network)
    python -m spacy project run data                    # this, for each set with a recipe
    python project/data_sets.py amsterdam-municipal-nl assets/upstream/amsterdam.tar.gz data \\
        --md5 1b70cb0a5bcf2013d1d9fb9c6ee48150

DEplain-web dev is converted, not copied: the package's convert-deplain (the same functions) reads
the plans of D__Simplification_Plans/DEplain-web/test/ with the document CSV of the same part, whose
sentences the n:m rows are cut into, and keeps the corpora Alumniportal-2020 and bible_verified; the
plans of those corpora are copied beside the pairs, as in ../shared/data/deplain-web-dev/plans.

The commands then read the sets with `--vars.shared data` instead of ../shared/data."""

import argparse
import hashlib
import os
import sys
import tarfile
import tempfile
from pathlib import Path

from spacy_simalign.commands.convert_deplain import convert
from spacy_simalign.core.errors import InputError
from spacy_simalign.formats.deplain import plan_files, read_documents
from spacy_simalign.formats.jsonl import dump_line

# set -> the file of the set, by its upstream name (checked by its checksum)
RECIPES = {
    "amsterdam-municipal-nl": "complex-simple-v1-anonymized.csv",
    "deplain-web-dev": "pairs.jsonl",
}
DEPLAIN_PLANS = "D__Simplification_Plans/DEplain-web/test/"
DEPLAIN_DOCUMENTS = "B__Document-level_Corpus/DEplain-web-doc/manual/open/sentence-split/test.csv"
DEPLAIN_CORPORA = ("Alumniportal-2020", "bible_verified")  # the manual, open part of DEplain-web test


def member(archive: tarfile.TarFile, name: str, where: str) -> tarfile.TarInfo:
    """The one regular file of the archive whose base name is `name`."""
    found = [m for m in archive.getmembers() if m.isfile() and os.path.basename(m.name) == name]
    if len(found) != 1:
        raise SystemExit(f"error: {where}: {len(found)} files named {name} (expected one)")
    return found[0]


def below_top(archive: tarfile.TarFile):
    """Path below the archive's top folder (GitHub's REPO-COMMIT/) -> member, for its regular files."""
    return {m.name.split("/", 1)[1]: m for m in archive.getmembers() if m.isfile() and "/" in m.name}


def deplain_web_dev(archive: tarfile.TarFile, where: str):
    """(pairs.jsonl's bytes, plan file name -> bytes of the kept corpora's plans) converted by the package's
    convert-deplain from the test plans and the document CSV whose sentences n:m rows are cut into."""
    files = below_top(archive)
    plans = {n[len(DEPLAIN_PLANS) :]: m for n, m in files.items() if n.startswith(DEPLAIN_PLANS)}
    plans = {n: m for n, m in plans.items() if "/" not in n and n.startswith("plan_doc_") and n.endswith(".csv")}
    if not plans or DEPLAIN_DOCUMENTS not in files:
        raise SystemExit(f"error: {where}: no {DEPLAIN_PLANS}plan_doc_*.csv or no {DEPLAIN_DOCUMENTS}")
    with tempfile.TemporaryDirectory() as tmp:
        documents = Path(tmp, "documents.csv")  # beside the plans' folder, not in it
        documents.write_bytes(archive.extractfile(files[DEPLAIN_DOCUMENTS]).read())
        Path(tmp, "plans").mkdir()
        for name, info in plans.items():
            Path(tmp, "plans", name).write_bytes(archive.extractfile(info).read())
        try:
            found = plan_files([str(Path(tmp, "plans"))])
            pairs, skipped = convert(found, "de", read_documents(str(documents)), set(DEPLAIN_CORPORA))
        except InputError as err:
            raise SystemExit(f"error: {where}: {err}") from None
        for message in skipped:  # named by the plan's place in the archive
            print(message.replace(str(Path(tmp, "plans")), f"{where}:{DEPLAIN_PLANS[:-1]}"), file=sys.stderr)
        kept = {f"plan_doc_{p['id'].rsplit('-', 1)[1]}.csv" for p in pairs}
        copies = {f"plans/{n}": Path(tmp, "plans", n).read_bytes() for n in sorted(kept)}
    return "".join(dump_line(p) for p in pairs).encode("utf-8"), copies


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("set", choices=sorted(RECIPES), help="the data set (its folder name in ../shared/data)")
    ap.add_argument("archive", help="the upstream repository archive (.tar.gz)")
    ap.add_argument("out_dir", help="where the set's folder is written")
    ap.add_argument("--md5", required=True, help="the MD5 checksum the set's main file must have")
    args = ap.parse_args(argv)
    main_name = RECIPES[args.set]
    folder = Path(args.out_dir) / args.set
    try:
        archive = tarfile.open(args.archive)
    except (OSError, tarfile.TarError) as error:
        raise SystemExit(f"error: {args.archive}: cannot read the archive ({error}); run `spacy project assets`")
    with archive:
        if args.set == "deplain-web-dev":
            data, beside = deplain_web_dev(archive, args.archive)
        else:
            data, beside = archive.extractfile(member(archive, main_name, args.archive)).read(), {}
        got = hashlib.md5(data).hexdigest()
        if got != args.md5:
            raise SystemExit(f"error: {args.archive}: {main_name} has MD5 {got}, not {args.md5}: nothing written")
    for name, content in list(beside.items()) + [(main_name, data)]:
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        partial = folder / (name + ".part")
        partial.write_bytes(content)
        os.replace(partial, folder / name)  # whole or not at all
    print(f"{folder}: {main_name} (MD5 {got})", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Rebuild a data set of ../shared/data from its upstream repository archive (an asset of
project.yml, the repository at a pinned commit): the files the set is made of are found in the
archive by name, written under OUT_DIR/<set>/, and kept only if their MD5 checksum is the one
given (the file in ../shared/data), so that every figure computed on them is the published one.

    python -m spacy project assets                      # downloads the archives (network)
    python -m spacy project run data                    # this, for each set with a recipe
    python project/data_sets.py amsterdam-municipal-nl assets/upstream/amsterdam.tar.gz data \\
        --md5 1b70cb0a5bcf2013d1d9fb9c6ee48150

The commands then read the sets with `--vars.shared data` instead of ../shared/data."""

import argparse
import hashlib
import os
import sys
import tarfile
from pathlib import Path

# set -> the file of the set, by its upstream name (checked by its checksum)
RECIPES = {
    "amsterdam-municipal-nl": "complex-simple-v1-anonymized.csv",
}


def member(archive: tarfile.TarFile, name: str, where: str) -> tarfile.TarInfo:
    """The one regular file of the archive whose base name is `name`."""
    found = [m for m in archive.getmembers() if m.isfile() and os.path.basename(m.name) == name]
    if len(found) != 1:
        raise SystemExit(f"error: {where}: {len(found)} files named {name} (expected one)")
    return found[0]


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
        data = archive.extractfile(member(archive, main_name, args.archive)).read()
        got = hashlib.md5(data).hexdigest()
        if got != args.md5:
            raise SystemExit(f"error: {args.archive}: {main_name} has MD5 {got}, not {args.md5}: nothing written")
    folder.mkdir(parents=True, exist_ok=True)
    partial = folder / (main_name + ".part")
    partial.write_bytes(data)
    os.replace(partial, folder / main_name)  # whole or not at all
    print(f"{folder}: {main_name} (MD5 {got})", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Klexikon validation: the Klexikon / German Wikipedia article pairs of the validation split, copied
unchanged from the klexikon repository archive, kept only with the manifest checksum of
../shared/data's folder.

    python scripts/klexikon_files.py assets/upstream/klexikon.tar.gz data --md5 MANIFEST_MD5

The set is data/splits/validation/klexikon/*.txt and wiki/*.txt (a pair shares its file name). Its
checksum is the MD5 of the listing `MD5  PATH` of every file (md5sum's format, PATH relative to the
set's folder, e.g. klexikon/Aare.txt), sorted by PATH: one number for 548 files."""

import sys

from upstream import Upstream, arguments, check, done, manifest, write_folder

SET = "klexikon-validation"
SPLIT = "data/splits/validation/"
SIDES = ("klexikon", "wiki")


def set_files(upstream: Upstream) -> dict:
    """PATH below the set's folder -> bytes, for the .txt files of both sides of the split."""
    out = {}
    for name in upstream.files:
        side, _, rest = name[len(SPLIT) :].partition("/")
        if name.startswith(SPLIT) and side in SIDES and rest.endswith(".txt") and "/" not in rest:
            out[f"{side}/{rest}"] = upstream.read(name)
    return out


def main(argv=None) -> int:
    args = arguments(__doc__.splitlines()[0], "the manifest MD5 of the set's folder").parse_args(argv)
    files = set_files(Upstream(args.archive))
    check(f"{args.archive}: {SET}/ (manifest)", manifest(files), args.md5[0])
    folder = f"{args.out_dir}/{SET}"
    write_folder(folder, files)
    return done(folder, f"{len(files)} files (manifest MD5 {manifest(files)})")


if __name__ == "__main__":
    sys.exit(main())

"""What every data recipe of this project shares: reading a GitHub repository archive (.tar.gz,
one top folder `REPO-COMMIT/`) without unpacking it, and keeping the files made from it only when
their MD5 checksums are those of ../shared/data, so that every figure is computed on the same bytes.
Standard library only: the recipes run before anything else is installed."""

import argparse
import hashlib
import io
import os
import shutil
import sys
import tarfile
from typing import Dict, List


class Upstream:
    """The regular files of a repository archive, by their path below its top folder."""

    def __init__(self, path: str):
        self.path = path
        try:
            self.archive = tarfile.open(path)
            members = [m for m in self.archive.getmembers() if m.isfile()]
        except (OSError, tarfile.TarError) as error:
            fail(f"{path}: cannot read the archive ({error}); `spacy project assets` fetches it")
        tops = {m.name.split("/", 1)[0] for m in self.archive.getmembers()}
        if len(tops) != 1:
            fail(f"{path}: {len(tops)} top folders (a GitHub archive has one, REPO-COMMIT/)")
        self.files = {m.name.split("/", 1)[1]: m for m in members if "/" in m.name}

    def read(self, name: str) -> bytes:
        """The bytes of the file at `name` (below the top folder); a missing file is an error."""
        if name not in self.files:
            fail(f"{self.path}: no file {name} below the top folder")
        return self.archive.extractfile(self.files[name]).read()

    def text(self, name: str, encoding: str = "utf-8") -> str:
        """The file decoded as Python's open() in text mode decodes it (universal newlines), as the
        recipes of ../shared/data read their unpacked files."""
        return io.TextIOWrapper(io.BytesIO(self.read(name)), encoding=encoding).read()

    def lines(self, name: str, encoding: str = "utf-8") -> List[str]:
        """The file's lines as iterating an open() text file gives them (each with its '\\n')."""
        return io.StringIO(self.text(name, encoding)).readlines()

    def listdir(self, folder: str) -> List[str]:
        """The names of the files and folders directly inside `folder` (as os.listdir, sorted)."""
        prefix = folder.rstrip("/") + "/"
        return sorted({name[len(prefix) :].split("/", 1)[0] for name in self.files if name.startswith(prefix)})


def md5(data: bytes) -> str:
    """The hexadecimal MD5 checksum of `data`."""
    return hashlib.md5(data).hexdigest()


def manifest(files: Dict[str, bytes]) -> str:
    """The checksum of a folder of copied files: the MD5 of its listing, one line `MD5  PATH` a file
    (md5sum's format), sorted by the path relative to the folder."""
    listing = "".join(f"{md5(files[name])}  {name}\n" for name in sorted(files))
    return md5(listing.encode("utf-8"))


def check(what: str, got: str, expected: str) -> None:
    """Stop with one line, before anything is written, when a checksum is not the expected one."""
    if got != expected:
        fail(f"{what} has MD5 {got}, not {expected}: nothing written")


def write_files(folder: str, files: Dict[str, bytes]) -> None:
    """Write each file under `folder` whole or not at all (a partial file, then renamed)."""
    for name, data in files.items():
        path = os.path.join(folder, name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path + ".part", "wb") as handle:
            handle.write(data)
        os.replace(path + ".part", path)


def write_folder(folder: str, files: Dict[str, bytes]) -> None:
    """Replace `folder` by one holding exactly `files`: built beside it, then renamed into place, so
    that no stale file of an older copy stays."""
    partial = folder.rstrip("/") + ".part"
    shutil.rmtree(partial, ignore_errors=True)
    write_files(partial, files)
    shutil.rmtree(folder, ignore_errors=True)
    os.replace(partial, folder)


def fail(message: str) -> None:
    """Stop with one line `error: MESSAGE` on stderr and exit status 1."""
    raise SystemExit(f"error: {message}")


def arguments(description: str, md5_help: str = "the MD5 checksum the output must have") -> argparse.ArgumentParser:
    """The command line every recipe takes: ARCHIVE OUT_DIR --md5 ..."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("archive", help="the upstream repository archive (.tar.gz, an asset of project.yml)")
    parser.add_argument("out_dir", help="the folder that receives the set's folder")
    parser.add_argument("--md5", required=True, action="append", help=md5_help)
    return parser


def done(folder: str, what: str) -> int:
    """Say what was written (stderr) and give the exit status of success."""
    print(f"{folder}: {what}", file=sys.stderr)
    return 0


def convert_one_file(description: str, set_name: str, convert, argv=None) -> int:
    """The command of a recipe whose set is one pairs.jsonl: `convert(Upstream)` makes its bytes,
    kept in OUT_DIR/set_name only when their MD5 is the one given (nothing written otherwise)."""
    args = arguments(description).parse_args(argv)
    data = convert(Upstream(args.archive))
    check(f"{args.archive}: {set_name}/pairs.jsonl", md5(data), args.md5[0])
    folder = f"{args.out_dir}/{set_name}"
    write_files(folder, {"pairs.jsonl": data})
    count = data.count(b"\n")
    return done(folder, f"pairs.jsonl, {count} pair{'' if count == 1 else 's'} (MD5 {md5(data)})")

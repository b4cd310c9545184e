"""Build the spacy-simalign wheel into a folder: the project's `package` step puts it beside the
pipeline packages (packages/<run>/), since the pipelines require spacy-simalign and the plugin is not
on the package index. From a clone, after `spacy project run all`:

    pip install packages/main/spacy_simalign-0.1.0-py3-none-any.whl \\
        packages/main/de_simalign_web-0.1.0/dist/de_simalign_web-0.1.0-py3-none-any.whl

The build is checked, so that a wheel with files left out is never shipped: setuptools'
"Package would be ignored" warnings (a data folder missing from setup.cfg's package list) are
an error, and so is a module or a data file (the weights, resources and templates the code
reads at run time) of the source tree that is not in the wheel.

    python project/plugin_wheel.py OUT_DIR [--source SOURCE_TREE]
"""

import argparse
import re
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

import spacy_simalign

WARNING = re.compile(r"would be ignored|SetuptoolsDeprecationWarning|Installing .* as data is deprecated")
DATA_FOLDERS = ("weights", "resources", "templates")  # under spacy_simalign/: read by the code at run time


def left_out(wheel: Path, source: Path):
    """Modules and data files of the source tree that the wheel lacks."""
    package = source / "spacy_simalign"
    wanted = [
        p
        for p in package.rglob("*")
        if p.is_file()
        and "__pycache__" not in p.parts
        and (p.suffix == ".py" or p.relative_to(package).parts[0] in DATA_FOLDERS)
    ]
    names = set(zipfile.ZipFile(wheel).namelist())
    return sorted(str(p.relative_to(source)) for p in wanted if p.relative_to(source).as_posix() not in names)


def build(out_dir: Path, source: Path) -> Path:
    """The wheel built from `source` into `out_dir` (an older wheel of this version replaced)."""
    out_dir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="simalign-wheel-") as tmp:
        proc = subprocess.run(
            [sys.executable, "-m", "pip", "wheel", "-v", "--no-deps", "--no-build-isolation", "-w", tmp, str(source)],
            capture_output=True,
            text=True,
        )
        log = proc.stdout + proc.stderr
        if proc.returncode:
            sys.stderr.write(log[-5000:])
            raise SystemExit(f"error: building the spacy-simalign wheel from {source} failed")
        warnings = sorted({line.strip() for line in log.splitlines() if WARNING.search(line)})
        if warnings:
            raise SystemExit(
                "error: the spacy-simalign build warned (files would be left out of the wheel):\n" + "\n".join(warnings)
            )
        wheel = next(Path(tmp).glob("spacy_simalign-*.whl"))
        missing = left_out(wheel, source)
        if missing:
            raise SystemExit(
                f"error: the spacy-simalign wheel lacks {len(missing)} files of {source}: "
                + ", ".join(missing[:5])
                + (" ..." if len(missing) > 5 else "")
            )
        target = out_dir / wheel.name
        wheel.replace(target)
    return target


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out_dir", help="folder to put the wheel in (the pipelines' packages/ folder)")
    ap.add_argument(
        "--source",
        default=str(Path(spacy_simalign.__file__).resolve().parent.parent),
        help="source tree of spacy-simalign (setup.cfg inside); default: the one imported",
    )
    args = ap.parse_args(argv)
    print(build(Path(args.out_dir), Path(args.source)))
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Refuse to train a workflow's model under the main run's name: the commands of every workflow
write to corpus/, training/, metrics/ and packages/ under a folder named by vars.run ("main" by
default, the `all` workflow's), so a transformer or an adapted aligner trained without a run of
its own would replace the main run's model-best. Run before such a step's training.

    python project/run_name.py RUN --workflow transformer
"""

import argparse
import sys

MAIN = "main"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("run", help="the run's name (vars.run)")
    ap.add_argument("--workflow", required=True, help="the workflow whose step this is, as the hint names it")
    args = ap.parse_args(argv)
    if args.run == MAIN:
        print(
            f"error: vars.run: the {args.workflow} workflow would replace the main run's training/{MAIN}: "
            f"name a run of its own (--vars.run {args.workflow}); nothing was written",
            file=sys.stderr,
        )
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""`python -m commerce_evals.docgen`: regenerate (or `--check`) the docs' figures in a clone."""

from __future__ import annotations

import argparse
import sys

from commerce_evals.docgen.generate import main

if __name__ == "__main__":
    sys.exit(main(argparse.ArgumentParser(prog="python -m commerce_evals.docgen")))

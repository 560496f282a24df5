#!/usr/bin/env python3
"""Entry point of gradsync's figures: see gsplots/cli.py, or run with --help.

Usually started by scripts/plots.sh, which finds a Python with matplotlib.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
os.environ.setdefault("MPLBACKEND", "Agg")

from gsplots.cli import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())

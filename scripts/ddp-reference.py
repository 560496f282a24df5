#!/usr/bin/env python3
"""PyTorch DistributedDataParallel on gradsync's workloads: the ddp-gloo reference.

    scripts/ddp-reference.py --model small-cnn --workers 2 --out results/ddp.jsonl

The program is the package beside this file, ddp_reference/ (what it measures
and how: its __init__.py, docs/guide/ddp-reference.md; its options: --help).
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from ddp_reference.cli import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main(sys.argv))

#!/usr/bin/env python3
"""PyTorch DistributedDataParallel on gradsync's workloads: the ddp-gloo reference.

    scripts/ddp-reference.py --model small-cnn --workers 2 --out results/ddp.jsonl

The program is the package beside this file, ddp_reference/ (what it measures
and how: its __init__.py, docs/guide/ddp-reference.md; its options: --help).
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

try:
    from ddp_reference.cli import main
except ModuleNotFoundError as e:
    if e.name != "ddp_reference":
        raise
    print(f"ddp-reference: error: no ddp_reference/ beside {__file__}: this script runs that package "
          "(copy scripts/ whole, or run it from the checkout)", file=sys.stderr)
    sys.exit(2)

if __name__ == "__main__":
    sys.exit(main(sys.argv))

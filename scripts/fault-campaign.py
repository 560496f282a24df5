#!/usr/bin/env python3
"""A fault campaign: a seeded random matrix of multi-rank jobs, each hit by
one fault, each judged on what a user must be able to count on.

  scripts/fault-campaign.py --runs 242 --seed 1 --out campaign.jsonl

The program is the package beside this file, fault_campaign/ (the faults and
what a run must do to pass: its __init__.py, docs/guide/troubleshooting.md;
its options: --help).
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from fault_campaign.cli import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())

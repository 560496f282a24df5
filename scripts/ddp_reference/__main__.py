"""python3 -m ddp_reference (from scripts/): the same as scripts/ddp-reference.py."""
import sys

from .cli import main

sys.exit(main(sys.argv))

"""python3 -m fault_campaign (from scripts/): the same as scripts/fault-campaign.py."""
import sys

from .cli import main

sys.exit(main())

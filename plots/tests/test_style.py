"""Plot tests: the look of a strategy (order, colour, marker, label).

In process, on style.Look: it follows the strategy table's index and role
(synchronizer, baseline, reference, model), never the strategy's name.
"""
import os
import sys
import unittest

from plotcase import ROOT


class Look(unittest.TestCase):
    """In process: order, colour, marker and label come from the table's index and role, not names."""

    def test_role_and_index_not_names(self):
        sys.path.insert(0, os.path.join(ROOT, "plots"))
        from gsplots import style
        look = style.Look([{"name": "b", "index": 0, "role": "synchronizer"},
                           {"name": "idle", "index": 1, "role": "baseline"},
                           {"name": "a", "index": 2, "role": "reference"},
                           {"name": "new", "index": 3, "role": "synchronizer"}])
        self.assertEqual(look.order(["idle", "new", "a", "b", "zz"]), ["b", "idle", "a", "new", "zz"])
        self.assertEqual(look.label("idle"), "idle (no sync)")
        self.assertEqual(look.label("a"), "a")
        self.assertEqual(look.color("idle"), style.BASELINE_COLOR)
        colors = [look.color(s) for s in ("b", "a", "new")]
        self.assertEqual(colors, style.PALETTE[:3])
        self.assertEqual(len({look.marker(s) for s in ("b", "a", "new", "idle")}), 4)

    def test_model_only_role_takes_palette_by_index(self):
        sys.path.insert(0, os.path.join(ROOT, "plots"))
        from gsplots import style
        look = style.Look([{"name": "ring", "index": 0, "role": "synchronizer"},
                           {"name": "none", "index": 1, "role": "baseline"},
                           {"name": "hierarchical", "index": 3, "role": "model"},
                           {"name": "double-tree", "index": 2, "role": "model"}])
        self.assertEqual(look.order(["hierarchical", "none", "double-tree", "ring"]),
                         ["ring", "none", "double-tree", "hierarchical"])
        self.assertEqual([look.color(s) for s in ("ring", "double-tree", "hierarchical")],
                         style.PALETTE[:3])
        self.assertEqual([look.marker(s) for s in ("ring", "double-tree", "hierarchical")],
                         style.MARKERS[:3])
        self.assertEqual(look.label("double-tree"), "double-tree")


if __name__ == "__main__":
    unittest.main()

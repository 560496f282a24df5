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

    def test_table_entries_take_palette_by_index(self):
        sys.path.insert(0, os.path.join(ROOT, "plots"))
        from gsplots import style
        look = style.Look([{"name": "ring", "index": 0, "role": "synchronizer"},
                           {"name": "none", "index": 1, "role": "baseline"},
                           {"name": "hierarchical-mpi", "index": 3, "role": "synchronizer"},
                           {"name": "double-tree-mpi", "index": 2, "role": "synchronizer"}])
        self.assertEqual(look.order(["hierarchical-mpi", "none", "double-tree-mpi", "ring"]),
                         ["ring", "none", "double-tree-mpi", "hierarchical-mpi"])
        self.assertEqual([look.color(s) for s in ("ring", "double-tree-mpi", "hierarchical-mpi")],
                         style.PALETTE[:3])
        self.assertEqual([look.marker(s) for s in ("ring", "double-tree-mpi", "hierarchical-mpi")],
                         style.MARKERS[:3])
        self.assertEqual(look.label("double-tree-mpi"), "double-tree-mpi")


    def test_the_first_strategies_each_have_their_own_colour_and_marker(self):
        # As many strategies as the markers: no two share a colour or a marker,
        # none takes the baseline's, the ideal line's black or the failed red,
        # and only one is a triangle (the baseline's points the other way).
        sys.path.insert(0, os.path.join(ROOT, "plots"))
        from gsplots import style
        names = [f"s{i}" for i in range(len(style.MARKERS))]
        look = style.Look([{"name": n, "index": i, "role": "synchronizer"} for i, n in enumerate(names)]
                          + [{"name": "idle", "index": len(names), "role": "baseline"}])
        colors = [look.color(n) for n in names]
        markers = [look.marker(n) for n in names]
        self.assertEqual(len(set(colors)), len(names))
        self.assertEqual(len(set(markers)), len(names))
        for taken in (style.BASELINE_COLOR, "black", "red", "tab:red"):
            self.assertNotIn(taken, colors)
        self.assertNotIn(style.BASELINE_MARKER, markers)
        self.assertEqual(sum(m in ("^", "v", "<", ">") for m in markers), 1)

    def test_every_strategy_of_a_long_table_has_a_look_of_its_own(self):
        sys.path.insert(0, os.path.join(ROOT, "plots"))
        from gsplots import style
        names = [f"s{i}" for i in range(162)]
        look = style.Look([{"name": n, "index": i, "role": "synchronizer"}
                           for i, n in enumerate(names)])
        looks = {(look.color(n), look.marker(n)) for n in names}
        self.assertEqual(len(looks), len(names))


class WorkloadText(unittest.TestCase):
    """In process: emulated compute names its device profile, or the rate it was given
    instead of one (the profile records name "forced")."""

    def rows(self, profile, rates):
        return [{"device_profile": profile, "workers": n, "img_sec": {"mean": rate}}
                for n, rate in rates]

    def test_a_profile_by_name_and_a_forced_rate_in_words(self):
        sys.path.insert(0, os.path.join(ROOT, "plots"))
        from gsplots import style
        key = ("vgg16", "emulated", 64, "")
        self.assertEqual(style.workload_text(key, self.rows("v100", [(1, 200.0)])),
                         "vgg16 (emulated, v100), batch 64 per worker")
        forced = self.rows("forced", [(1, 130.90000000001), (2, 250.0)])
        self.assertEqual(style.workload_text(key, forced),
                         "vgg16 (emulated at 130.9 img/s per worker), batch 64 per worker")
        # No row at one worker, or two rates there: the rate is not one number.
        self.assertEqual(style.workload_text(key, forced[1:]),
                         "vgg16 (emulated at a fixed img/s per worker), batch 64 per worker")
        self.assertNotIn("forced", style.workload_text(key, forced))


if __name__ == "__main__":
    unittest.main()

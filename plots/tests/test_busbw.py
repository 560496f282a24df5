"""Plot tests: the collectives figure, bus bandwidth against message size.

One figure per worker count from the fixture's collectives records, every
synchronizing strategy a line (not the `none` baseline), a row with wrong
elements marked as a failed check. The harness is plotcase.py.
"""
import unittest

from plotcase import PlotCase, fixture


class Busbw(PlotCase):
    def test_busbw_per_worker_count(self):
        self.assertEqual(self.figures("busbw", fixture("collectives.jsonl")), ["busbw-n2", "busbw-n4"])
        n4 = self.svg_text("busbw-n4")
        for text in ("ring-mpi", "ps-zmq", "4K", "64K", "1M", "16M", "GB/s", "4 workers"):
            self.assertIn(text, n4)
        self.assertNotIn("none (no sync)", n4)
        self.assertIn("failed check", n4)  # ps-zmq's 1M row had wrong elements
        self.assertNotIn("failed check", self.svg_text("busbw-n2"))


if __name__ == "__main__":
    unittest.main()

"""Plot tests: the partitions table (`scripts/cluster-runs.sh partitions`' partitions.md).

Collectives records written on the spot, one file per run label: the median
time per call over every record of a label, in ms, with its min-max, a column
per size, the ring-mpi rows last; a directory without records is one clean
error line. The harness is plotcase.py.
"""
import json
import os
import unittest

from plotcase import PlotCase


def collectives_record(times_us):
    """A collectives record with one row per size: {size in bytes: time per call in us}."""
    return json.dumps({"strategy": "ps-zmq", "workers": 4,
                       "rows": [{"size_bytes": b, "time_us": t} for b, t in times_us.items()]})


class Partitions(PlotCase):
    MIB16, MIB64 = 16 << 20, 64 << 20

    def write_runs(self, runs):
        d = os.path.join(self.tmp.name, "partitions")
        os.makedirs(d)
        for label, records in runs.items():
            with open(os.path.join(d, f"{label}.jsonl"), "w") as f:
                f.write("".join(collectives_record(r) + "\n" for r in records))
        with open(os.path.join(d, "log.txt"), "w") as f:
            f.write("not records\n")
        return d

    def test_median_and_range_per_label_and_size(self):
        d = self.write_runs({
            "ring-mpi": [{self.MIB16: 9000, self.MIB64: 40000}],
            "ps-zmq-4-shards-1M": [{self.MIB16: 12000, self.MIB64: 51000},
                                   {self.MIB16: 10000, self.MIB64: 50000},
                                   {self.MIB16: 30000, self.MIB64: 49000}],
            "ps-zmq-1-shard-4M": [{self.MIB16: 20400, self.MIB64: 80600}]})
        p = self.run_plots("partitions", d, out=False)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(p.stdout, "| run | 16 MiB (ms) | 64 MiB (ms) |\n"
                                   "|---|---:|---:|\n"
                                   "| ps-zmq-1-shard-4M | 20 (20-20) | 81 (81-81) |\n"
                                   "| ps-zmq-4-shards-1M | 12 (10-30) | 50 (49-51) |\n"
                                   "| ring-mpi | 9 (9-9) | 40 (40-40) |\n")

    def test_not_a_directory_is_one_line(self):
        self.fails("partitions", os.path.join(self.tmp.name, "nope"), out=False,
                   expect="nope: not a directory")


if __name__ == "__main__":
    unittest.main()

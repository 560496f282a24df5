"""The fault campaign's judging (fault_campaign.judge) without a job: the
results file read as whole JSON lines after the records written before, and
each fault's "one true line": the stopped rank named and asked after, the
killed rank named by mpirun and by no stranger's line, the bad option's rank,
the full disk; forged traffic refused with every result correct."""
import types
import unittest

from scriptcase import ScriptCase

from fault_campaign.judge import forged_refused, one_true_line, read_results


def run(kind, when="middle", victim=1, strategy="ring-mpi", variant=None):
    return types.SimpleNamespace(kind=kind, when=when, victim=victim, strategy=strategy, variant=variant)


class Results(ScriptCase):
    def setUp(self):
        super().setUp()
        self.path = self.scratch("r.jsonl")

    def write(self, content):
        with open(self.path, "wb") as f:
            f.write(content)

    def test_no_file(self):
        self.assertEqual(read_results(self.path, b""), ([], False, False))

    def test_records_after_those_before(self):
        self.write(b'{"earlier": 1}\n{"correct": true}\n')
        self.assertEqual(read_results(self.path, b'{"earlier": 1}\n'), ([{"correct": True}], False, False))

    def test_lost_when_the_records_before_changed(self):
        self.write(b'{"earlier": 2}\n')
        self.assertEqual(read_results(self.path, b'{"earlier": 1}\n')[1], True)

    def test_torn(self):
        self.write(b'{"a": 1}\n{"b": \n')
        self.assertEqual(read_results(self.path, b""), ([{"a": 1}], False, True))
        self.write(b'{"a": 1}')  # whole JSON, but no end of line
        self.assertEqual(read_results(self.path, b""), ([{"a": 1}], False, True))


class OneTrueLine(unittest.TestCase):
    def test_stop_names_the_rank(self):
        asked = "gradsync: error: rank 0: no data from rank 1 for 2 s (--timeout); is rank 1 alive?"
        self.assertTrue(one_true_line(run("stop"), [asked], ""))
        shard = "gradsync: error: rank 0: ps-zmq: is rank 1 (server shard 0) alive?"
        self.assertTrue(one_true_line(run("stop"), [shard], ""))
        self.assertFalse(one_true_line(run("stop", victim=2), [asked], ""))
        self.assertFalse(one_true_line(run("stop"), [asked, asked], ""))

    def test_stop_at_launch_cannot_name_a_rank(self):
        line = "gradsync: error: MPI_Init did not complete within 5 s"
        self.assertTrue(one_true_line(run("stop", when="launch"), [line], ""))
        self.assertFalse(one_true_line(run("stop", when="launch"), [], ""))

    def test_kill_named_by_mpirun_and_no_stranger(self):
        notice = "mpirun noticed that process rank 1 with PID 77 on node vm exited on signal 9 (Killed)."
        self.assertTrue(one_true_line(run("kill"), [], notice))
        self.assertTrue(one_true_line(run("kill"), ["gradsync: error: rank 0: is rank 1 alive?"], notice))
        self.assertFalse(one_true_line(run("kill"), ["gradsync: error: rank 0: rank 2 is slow"], notice))
        self.assertFalse(one_true_line(run("kill", victim=0), [], notice))

    def test_option_names_its_rank(self):
        line = "gradsync: error: ranks disagree on --timeout: ranks 0,2: 2; rank 1: 9"
        self.assertTrue(one_true_line(run("option"), [line], ""))
        self.assertFalse(one_true_line(run("option", victim=3), [line], ""))

    def test_disk_names_the_full_file(self):
        line = "gradsync: error: rank 0: /x/results.jsonl: cannot append a record: No space left on device"
        self.assertTrue(one_true_line(run("disk"), [line], ""))
        self.assertFalse(one_true_line(run("disk"), ["gradsync: error: rank 0: other"], ""))

    def test_slow_any_one_line(self):
        self.assertTrue(one_true_line(run("slow"), ["gradsync: error: rank 3: anything"], ""))
        self.assertFalse(one_true_line(run("slow"), [], ""))


class NewKinds(unittest.TestCase):
    def test_input_names_the_stage_and_the_starved_rank(self):
        line = "gradsync: error: rank 1: input in step 3: the loader (1 thread(s)) made no batch for 2 s"
        self.assertTrue(one_true_line(run("input", variant="starved"), [line], ""))
        self.assertTrue(one_true_line(run("input", when="setup", victim=0, variant="slow"), [line], ""))
        self.assertFalse(one_true_line(run("input", variant="starved", victim=2), [line], ""))
        self.assertFalse(one_true_line(run("input", variant="slow"), [line, line], ""))
        blamed = "gradsync: error: rank 0: no data from rank 1 for 2 s (--timeout); is rank 1 alive?"
        self.assertFalse(one_true_line(run("input", variant="starved"), [blamed], ""))

    def test_input_threads_names_the_flag(self):
        line = "gradsync: error: rank 0: --input-threads 100000: this host allows at most 4096"
        self.assertTrue(one_true_line(run("input", variant="threads"), [line], ""))
        self.assertFalse(one_true_line(run("input", variant="threads"), ["gradsync: error: input"], ""))

    def test_shm_is_the_reserve_line(self):
        line = ("gradsync: error: rank 1: ps-zmq: cannot reserve 2097152 bytes of shared memory in "
                "/dev/shm: No space left on device (make /dev/shm larger, or ...: --ps-shm off)")
        self.assertTrue(one_true_line(run("shm"), [line], ""))
        self.assertFalse(one_true_line(run("shm"), [line, line], ""))
        waited = "gradsync: error: rank 0: ps-zmq: no reply from server shard 0; is rank 0 alive?"
        self.assertFalse(one_true_line(run("shm"), [waited], ""))

    def test_signal_named(self):
        term, intr = run("signal", variant="SIGTERM"), run("signal", variant="SIGINT")
        self.assertTrue(one_true_line(term, ["gradsync: error: the job was ended by SIGTERM"], ""))
        self.assertTrue(one_true_line(intr, ["gradsync: error: ended by signal 2"], ""))
        self.assertFalse(one_true_line(intr, ["gradsync: error: ended by SIGTERM"], ""))
        self.assertFalse(one_true_line(term, [], "mpirun: Forwarding signal 15 to job"))


class Forged(unittest.TestCase):
    def test_refused_and_correct(self):
        good = [{"correct": True}]
        self.assertTrue(forged_refused(run("forged"), 0, [], good, []))
        self.assertFalse(forged_refused(run("forged"), 1, [], good, []))
        self.assertFalse(forged_refused(run("forged"), 0, ["gradsync: error: x"], good, []))
        self.assertFalse(forged_refused(run("forged"), 0, [], [], []))
        self.assertFalse(forged_refused(run("forged"), 0, [], [{"correct": False}], []))

    def test_ps_zmq_counts_what_it_refused(self):
        ps = run("forged", strategy="ps-zmq")
        self.assertTrue(forged_refused(ps, 0, [], [{"correct": True}], [{"total": 3}]))
        self.assertFalse(forged_refused(ps, 0, [], [{"correct": True}], [{"total": 0}]))


if __name__ == "__main__":
    unittest.main()

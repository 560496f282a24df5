"""A fault campaign: a seeded random matrix of multi-rank jobs, each hit by
one fault, each judged on what a user must be able to count on.

  scripts/fault-campaign.py --runs 242 --seed 1 --out campaign.jsonl

Each run draws a strategy (every CPU strategy this build can run, Gloo's
among them when it was built; --strategies narrows it), a number of ranks (2-4) and
a subcommand (collectives; train for some), and takes the next fault kind in
turn, at a time drawn from those the kind has:
  stop    one rank stopped (SIGSTOP) at launch (before it runs gradsync:
          the others wait in MPI_Init's closing fence, which gradsync
          bounds at --timeout + 3 s; the line cannot name the rank), while
          the ranks set up (past MPI_Init), as they start measuring, or in
          the middle;
  kill    one rank killed (SIGKILL), at the same times but launch (a
          process killed before it runs gradsync is mpirun's alone to
          report, and Open MPI 4.1 does not always name its rank);
  slow    every data link of the job throttled to 8 kbit/s (tc htb on
          loopback in the job's network namespace, all TCP but the
          launcher's; every MPI message through TCP: OMPI_MCA_btl=self,tcp),
          as it starts measuring or in the middle: links that move nothing;
  option  one rank given a different or bad option (an MPMD launch);
  disk    the results file on a full file system (a 1 MiB tmpfs, filled
          before the run or while it measures), with records already in it
          (collectives, 150 iterations);
  forged  forged ZeroMQ traffic at every ZeroMQ socket of the job (the
          parameter server's shards, the stall board) while it measures.
  input   the input stage (train): slower than --timeout on every rank from
          the start (decode:3000ms), --input-threads 100000, or one rank's
          CPU throttled to 0.5% by a cgroup as it starts measuring or in the
          middle (decode:5ms: its loader falls seconds behind);
  shm     ps-zmq through its shared segments (--ps-shm copy)
          collectives with sizes that grow (1M up), its /dev/shm a
          tmpfs of its own (unshare -m): 24 MiB from the start, or 64 MiB
          filled as it starts measuring; or train (resnet50, emulated) in
          the 24 MiB;
  model   `gradsync simulate` given a bad cluster file or published table
          (model_inputs: a zero, negative, fractional, non-finite or huge
          number, a missing key, garbage after the JSON document);
  writers two tiny `gradsync sweep`s started together into one folder;
  signal  SIGTERM or SIGINT to the launcher (mpirun) as the job starts
          measuring or in the middle.
A run passes when (the columns of the table):
  in time   the job ended within its timeout + 5 s of the fault (the
            harness's own waits, which bound setup and `none`, and a rank
            starved of CPU, which mpirun waits for at the starved rate,
            take --timeout + 3 s), or ran to its end when the fault must not
            end it (forged traffic);
  one line  stop, slow, option, disk: exactly one "gradsync: error:" line,
            naming the stopped rank, the rank with the bad option, or the
            full file ("No space left on device"); for slow, any one line
            (every rank waits, none stopped); input: the input stage (and
            the starved rank) or --input-threads; shm: the reserve's
            "cannot reserve ... No space left on device" (and exit 1);
            model: the file and the key, or the bad value's line; writers:
            one sweep ran, the other named its process; signal: the
            signal, by name or number; kill: mpirun's notice names
            the killed rank and no gradsync line names another; forged:
            none, exit 0, every result checked and correct, and under
            ps-zmq the shards' record counts the messages they refused;
  nothing wrong  no record says "correct": true unless the run finished
            (forged), and the records written before are byte for byte there;
            signal: no record at all; model: no nan printed, nothing in
            --out; writers: the records and logs of one sweep, whole;
  not torn  every line of the results file is whole JSON;
  none left no process of the job runs 3 s after mpirun returned.
Each run's verdict goes to --out (JSON lines); the table goes to stdout.
Needs root for slow, disk, shm and input (tc, mount, unshare, a cpu
cgroup); nsenter, unshare and tc from util-linux and iproute2. Runs one job
at a time: about 5 s each on 2 cores. A job of the later kinds that the
fault does not end is ended 30 s after its launch.

The modules: plan (the seeded draw of runs and each run's command), procfs
(the job's processes), forged (hand-spoken ZMTP), slow_links (tc on the job's
loopback), host_faults (a starved rank, a filled /dev/shm, a signal),
model_inputs (the cost model's bad files, run and judged), writers (two
sweeps, judged), faults (one run: its fault and its cleanup), judge (its
verdict), report (the campaign's table), cli (main).
"""
import os

# The repository: scripts/mpirun.sh, build/bin/gradsync.
REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# The script users run; the forger runs it again inside the job's network namespace.
LAUNCHER = os.path.join(REPO, "scripts", "fault-campaign.py")

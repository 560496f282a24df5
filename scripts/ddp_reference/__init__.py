"""PyTorch DistributedDataParallel on gradsync's workloads: the ddp-gloo reference.

    scripts/ddp-reference.py --model small-cnn --workers 2 --out results/ddp.jsonl

Trains the zoo model gradsync's `train` trains (the same network: every
trainable tensor's name and shape equals `gradsync models --json`'s, which
tests/cli/ddp.sh checks) at the same batch, schedule and worker count, with
torch.nn.parallel.DistributedDataParallel over Gloo on the CPU (NCCL with
--compute cuda on a GPU: written, never run here), DDP's own buckets
(--bucket-cap-mb, DDP's default 25) and overlap, and appends one gradsync
train record (results/README.md) with strategy "ddp-gloo" ("ddp-nccl"),
marked "external": "pytorch-ddp", so that `gradsync report`, `compare`, the
figures and `sweep` put it beside gradsync's own strategies.

Launch: the script starts its own workers (one process each, forked; spawned
for cuda) on this host, joined over loopback (127.0.0.1, a free port); no
mpirun. Every worker's Gloo waits are bounded by --timeout: a worker that
does not answer ends the run with one line and exit status 1, never a hang.
Bad input (an unknown model, a malformed number, a flag gradsync's `train`
has but DDP cannot honour, no torch) is one line and exit status 2.

What is measured, per worker and step, as gradsync's `train` defines it
(docs/guide/ddp-reference.md): compute = forward + backward until the last
bucket was handed to communication; exposed communication = from then until
backward returned (DDP's reducer waits for its buckets inside backward);
allreduce = the time some bucket's allreduce was in flight. The bucket
times come from a communication hook that runs torch's own default
allreduce hook (divide by the workers, allreduce-sum) between two clock
reads. One compute thread per worker: $OPENBLAS_NUM_THREADS when set (a
sweep sets 1), else the cores shared among the workers, as gradsync's
workers share them.

The modules: arguments (the command line), models and synthetic_data (the
workload, as gradsync's), worker (one worker's loop, and its results reduced
over the workers), processes (the launcher of the workers), record (the
record and its append), console (what a run prints), cli (main).
"""
import os

# The repository: the version in CMakeLists.txt and the commit a record carries.
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# The script users run; a Python without torch runs it again under one with it.
LAUNCHER = os.path.join(ROOT, "scripts", "ddp-reference.py")

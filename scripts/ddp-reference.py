#!/usr/bin/env python3
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
"""
import argparse
import datetime
import hashlib
import json
import math
import os
import shlex
import signal
import socket
import subprocess
import sys
import time

PROG = "ddp-reference"
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
USAGE_STATUS = 2

# gradsync's zoo: input (C, H, W) and classes (models/*.cc).
MODELS = {
    "small-cnn": ((3, 32, 32), 10),
    "resnet50": ((3, 224, 224), 1000),
    "resnet101": ((3, 224, 224), 1000),
    "vgg16": ((3, 224, 224), 1000),
    "inception3": ((3, 299, 299), 1000),
    "alexnet": ((3, 224, 224), 1000),
}

# gradsync train's options that change what a gradsync strategy does and
# that DDP has no counterpart of: refused by name, so that a sweep's
# --train-args never silently mean something else here.
NOT_FOR_DDP = ("--ring-segment", "--tree-segment", "--short-allreduce", "--compression",
               "--ps-servers", "--ps-placement", "--ps-transport", "--ps-bind-host",
               "--ps-partition", "--ps-mode", "--ps-staleness", "--device",
               "--emulate-img-per-sec", "--time-scale", "--straggler", "--precision",
               "--timeline", "--timeline-steps", "--target-loss")


class UsageError(Exception):
    """Bad input: one line, exit status 2."""


def fail(message, status):
    print(f"{PROG}: error: {message}", file=sys.stderr, flush=True)
    sys.exit(status)


class Parser(argparse.ArgumentParser):
    def error(self, message):
        raise UsageError(f"{message} (see {PROG} --help)")


def positive_int(text):
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"'{text}' must be at least 1")
    return value


def count(text):
    value = int(text) if text.lstrip("-").isdigit() else None
    if value is None or value < 0:
        raise argparse.ArgumentTypeError(f"'{text}' is not a whole number of 0 or more")
    return value


def finite(low):
    def parse(text):
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"'{text}' is not a number") from None
        if not math.isfinite(value) or value < low:
            raise argparse.ArgumentTypeError(f"'{text}' must be a finite number of at least {low:g}")
        return value
    return parse


def parse_args(argv):
    p = Parser(prog=PROG, description=__doc__.split("\n\n")[0],
               formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--model", required=True, help="a model of `gradsync models`")
    p.add_argument("--workers", type=positive_int, default=1, help="worker processes on this host")
    p.add_argument("--compute", choices=["cpu", "cuda"], default="cpu",
                   help="cpu: Gloo (ddp-gloo); cuda: one GPU per worker, NCCL (ddp-nccl)")
    p.add_argument("--batch-size", type=positive_int, default=32, help="images per worker per step")
    p.add_argument("--num-warmup-batches", type=count, default=10, help="untimed steps first")
    p.add_argument("--num-batches-per-iter", type=positive_int, default=10, help="steps per timed iteration")
    p.add_argument("--num-iters", type=positive_int, default=10, help="timed iterations")
    p.add_argument("--bucket-cap-mb", type=finite(0), default=None,
                   help="DDP's bucket_cap_mb (default 25, DDP's own)")
    p.add_argument("--fusion-mb", type=finite(0), default=None,
                   help="gradsync train's name for the same knob: the bucket threshold in MiB")
    p.add_argument("--overlap", choices=["on"], default="on",
                   help="DDP always reduces buckets while backward runs")
    p.add_argument("--strategy", default=None,
                   help="ddp-gloo (cpu) or ddp-nccl (cuda); the default follows --compute")
    p.add_argument("--lr", type=finite(0), default=0.01, help="learning rate of one worker")
    p.add_argument("--momentum", type=finite(0), default=0.9)
    p.add_argument("--weight-decay", type=finite(0), default=0.0)
    p.add_argument("--warmup-steps", type=count, default=0,
                   help="steps of linear learning-rate warm-up to lr x workers")
    p.add_argument("--seed", type=count, default=1, help="seed of the initial parameters")
    p.add_argument("--data-seed", type=count, default=1, help="seed of the synthetic data")
    p.add_argument("--timeout", type=finite(0), default=60.0,
                   help="seconds any wait on a peer may take (Gloo's and the store's) before the run fails")
    p.add_argument("--out", default="", help="append the run's record to this JSON Lines file")
    p.add_argument("--list-parameters", action="store_true",
                   help="print the torch model's trainable tensors (name, shape) as JSON and exit")
    p.add_argument("--print-config-digest", action="store_true",
                   help="print the digest the run's record would carry and exit (gradsync sweep's resume)")
    p.add_argument("--test-stall-rank", type=count, default=None,
                   help="tests only: this worker stops answering at its first step")
    known, rest = p.parse_known_args(argv)
    for word in rest:
        flag = word.split("=", 1)[0]
        if flag in NOT_FOR_DDP:
            raise UsageError(f"{flag} is a gradsync option that DDP has no counterpart of")
    if rest:
        raise UsageError(f"unrecognized arguments: {' '.join(rest)} (see {PROG} --help)")
    a = known
    if a.model not in MODELS:
        raise UsageError(f"--model: unknown model '{a.model}' (known: {', '.join(MODELS)})")
    if a.fusion_mb is not None and a.bucket_cap_mb is not None and a.fusion_mb != a.bucket_cap_mb:
        raise UsageError("--fusion-mb and --bucket-cap-mb name the same bucket threshold: give one")
    a.bucket_cap_mb = next(v for v in (a.bucket_cap_mb, a.fusion_mb, 25.0) if v is not None)
    if a.bucket_cap_mb <= 0:
        raise UsageError("--bucket-cap-mb must be above 0 (DDP has no unfused mode)")
    backend = "nccl" if a.compute == "cuda" else "gloo"
    if a.strategy not in (None, f"ddp-{backend}"):
        raise UsageError(f"--strategy {a.strategy}: with --compute {a.compute} this script runs ddp-{backend}")
    a.strategy, a.backend = f"ddp-{backend}", backend
    if a.timeout <= 0:
        raise UsageError("--timeout must be above 0: a wait on a peer is always bounded")
    if a.test_stall_rank is not None and a.test_stall_rank >= a.workers:
        raise UsageError(f"--test-stall-rank {a.test_stall_rank}: there are {a.workers} worker(s)")
    return a


def python_with_torch():
    """Runs this script again under a Python that may have PyTorch when this one has none:
    $GRADSYNC_PYTHON, then /usr/bin/python3 (Debian's python3-torch), as scripts/plots.sh
    finds matplotlib. Returns only when there is none other to try."""
    try:
        import torch  # noqa: F401
        return
    except ImportError:
        pass
    if os.environ.get("GRADSYNC_DDP_TRIED"):
        return
    tried = os.path.realpath(sys.executable)
    for py in (os.environ.get("GRADSYNC_PYTHON"), "/usr/bin/python3"):
        if py and os.access(py, os.X_OK) and os.path.realpath(py) != tried:
            os.environ["GRADSYNC_DDP_TRIED"] = sys.executable
            os.execv(py, [py, os.path.abspath(__file__)] + sys.argv[1:])


def import_torch():
    try:
        import torch  # noqa: F401
        import torch.distributed  # noqa: F401
    except ImportError as e:
        tried = ", ".join(dict.fromkeys(filter(None, (os.environ.get("GRADSYNC_DDP_TRIED"), sys.executable))))
        raise UsageError(f"no PyTorch ({e}; tried {tried}); scripts/install-deps.sh peers installs "
                         "python3-torch and python3-torchvision for /usr/bin/python3, or set "
                         "GRADSYNC_PYTHON to a Python that has them") from None
    return torch


def one_line(e):
    """An exception as one line: PyTorch's callback chains and source locations left out."""
    text = " ".join(str(e).split()) or type(e).__name__
    text = text.split(" At: ")[0]
    marker = "Got the following error when running the callback: "
    while marker in text:
        text = text.split(marker, 1)[1]
    if "Timed out" in text or "timed out" in text or "Connection closed by peer" in text:
        text += " (a peer did not answer within --timeout; the run is ended)"
    return text


# --- the networks -------------------------------------------------------


def build_model(name):
    """The torch module of gradsync's zoo model `name`, its tensors named as gradsync names them."""
    import torch.nn as nn
    if name == "small-cnn":
        class SmallCnn(nn.Module):
            # models/small_cnn.cc: conv3x3(16)+ReLU, maxpool2, conv3x3(32)+ReLU, maxpool2, fc(10).
            def __init__(self):
                super().__init__()
                self.conv1 = nn.Conv2d(3, 16, 3, 1, 1)
                self.conv2 = nn.Conv2d(16, 32, 3, 1, 1)
                self.fc = nn.Linear(32 * 8 * 8, 10)

            def forward(self, x):
                x = nn.functional.max_pool2d(nn.functional.relu(self.conv1(x)), 2)
                x = nn.functional.max_pool2d(nn.functional.relu(self.conv2(x)), 2)
                return self.fc(x.flatten(1))
        return SmallCnn()
    try:
        import torchvision.models as tv
    except ImportError as e:
        raise UsageError(f"--model {name} is torchvision's: {sys.executable} has no torchvision ({e}); "
                         "scripts/install-deps.sh peers installs python3-torchvision") from None
    if name in ("resnet50", "resnet101"):
        return getattr(tv, name)(weights=None)
    if name == "inception3":
        return tv.inception_v3(weights=None, aux_logits=False, init_weights=True)
    model = getattr(tv, name)(weights=None)  # vgg16, alexnet
    # gradsync treats dropout as the identity (it measures throughput, not accuracy).
    for parent in model.modules():
        for child_name, child in parent.named_children():
            if isinstance(child, nn.Dropout):
                setattr(parent, child_name, nn.Identity())
    return model


def parameter_list(model):
    return [{"name": n, "shape": list(p.shape), "elements": p.numel()}
            for n, p in model.named_parameters() if p.requires_grad]


# --- synthetic data, as models/synthetic_data.h makes it -----------------


class SyntheticData:
    """Each class a fixed random template in [-1, 1), constant over 4x4 pixel blocks,
    plus Gaussian noise of standard deviation 0.5; sample i of step s from (seed, s, i)
    alone, so N workers see what one worker with batch N x B sees."""

    def __init__(self, torch, shape, classes, seed, device):
        self.torch, self.shape, self.classes, self.seed, self.device = torch, shape, classes, seed, device
        c, h, w = shape
        g = torch.Generator().manual_seed(seed)
        self.templates = torch.rand(classes, c, (h + 3) // 4, (w + 3) // 4, generator=g) * 2 - 1

    def batch(self, step, first_sample, batch):
        torch = self.torch
        g = torch.Generator().manual_seed((self.seed * 1000003 + step) * 1000003 + first_sample)
        labels = torch.randint(0, self.classes, (batch,), generator=g)
        c, h, w = self.shape
        images = self.templates[labels].repeat_interleave(4, 2).repeat_interleave(4, 3)[:, :, :h, :w]
        images = images + 0.5 * torch.randn(batch, c, h, w, generator=g)
        return images.contiguous().to(self.device), labels.to(self.device)


# --- one worker ----------------------------------------------------------


class BucketClock:
    """DDP's default allreduce (torch's own default_hooks.allreduce_hook), with each
    bucket's hand-over and completion time noted."""

    def __init__(self):
        self.spans = []  # this step's (handed over, done), one per bucket

    def hook(self, state, bucket):
        from torch.distributed.algorithms.ddp_comm_hooks import default_hooks
        start = time.perf_counter()
        span = [start, start]
        self.spans.append(span)

        def done(fut):
            span[1] = time.perf_counter()
            return fut.value()
        return default_hooks.allreduce_hook(None, bucket).then(done)

    def take(self):
        spans, self.spans = self.spans, []
        return spans


def busy_time(spans):
    """The time at least one bucket was in flight: the union of the spans."""
    total, end = 0.0, -math.inf
    for start, stop in sorted(spans):
        if stop > end:
            total += stop - max(start, end)
            end = stop
    return total


def worker_threads(workers):
    chosen = os.environ.get("OPENBLAS_NUM_THREADS")
    if chosen and chosen.isdigit() and int(chosen) > 0:
        return int(chosen)
    return max(1, (os.cpu_count() or 1) // workers)


def learning_rate(a, step):
    if a.warmup_steps == 0:
        return a.lr * a.workers
    return a.lr * (1 + (a.workers - 1) * min(1.0, step / a.warmup_steps))


def train_worker(rank, a, port, results):
    torch = import_torch()
    import torch.distributed as dist
    import torch.nn as nn
    threads = worker_threads(a.workers)
    torch.set_num_threads(threads)
    device = torch.device("cpu")
    if a.backend == "nccl":
        device = torch.device("cuda", rank)
        torch.cuda.set_device(device)
    dist.init_process_group(a.backend, init_method=f"tcp://127.0.0.1:{port}", rank=rank,
                            world_size=a.workers, timeout=datetime.timedelta(seconds=a.timeout))
    torch.manual_seed(a.seed)
    model = build_model(a.model).to(device)
    shape, classes = MODELS[a.model]
    ddp = nn.parallel.DistributedDataParallel(
        model, device_ids=[rank] if a.backend == "nccl" else None, bucket_cap_mb=a.bucket_cap_mb)
    clock = BucketClock()
    ddp.register_comm_hook(None, clock.hook)
    sgd = torch.optim.SGD(ddp.parameters(), lr=a.lr, momentum=a.momentum, weight_decay=a.weight_decay)
    loss_fn = nn.CrossEntropyLoss()
    data = SyntheticData(torch, shape, classes, a.data_seed, device)
    sync = torch.cuda.synchronize if a.backend == "nccl" else (lambda: None)
    total = a.num_warmup_batches + a.num_iters * a.num_batches_per_iter
    steps, iter_s, losses = [], [], []
    nonfinite_step = -1
    dist.barrier()
    for step in range(total):
        if a.test_stall_rank == rank:
            time.sleep(10 * a.timeout + 60)  # stops answering; the others' waits end the run
        timed = step - a.num_warmup_batches
        if timed >= 0 and timed % a.num_batches_per_iter == 0:
            iter_start = time.perf_counter()
        images, labels = data.batch(step, rank * a.batch_size, a.batch_size)
        for group in sgd.param_groups:
            group["lr"] = learning_rate(a, step)
        sgd.zero_grad(set_to_none=False)
        sync()
        t0 = time.perf_counter()
        loss = loss_fn(ddp(images), labels)
        loss.backward()
        sync()
        t1 = time.perf_counter()
        sgd.step()
        sync()
        t2 = time.perf_counter()
        spans = clock.take()
        handed_over = max((s for s, _ in spans), default=t1)
        value = float(loss.item())
        losses.append(value)
        if nonfinite_step < 0 and not math.isfinite(value):
            nonfinite_step = step
        steps.append({"step_s": t2 - t0, "compute_s": handed_over - t0, "wait_s": t1 - handed_over,
                      "allreduce_s": busy_time(spans), "buckets": len(spans)})
        if timed >= 0 and (timed + 1) % a.num_batches_per_iter == 0:
            # One collective per iteration, as gradsync's: the slowest worker's time, and
            # the earliest step whose loss was not finite on any worker.
            agreed = torch.tensor([time.perf_counter() - iter_start,
                                   -nonfinite_step if nonfinite_step >= 0 else -1e300],
                                  dtype=torch.float64)
            dist.all_reduce(agreed, op=dist.ReduceOp.MAX)
            iter_s.append(float(agreed[0]))
            if agreed[1] > -1e300:
                nonfinite_step = int(-agreed[1])
                break
    timed_steps = steps[a.num_warmup_batches:]
    summary = summarize(torch, dist, a, timed_steps, iter_s, losses, ddp)
    if nonfinite_step >= 0:
        summary["nonfinite"] = (f"the loss stopped being finite at step {nonfinite_step} "
                                f"(of {total}; warm-up {a.num_warmup_batches})")
    summary["threads"] = threads
    if rank == 0:
        results.put(summary)
    dist.barrier()
    dist.destroy_process_group()


def summarize(torch, dist, a, timed, iter_s, losses, ddp):
    """The run's results object, reduced over the workers as gradsync's summarize() does."""
    n = len(timed)
    workers = a.workers

    def mean_over_workers(values):
        t = torch.tensor(values, dtype=torch.float64)
        dist.all_reduce(t)
        return [float(x) / workers for x in t]

    def mean(key):
        return sum(s[key] for s in timed) / max(1, n)

    own_step, compute, wait, allreduce, first, last = mean_over_workers(
        [mean("step_s"), mean("compute_s"), mean("wait_s"), mean("allreduce_s"), losses[0], losses[-1]])
    slowest = torch.tensor([s["step_s"] for s in timed], dtype=torch.float64)
    dist.all_reduce(slowest, op=dist.ReduceOp.MAX)
    step_s = sorted(float(x) for x in slowest)

    def percentile(q):
        if not step_s:
            return 0.0
        k = math.ceil(q * len(step_s))
        return step_s[min(len(step_s) - 1, max(0, k - 1))]

    images = a.batch_size * a.num_batches_per_iter
    per_worker = [images / t for t in iter_s]
    img_mean = sum(per_worker) / max(1, len(per_worker))
    img_conf = 1.96 * math.sqrt(sum((x - img_mean) ** 2 for x in per_worker) / max(1, len(per_worker)))
    # Parameters bit-identical on every worker: a digest of their bytes, gathered.
    flat = torch.cat([p.detach().reshape(-1).cpu() for p in ddp.module.parameters()])
    digest = hashlib.sha256(flat.numpy().tobytes()).hexdigest()
    digests = [None] * workers
    dist.all_gather_object(digests, digest)
    differing = [r for r, d in enumerate(digests) if d != digests[0]]
    gradient_bytes = sum(p.numel() * p.element_size() for p in ddp.module.parameters() if p.requires_grad)
    return {
        "workers": workers, "batch_size": a.batch_size,
        "img_sec_per_worker": per_worker, "img_sec_mean": img_mean, "img_sec_conf": img_conf,
        "step_mean_s": sum(step_s) / max(1, n), "step_median_s": percentile(0.5),
        "step_p90_s": percentile(0.9), "step_p99_s": percentile(0.99), "timed_steps": n,
        "compute_s": compute, "exposed_comm_s": wait, "allreduce_s": allreduce, "staging_s": 0.0,
        "exposed_comm_share": wait / own_step if own_step > 0 else 0.0,
        "first_loss": first, "last_loss": last,
        "gradient_bytes": gradient_bytes,
        "buckets_per_step": timed[-1]["buckets"] if timed else 0,
        "mismatch": "" if not differing else
        f"parameters differ from worker 0's on worker(s) {', '.join(map(str, differing))}",
        "parameters_checked": True, "parameters_identical": not differing,
        "represented_img_sec_mean": img_mean, "represented_img_sec_conf": img_conf,
    }


# --- the record ----------------------------------------------------------


def config_of(a, torch_version):
    """The effective configuration (every option with the value it took) and its digest,
    FNV-1a 64 over its JSON text as gradsync's own (harness/cli/run_config.h)."""
    options = {"subcommand": "ddp-reference"}
    for key in ("model", "workers", "compute", "batch_size", "num_warmup_batches",
                "num_batches_per_iter", "num_iters", "bucket_cap_mb", "overlap", "strategy", "lr",
                "momentum", "weight_decay", "warmup_steps", "seed", "data_seed", "timeout"):
        options["--" + key.replace("_", "-")] = f"{getattr(a, key):g}" if isinstance(
            getattr(a, key), float) else str(getattr(a, key))
    options["torch"] = torch_version
    options["gradsync"] = f"{gradsync_version()} {git_commit()}"
    h = 0xcbf29ce484222325
    for byte in json.dumps(options, separators=(",", ":"), sort_keys=True).encode():
        h = ((h ^ byte) * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
    return options, f"fnv1a64:{h:016x}"


def gradsync_version():
    try:
        with open(os.path.join(ROOT, "CMakeLists.txt")) as f:
            for line in f:
                if "project(gradsync" in line and "VERSION" in line:
                    return line.split("VERSION", 1)[1].split()[0].rstrip(")")
    except OSError:
        pass
    return "unknown"


def git_commit():
    try:
        head = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short=12", "HEAD"], capture_output=True,
                              text=True, timeout=10)
        if head.returncode != 0:
            return "unknown"
        dirty = subprocess.run(["git", "-C", ROOT, "status", "--porcelain", "--untracked-files=no"],
                               capture_output=True, text=True, timeout=10).stdout.strip()
        return head.stdout.strip() + ("-dirty" if dirty else "")
    except (OSError, subprocess.TimeoutExpired):
        return "unknown"


def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return "unknown"


def record_of(a, summary, torch, argv, config, digest):
    host = socket.gethostname()
    results = {k: v for k, v in summary.items() if k not in ("nonfinite", "threads")}
    cuda = torch.cuda.is_available()
    record = {
        "schema": "gradsync.result", "schema_version": 1, "kind": "train",
        "strategy": a.strategy,
        "strategy_options": {"bucket_cap_mb": a.bucket_cap_mb, "backend": a.backend,
                             "broadcast_buffers": True, "gradient_as_bucket_view": False,
                             "timeout_s": a.timeout},
        "external": "pytorch-ddp",
        "model": a.model, "compute": a.compute,
        "precision": "fp32" if a.compute == "cuda" else None,
        "gpu": torch.cuda.get_device_name(0) if a.compute == "cuda" else None,
        "device_profile": None,
        "batch_size": a.batch_size, "workers": a.workers, "ranks": a.workers,
        "sync": {"fusion_mb": a.bucket_cap_mb, "overlap": True},
        "sgd": {"base_lr": a.lr, "momentum": a.momentum, "weight_decay": a.weight_decay,
                "warmup_steps": a.warmup_steps},
        "schedule": {"warmup_batches": a.num_warmup_batches, "batches_per_iter": a.num_batches_per_iter,
                     "iters": a.num_iters},
        "time_scale": 1,
        "results": results,
        "straggler": None,
        "correct": False if "nonfinite" in summary else summary["parameters_identical"],
        "disturbed": None,
        "context": {
            "timestamp": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
            "hosts": [host], "hostnames": [host] * a.workers, "cpu_model": cpu_model(),
            "mpi_library": "", "zeromq_version": "",
            "cuda_version": torch.version.cuda or "",
            "nccl_version": ".".join(map(str, torch.cuda.nccl.version())) if cuda and a.backend == "nccl" else "",
            "visible_gpus": torch.cuda.device_count() if cuda else 0,
            "gradsync_version": gradsync_version(), "git_commit": git_commit(),
            "command_line": " ".join(shlex.quote(w) for w in argv),
            "config": config, "config_digest": digest,
            "torch_version": torch.__version__, "ddp_backend": a.backend,
            "compute_threads": summary["threads"],
        },
    }
    if "nonfinite" in summary:
        record["nonfinite"] = summary["nonfinite"]
    return record


def append_record(path, record):
    """One write on an O_APPEND file, as gradsync appends (result_file.h)."""
    line = (json.dumps(record, separators=(",", ":")) + "\n").encode()
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        if os.fstat(fd).st_size > 0:
            with open(path, "rb") as f:
                f.seek(-1, os.SEEK_END)
                if f.read(1) != b"\n":
                    line = b"\n" + line
        os.write(fd, line)
    finally:
        os.close(fd)


def print_summary(a, r):
    print(f"Img/sec per worker: {r['img_sec_mean']:.1f} +-{r['img_sec_conf']:.1f}")
    print(f"Total img/sec on {a.workers} worker(s): {r['img_sec_mean'] * a.workers:.1f} "
          f"+-{r['img_sec_conf'] * a.workers:.1f}")
    print(f"Step time (slowest worker, {r['timed_steps']} steps): mean {r['step_mean_s']:.4f} s, "
          f"median {r['step_median_s']:.4f} s, p90 {r['step_p90_s']:.4f} s, p99 {r['step_p99_s']:.4f} s")
    print(f"Per step: compute {r['compute_s']:.4f} s, allreduce {r['allreduce_s']:.4f} s, exposed "
          f"communication {r['exposed_comm_s']:.4f} s ({100 * r['exposed_comm_share']:.1f}% of the step)")
    print(f"Gradients: {r['gradient_bytes'] / 1048576:.1f} MiB in {r['buckets_per_step']} bucket(s) per step")
    print(f"Loss: {r['first_loss']:.4f} at the first step, {r['last_loss']:.4f} at the last")
    print("Parameters identical on all workers: " +
          ("yes" if r["parameters_identical"] else f"NO ({r['mismatch']})"), flush=True)


# --- the launcher --------------------------------------------------------


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def die_with_parent():
    """A worker ends when the launcher does (Linux's PR_SET_PDEATHSIG), so that a launcher
    that is killed, or stopped by a sweep, leaves no worker training on its own."""
    try:
        import ctypes
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


def worker_main(rank, a, port, results, errors):
    die_with_parent()
    for stop in (signal.SIGINT, signal.SIGTERM):
        signal.signal(stop, signal.SIG_DFL)
    try:
        train_worker(rank, a, port, results)
    except UsageError as e:
        errors.put((rank, USAGE_STATUS, str(e)))
        sys.exit(USAGE_STATUS)
    except BaseException as e:  # noqa: BLE001 - one line, whatever it was
        errors.put((rank, 1, f"rank {rank}: {one_line(e)}"))
        sys.exit(1)


def run(a, argv, torch):
    import multiprocessing
    import queue
    # Fork on the CPU (the parent has run no torch op, so no thread pool is copied);
    # CUDA needs fresh processes.
    ctx = multiprocessing.get_context("spawn" if a.backend == "nccl" else "fork")
    results, errors = ctx.Queue(), ctx.Queue()
    port = free_port()
    os.environ.setdefault("GLOO_SOCKET_IFNAME", "lo")  # loopback only
    procs = [ctx.Process(target=worker_main, args=(r, a, port, results, errors), daemon=True)
             for r in range(a.workers)]
    # A stop (Ctrl-C, a sweep stopped, scancel) ends the workers too, then this process
    # with 128 + the signal, as a shell reports it.
    def stop(signum, frame):
        for p in procs:
            if p.is_alive():
                p.kill()
        fail(f"stopped by signal {signum}", 128 + signum)
    for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(signum, stop)
    for p in procs:
        p.start()
    summary, failure = None, None
    while True:
        try:
            failure = errors.get(timeout=0.2)
            break
        except queue.Empty:
            pass
        if summary is None:
            try:
                summary = results.get_nowait()
            except queue.Empty:
                pass
        if all(not p.is_alive() for p in procs):
            break
        dead = [p for p in procs if not p.is_alive() and p.exitcode not in (0, None)]
        if dead:  # a worker ended without saying why (a signal, the OOM killer)
            time.sleep(0.5)
            if errors.empty():
                failure = (procs.index(dead[0]), 1,
                           f"rank {procs.index(dead[0])}: worker exited with status {dead[0].exitcode}")
            break
    if failure is None and not errors.empty():
        failure = errors.get()
    if failure is not None:
        for p in procs:
            if p.is_alive():
                p.terminate()
        for p in procs:
            p.join(5)
            if p.is_alive():
                p.kill()
        fail(failure[2], failure[1])
    for p in procs:
        p.join()
    if summary is None:
        try:
            summary = results.get(timeout=5)
        except queue.Empty:
            fail("the workers ended without a result", 1)
    return summary


def main(argv):
    python_with_torch()
    try:
        a = parse_args(argv[1:])
        torch = import_torch()
        if a.list_parameters:
            print(json.dumps({"model": a.model, "gradients": parameter_list(build_model(a.model))}))
            return 0
        config, digest = config_of(a, torch.__version__)
        if a.print_config_digest:
            print(digest)
            return 0
        import torch.distributed as dist
        if a.backend == "gloo" and not dist.is_gloo_available():
            raise UsageError(f"this PyTorch ({torch.__version__}) was built without Gloo")
        if a.backend == "nccl":
            if not (torch.cuda.is_available() and dist.is_nccl_available()):
                raise UsageError("--compute cuda: no GPU visible to PyTorch, or no NCCL in this build")
            if torch.cuda.device_count() < a.workers:
                raise UsageError(f"--compute cuda: {a.workers} workers need as many GPUs "
                                 f"({torch.cuda.device_count()} visible)")
        if a.out:
            try:
                open(a.out, "a").close()
            except OSError as e:
                raise UsageError(f"--out {a.out}: cannot append ({e.strerror})") from None
        if a.model != "small-cnn":  # torchvision present, before any worker starts (no torch op
            try:                     # in this process: the workers are forked from it)
                import torchvision  # noqa: F401
            except ImportError as e:
                raise UsageError(f"--model {a.model} is torchvision's: {sys.executable} has no "
                                 f"torchvision ({e}); scripts/install-deps.sh peers installs it") from None
    except UsageError as e:
        fail(str(e), USAGE_STATUS)
    print(f"Model: {a.model}\nCompute: {a.compute} (PyTorch {torch.__version__}, "
          f"{worker_threads(a.workers)} thread(s) per worker)\nBatch size: {a.batch_size} per worker\n"
          f"Strategy: {a.strategy} (DistributedDataParallel over {a.backend}), bucket_cap_mb "
          f"{a.bucket_cap_mb:g}, overlap on\nNumber of workers: {a.workers}\nRunning...", flush=True)
    summary = run(a, argv, torch)
    record = record_of(a, summary, torch, argv, config, digest)
    print_summary(a, record["results"])
    if "nonfinite" in summary:
        print(f"Not finite, the run ended (the record says correct: false): {summary['nonfinite']}")
    if a.out:
        append_record(a.out, record)
        print(f"Appended the record to {a.out}")
    return 0 if record["correct"] is not False else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))

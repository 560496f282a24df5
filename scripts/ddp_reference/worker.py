"""One DDP worker: it trains the model as gradsync's `train` does and measures each
step as gradsync defines it (compute, exposed communication, allreduce), then the
run's results are reduced over the workers as gradsync's summarize() does."""
import datetime
import hashlib
import math
import time

from .models import MODELS, build_model
from .synthetic_data import SyntheticData
from .torch_env import import_torch, worker_threads


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

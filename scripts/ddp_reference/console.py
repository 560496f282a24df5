"""What a run prints: its workload before it starts, its results after, as
gradsync's `train` prints them."""
from .torch_env import worker_threads


def print_header(a, torch):
    print(f"Model: {a.model}\nCompute: {a.compute} (PyTorch {torch.__version__}, "
          f"{worker_threads(a.workers)} thread(s) per worker)\nBatch size: {a.batch_size} per worker\n"
          f"Strategy: {a.strategy} (DistributedDataParallel over {a.backend}), bucket_cap_mb "
          f"{a.bucket_cap_mb:g}, overlap on\nNumber of workers: {a.workers}\nRunning...", flush=True)


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

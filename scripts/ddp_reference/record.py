"""The run's gradsync train record (results/README.md): its effective configuration
and digest, the context gradsync's own records carry, and the append."""
import datetime
import json
import os
import shlex
import socket
import subprocess

from . import ROOT


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
    text = json.dumps(options, separators=(",", ":"), sort_keys=True)
    return options, f"fnv1a64:{fnv1a64(text.encode()):016x}"


def fnv1a64(data):
    """FNV-1a, 64 bits, of the bytes data."""
    h = 0xcbf29ce484222325
    for byte in data:
        h = ((h ^ byte) * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
    return h


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

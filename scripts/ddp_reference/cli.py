"""The DDP reference's main: the checks a run needs before any worker starts
(bad input is one line and exit status 2), then the run and its record."""
import json
import sys

from .arguments import parse_args
from .console import print_header, print_summary
from .errors import USAGE_STATUS, UsageError, fail
from .models import build_model, parameter_list
from .processes import run
from .record import append_record, config_of, record_of
from .torch_env import import_torch, python_with_torch


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
        check_can_run(a, torch)
    except UsageError as e:
        fail(str(e), USAGE_STATUS)
    print_header(a, torch)
    summary = run(a)
    record = record_of(a, summary, torch, argv, config, digest)
    print_summary(a, record["results"])
    if "nonfinite" in summary:
        print(f"Not finite, the run ended (the record says correct: false): {summary['nonfinite']}")
    if a.out:
        append_record(a.out, record)
        print(f"Appended the record to {a.out}")
    return 0 if record["correct"] is not False else 1


def check_can_run(a, torch):
    """What a run needs that its options do not say: the backend in this PyTorch, the
    GPUs, a results file it can append to, torchvision for its models."""
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

"""Finding a Python with PyTorch, and the compute threads a worker takes."""
import os
import sys

from . import LAUNCHER
from .errors import UsageError


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
            os.execv(py, [py, LAUNCHER] + sys.argv[1:])


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


def worker_threads(workers):
    """One compute thread count per worker: $OPENBLAS_NUM_THREADS when set, else the
    cores shared among the workers."""
    chosen = os.environ.get("OPENBLAS_NUM_THREADS")
    if chosen and chosen.isdigit() and int(chosen) > 0:
        return int(chosen)
    return max(1, (os.cpu_count() or 1) // workers)

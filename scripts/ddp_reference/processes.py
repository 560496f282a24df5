"""The launcher: one worker process each (forked on the CPU, spawned for CUDA),
joined over loopback; the first worker's failure, a worker's death or a stop ends
them all with one line."""
import os
import queue
import signal
import socket
import sys
import time

from .errors import USAGE_STATUS, UsageError, fail, one_line
from .worker import train_worker


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


def run(a):
    """Starts the workers and returns rank 0's summary; a failure ends them all and
    this process with the failure's line and status."""
    import multiprocessing
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
    summary, failure = watch(procs, results, errors)
    if failure is not None:
        end_all(procs)
        fail(failure[2], failure[1])
    for p in procs:
        p.join()
    if summary is None:
        try:
            summary = results.get(timeout=5)
        except queue.Empty:
            fail("the workers ended without a result", 1)
    return summary


def watch(procs, results, errors):
    """Waits until every worker has ended or one failed: (rank 0's summary or None,
    the first failure as (rank, status, line) or None)."""
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
    return summary, failure


def end_all(procs):
    """Ends the workers still running: asked first, killed after 5 s."""
    for p in procs:
        if p.is_alive():
            p.terminate()
    for p in procs:
        p.join(5)
        if p.is_alive():
            p.kill()

"""One run: its job started, its fault dealt at the drawn moment, its verdict,
and whatever it made (the job, a stopped rank, a mount, the work directory)
taken down whatever happens."""
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

from . import LAUNCHER
from .host_faults import fill_shm, release, signal_launcher, starve
from .job import header_seen, launch
from .judge import judge
from .model_inputs import judge_bad_file
from .plan import NOT_A_JOB
from .procfs import job_left, rank_pids, wait_for
from .slow_links import throttle
from .writers import run_writers


def run_one(run, gradsync):
    work = tempfile.mkdtemp(prefix=f"gradsync-fault-{run.index}-")
    if run.kind in NOT_A_JOB:
        try:
            verdict = (judge_bad_file if run.kind == "model" else run_writers)(run, gradsync, work)
            verdict["describe"] = run.describe()
            return verdict
        finally:
            kill_left(work)
            shutil.rmtree(work, ignore_errors=True)
    disk = os.path.join(work, "disk")
    mounted = False
    stopped = []
    cgroups = []
    try:
        out = os.path.join(work, "results.jsonl")
        before = b""
        extra = {}
        if run.kind == "disk":
            os.mkdir(disk)
            subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", disk], check=True)
            mounted = True
            out, before = os.path.join(disk, "results.jsonl"), records_before()
            open(out, "wb").write(before)
            if run.when == "before":
                fill(disk)
        proc = launch(run, work, gradsync, out)
        launched_at = time.monotonic()
        ranks = wait_for_moment(run, proc, work, extra)
        fault_at = deal_fault(run, ranks, launched_at, disk, extra, stopped, cgroups)
        verdict = judge(run, proc, work, out, fault_at, before, extra)
        verdict["describe"] = run.describe()
        if not verdict["pass"]:
            verdict["stderr"] = open(os.path.join(work, "err")).read()[-3000:]
        return verdict
    finally:
        for pid in stopped:
            try:
                os.kill(pid, signal.SIGCONT)
            except OSError:
                pass
        kill_left(work)
        if mounted:
            subprocess.run(["umount", "-l", disk], check=False)
        for cgroup in cgroups:
            release(cgroup)
        shutil.rmtree(work, ignore_errors=True)


def kill_left(work):
    """Kills what is left of the run's processes (its work directory in their
    command line)."""
    for pid in job_left(work):
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass


def records_before():
    """Records written before, ending on a page boundary: tmpfs has no slack left
    in the file's last page for the new record to slip into."""
    before = b"".join(json.dumps({"earlier": i, "correct": True, "pad": "x" * 4000}).encode()
                      + b"\n" for i in range(2))
    pad = 8192 - len(before) - len(json.dumps({"earlier": 2, "pad": ""})) - 1
    before += json.dumps({"earlier": 2, "pad": "x" * pad}).encode() + b"\n"
    assert len(before) == 8192
    return before


def fill(disk):
    """Fills the small file system until it is full."""
    try:
        with open(os.path.join(disk, "filler"), "wb") as f:
            while True:
                f.write(b"\0" * 65536)
                f.flush()
    except OSError:  # full: what this is for
        pass


def wait_for_moment(run, proc, work, extra):
    """Waits for the run's moment and returns {rank: pid} of its ranks then: past
    MPI_Init (rank 0 has printed) for setup, measuring for start, and some time
    later for middle; none for launch and before."""
    if run.when == "launch":
        return {}  # the wrapper stops the victim itself
    if run.when == "setup":
        # Past MPI_Init (rank 0 has printed), before the strategy is set up.
        wait_for(lambda: os.path.getsize(os.path.join(work, "out")) > 0 or proc.poll() is not None, 60)
        return rank_pids(work)
    if not wait_for(lambda: header_seen(work, run.train) or proc.poll() is not None, 60):
        extra["note"] = "never started measuring"
    if run.when == "middle":
        time.sleep(run.middle_s)
    return rank_pids(work)


def deal_fault(run, ranks, launched_at, disk, extra, stopped, cgroups):
    """Deals the run's fault and returns when (time.monotonic()), or None when it
    could not be dealt (extra["note"] says why)."""
    if run.when == "launch":
        return launched_at  # the wrapper stops the victim itself
    if run.kind in ("input", "shm", "signal"):
        return deal_host_fault(run, ranks, launched_at, extra, cgroups)
    if run.kind in ("stop", "kill"):
        pid = (ranks or {}).get(run.victim)
        if not pid:
            extra["note"] = "the rank had already ended"
            return None
        os.kill(pid, signal.SIGSTOP if run.kind == "stop" else signal.SIGKILL)
        fault_at = time.monotonic()
        if run.kind == "stop":
            stopped.append(pid)
        return fault_at
    if run.kind == "slow":
        if ranks and throttle(ranks):
            return time.monotonic()
        extra["note"] = "the launcher's ports were not found: nothing throttled"
        return None
    if run.kind == "option":
        return launched_at  # the bad option is there from the start
    if run.kind == "disk":
        if run.when == "middle":
            fill(disk)
        return time.monotonic()
    # forged
    pid = next(iter((ranks or {}).values()), None)
    if pid:
        forger = subprocess.run(["nsenter", "-t", str(pid), "-n", sys.executable, LAUNCHER,
                                 "--forge", str(run.index)], capture_output=True, text=True)
        extra["forged_messages"] = int(forger.stdout.strip() or 0)
        if forger.returncode != 0:
            extra["note"] = "the forger failed: " + forger.stderr.strip()[-300:]
    return time.monotonic()


def deal_host_fault(run, ranks, launched_at, extra, cgroups):
    """The input stage (slow or too many threads from the start, or one rank's
    starved from now on), /dev/shm (small from the start, or filled now), or a
    signal to the launcher; as deal_fault returns."""
    if run.when in ("setup", "before"):
        return launched_at  # the fault is there from the start
    pid = (ranks or {}).get(run.victim if run.kind == "input" else min(ranks or {0: 0}))
    if not pid:
        extra["note"] = "the job had already ended"
        return None
    if run.kind == "input":
        cgroup = starve(pid, f"gradsync-campaign-{os.getpid()}-{run.index}")
        if cgroup:
            cgroups.append(cgroup)
            return time.monotonic()
        extra["note"] = "no cpu cgroup could be made: nothing starved"
    elif run.kind == "shm":
        if fill_shm(pid):
            return time.monotonic()
        extra["note"] = "the job's /dev/shm could not be filled"
    elif signal_launcher(ranks, run.variant):
        return time.monotonic()
    else:
        extra["note"] = "the launcher was not found: no signal sent"
    return None

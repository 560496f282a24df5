"""Faults dealt from the host to a running job: one rank starved of CPU (its
input stage falls behind), the job's own /dev/shm filled, a signal to the
launcher. Each says what it made, for run_one's cleanup to take down."""
import os
import signal
import subprocess

from .procfs import parent_of, wait_for

# The cpu controller: cgroup v1's hierarchy, else cgroup v2's root.
CGROUP_V1 = "/sys/fs/cgroup/cpu"
CGROUP_V2 = "/sys/fs/cgroup"


def starve(pid, name):
    """Moves process pid (all its threads) into a new cpu cgroup `name` allowed
    0.5% of one CPU (1 ms each 200 ms). Returns the cgroup's directory, or None
    when no cpu controller can be written here."""
    v1 = os.path.isdir(CGROUP_V1)
    path = os.path.join(CGROUP_V1 if v1 else CGROUP_V2, name)
    try:
        os.mkdir(path)
    except OSError:
        return None
    try:
        if v1:
            write(path, "cpu.cfs_period_us", "200000")
            write(path, "cpu.cfs_quota_us", "1000")
        else:
            write(path, "cpu.max", "1000 200000")
        write(path, "cgroup.procs", str(pid))
    except OSError:
        release(path)
        return None
    return path


def release(path):
    """Takes the cgroup down: what is left in it goes back to the root first;
    a process still exiting keeps it busy a moment (up to 5 s)."""
    root = os.path.dirname(path)

    def removed():
        try:
            with open(os.path.join(path, "cgroup.procs")) as f:
                for pid in f.read().split():
                    try:
                        write(root, "cgroup.procs", pid)
                    except OSError:  # gone meanwhile
                        pass
            os.rmdir(path)
        except FileNotFoundError:
            return True
        except OSError:
            return False
        return True

    wait_for(removed, 5.0, step_s=0.1)


def write(directory, name, value):
    with open(os.path.join(directory, name), "w") as f:
        f.write(value)


def fill_shm(pid):
    """Fills /dev/shm as process pid sees it (the job's own tmpfs, in its mount
    namespace) until it is full; the file goes with the namespace. Returns
    whether it ran."""
    done = subprocess.run(["nsenter", "-t", str(pid), "-m", "dd", "if=/dev/zero",
                           "of=/dev/shm/gradsync-campaign-filler", "bs=64K"],
                          capture_output=True, text=True)
    return "No space left on device" in done.stderr


def signal_launcher(ranks, name):
    """Sends the signal `name` (SIGTERM, SIGINT) to the job's launcher, as a
    user's kill or Ctrl-C would. Returns whether it was sent."""
    launcher = parent_of(next(iter(ranks.values()))) if ranks else None
    if not launcher or launcher <= 1:
        return False
    try:
        os.kill(launcher, getattr(signal, name))
    except OSError:
        return False
    return True

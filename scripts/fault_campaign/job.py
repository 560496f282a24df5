"""Starting one run's job under scripts/mpirun.sh, its output in the run's work
directory (whose path in every rank's command line marks the job's processes)."""
import os
import subprocess

from . import REPO
from .plan import KINDS, command, with_option

OLD_KINDS = KINDS[:6]
NEW_KINDS_CAP_S = 30
# The job's own /dev/shm: a tmpfs in a mount namespace of its own (unshare -m
# makes its mounts private), gone with the job's last process; 24 MiB, or 64
# MiB that the campaign fills while the job runs.
SHM_SIZE = {"before": "24M", "start": "64M"}


def launch(run, work, gradsync, out):
    """Starts the job (the work directory, in `out`, marks its processes)."""
    env = dict(os.environ)
    if run.kind == "slow":
        env["OMPI_MCA_btl"] = "self,tcp"
    stdout = open(os.path.join(work, "out"), "w")
    stderr = open(os.path.join(work, "err"), "w")
    # The new kinds' jobs are cut short sooner: one that the fault does not
    # end has failed long before (mpirun gets SIGTERM, then SIGKILL 3 s later).
    cap = ["timeout", "120"] if run.kind in OLD_KINDS else ["timeout", "-k", "3", str(NEW_KINDS_CAP_S)]
    return subprocess.Popen(cap + job_argv(run, gradsync, out), stdout=stdout,
                            stderr=stderr, env=env, start_new_session=True)


def job_argv(run, gradsync, out):
    """The job's mpirun command line: the same command on every rank but, for a bad
    option, the victim's (an MPMD launch); for a stop at launch, each rank's command
    behind a shell that stops the victim before it runs gradsync."""
    finite = run.kind in ("forged", "disk")
    cmd = command(run, out, gradsync, finite)
    if run.kind == "slow" and run.strategy == "ps-zmq":
        # As MPI's data goes over TCP (launch), the parameter server's goes
        # over ZeroMQ, not shared memory: on the throttled links, so that
        # they move nothing (through shared memory a job only slows down).
        cmd = with_option(cmd, "--ps-shm", "off")
    # mpirun's own notice names a killed rank; --quiet would silence it.
    mpirun = [os.path.join(REPO, "scripts", "mpirun.sh")] + ([] if run.kind == "kill" else ["--quiet"])
    if run.kind == "option":
        ranks = []
        if run.victim > 0:
            ranks += ["-np", str(run.victim)] + cmd + [":"]
        ranks += ["-np", "1"] + with_option(cmd, *run.bad)
        if run.victim < run.ranks - 1:
            ranks += [":", "-np", str(run.ranks - run.victim - 1)] + cmd
        return mpirun + ranks
    if run.when == "launch":  # the victim is stopped before it runs gradsync
        cmd = ["sh", "-c", f'[ "$OMPI_COMM_WORLD_RANK" = {run.victim} ] && kill -STOP $$; '
               'exec "$@"', "sh"] + cmd
    if run.kind == "shm":
        mpirun = ["unshare", "-m", "sh", "-c", f"mount -t tmpfs -o size={SHM_SIZE[run.when]} tmpfs "
                  '/dev/shm && exec "$@"', "sh"] + mpirun
    return mpirun + ["-np", str(run.ranks)] + cmd


def header_seen(work, train):
    text = open(os.path.join(work, "out")).read()
    return ("Running benchmark" in text) if train else ("# strategy" in text)

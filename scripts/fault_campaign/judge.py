"""One run's verdict: what a user must be able to count on when a fault hits
(the columns of the campaign's table; this package's __init__ says each)."""
import json
import os
import re
import signal
import time

from .procfs import job_left, wait_for

ERROR_PREFIX = "gradsync: error: "


def judge(run, proc, work, out, fault_at, before, extra):
    """The verdict of one run, as a dict."""
    status = proc.wait()
    ended = time.monotonic()
    err = open(os.path.join(work, "err")).read()
    lines = [l for l in err.splitlines() if l.startswith(ERROR_PREFIX)]
    harness = run.when in ("launch", "setup") or run.strategy == "none"
    # A rank starved of CPU (0.5% of one core) also ends at that rate once
    # its peers have named it: mpirun waits for it, so the job's end gets the
    # harness's allowance too (its peers' line still comes at the timeout).
    starved = run.kind == "input" and run.variant == "starved"
    bound = run.timeout + (3 if harness or starved else 0) + 5
    elapsed = ended - fault_at if fault_at else None
    v = {"run": run.index, "kind": run.kind, "when": run.when, "strategy": run.strategy,
         "ranks": run.ranks, "subcommand": "train" if run.train else "collectives",
         "exit": status, "errors": lines, "elapsed_s": round(elapsed, 2) if elapsed else None}
    v.update(extra)
    if run.kind in ("stop", "kill", "option") or (run.kind == "input" and run.variant == "starved"):
        v["rank"] = run.victim
    if run.variant and run.kind != "model":
        v["variant"] = run.variant
    if run.bad:
        v["option"] = " ".join(run.bad)
    records, lost, torn = read_results(out, before)
    if lost:
        v["lost"] = True
    v["not_torn"] = not torn
    refused = [r.get("ps_rejected") for r in records if "ps_rejected" in r]
    if refused:
        v["ps_rejected"] = refused
    finished = run.kind == "forged"
    v["nothing_wrong"] = not v.get("lost") and all(
        finished or r.get("correct") is not True for r in records)
    if run.kind == "signal":  # a job ended by a signal records nothing, not part of a run
        v["nothing_wrong"] = v["nothing_wrong"] and not records
    if run.kind == "forged":  # a run that forged nothing tested nothing: it fails
        v["in_time"] = status == 0 and extra.get("forged_messages", 0) > 0
        v["one_line"] = forged_refused(run, status, lines, records, refused)
    else:
        v["in_time"] = status not in (0, 124) and elapsed is not None and elapsed <= bound
        if run.kind == "shm":  # the reserve's own failure: exit 1, not a wait's
            v["in_time"] = v["in_time"] and status == 1
        v["one_line"] = one_true_line(run, lines, err)
    left = wait_for(lambda: not job_left(work) or None, 3.0)
    v["none_left"] = bool(left)
    if not left:
        for pid in job_left(work):
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
    v["pass"] = all(v[k] for k in ("in_time", "one_line", "nothing_wrong", "not_torn", "none_left"))
    return v


def read_results(out, before):
    """The results file: (the records after `before`, whether `before` is no longer
    its start, whether a line is not whole JSON or the file does not end a line)."""
    records, lost, torn = [], False, False
    if os.path.exists(out):
        with open(out, "rb") as f:
            content = f.read()
        if before and not content.startswith(before):
            lost = True
        for line in content[len(before):].decode(errors="replace").splitlines():
            try:
                records.append(json.loads(line))
            except ValueError:
                torn = True
        if content and not content.endswith(b"\n"):
            torn = True
    return records, lost, torn


def forged_refused(run, status, lines, records, refused):
    """Forged traffic: the job ran to its end with no error line, every result
    checked and correct; under ps-zmq the shards counted the messages they refused."""
    ok = status == 0 and not lines and bool(records) and all(r.get("correct") is True for r in records)
    if run.strategy == "ps-zmq":
        ok = ok and sum(r.get("total", 0) for r in refused) > 0
    return ok


def one_true_line(run, lines, err):
    """Whether the job's error lines (and, for kill, mpirun's notice in err) say
    what the fault was, as the campaign's "one line" column requires."""
    if run.kind == "kill":
        named = re.search(rf"process rank {run.victim} with PID \d+ .*signal 9", err)
        strangers = [l for l in lines if f"rank {run.victim}" not in l]
        return bool(named) and not strangers
    if run.kind == "stop" and run.when == "launch":  # no rank can be named before MPI
        return len(lines) == 1 and "MPI_Init did not complete" in lines[0]
    if run.kind == "stop":
        return len(lines) == 1 and bool(
            re.search(rf"is rank {run.victim}( \(server shard \d+\))? alive\?", lines[0]))
    if run.kind == "option":
        return len(lines) == 1 and bool(re.search(rf"\brank {run.victim}\b", lines[0]))
    if run.kind == "disk":
        return len(lines) == 1 and "No space left on device" in lines[0]
    if run.kind in ("input", "shm", "signal"):
        return len(lines) == 1 and names_the_fault(run, lines[0])
    return len(lines) == 1  # slow: every rank waits; one line, whichever it names


def names_the_fault(run, line):
    """Whether the one error line names what the new kinds' fault was: the input
    stage (and the starved rank) or --input-threads; the shared memory that could
    not be reserved; the signal that ended the job."""
    if run.kind == "input" and run.variant == "threads":
        return "--input-threads" in line
    if run.kind == "input" and run.variant == "starved":
        # The whole rank is starved (its loader, compute and waits alike): its
        # peers see a rank that does not answer, as under a stop, and the line
        # must name that rank, by its input stage or as the one not answering.
        named = re.search(rf"\brank {run.victim}\b", line)
        cause = re.search(r"\binput\b", line) or re.search(rf"is rank {run.victim}( \(.*\))? alive\?", line)
        return bool(named) and bool(cause)
    if run.kind == "input":
        return bool(re.search(r"\binput\b", line))
    if run.kind == "shm":
        return bool(re.search(r"cannot reserve .*No space left on device", line))
    number = int(getattr(signal, run.variant))
    return run.variant in line or f"signal {number}" in line

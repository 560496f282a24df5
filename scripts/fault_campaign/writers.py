"""Two writers as the fault: two tiny sweeps started together into one results
folder. One must run; the other must refuse in one line that names the
holder (the first sweep's process), exit non-zero and write no record; the
first's records and logs must be whole and its own."""
import os
import signal
import subprocess
import time

from .judge import ERROR_PREFIX, read_results
from .procfs import job_left, wait_for

SWEEP_CAP_S = 60


def sweep_argv(run, gradsync, results):
    """A tiny sweep: one strategy, 1 and run.ranks workers, 5 iterations."""
    return [gradsync, "sweep", "--workers", f"1,{run.ranks}", "--strategy", run.strategy,
            "--models", "small-cnn:cpu", "--out", results,
            "--train-args", f"--batch-size 4 --num-iters 5 --timeout {run.timeout:g}"]


def run_writers(run, gradsync, work):
    """Starts the two sweeps, waits for both (each cut at SWEEP_CAP_S), and judges."""
    results = os.path.join(work, "results")
    sweeps = []
    for n in (1, 2):
        err = open(os.path.join(work, f"err{n}"), "w")
        sweeps.append(subprocess.Popen(sweep_argv(run, gradsync, results), stdout=subprocess.DEVNULL,
                                       stderr=err, start_new_session=True))
    started = time.monotonic()
    ended = {}
    while len(ended) < 2:
        for n, sweep in enumerate(sweeps):
            if n not in ended and sweep.poll() is not None:
                ended[n] = time.monotonic() - started
        if time.monotonic() - started > SWEEP_CAP_S:
            for n, sweep in enumerate(sweeps):
                if n not in ended:
                    os.killpg(sweep.pid, signal.SIGKILL)
                    ended[n] = None
        time.sleep(0.05)
    errs = []
    for n in (1, 2):
        with open(os.path.join(work, f"err{n}")) as f:
            errs.append(f.read())
    return judge_writers(run, sweeps, errs, ended, results)


def judge_writers(run, sweeps, errs, ended, results):
    statuses = [s.wait() for s in sweeps]
    lines = [[l for l in e.splitlines() if l.startswith(ERROR_PREFIX)] for e in errs]
    ran = [n for n in (0, 1) if statuses[n] == 0]
    v = {"run": run.index, "kind": run.kind, "when": run.when, "strategy": run.strategy,
         "ranks": run.ranks, "subcommand": "sweep", "exit": statuses, "errors": lines[0] + lines[1],
         "elapsed_s": None}
    refused = 1 - ran[0] if len(ran) == 1 else None
    if refused is not None:
        v["elapsed_s"] = round(ended[refused], 2) if ended[refused] is not None else None
        v["refused"] = refused + 1
    v["in_time"] = refused is not None and 0 < statuses[refused] < 128 and \
        v["elapsed_s"] is not None and v["elapsed_s"] <= run.timeout + 5
    v["one_line"] = refused is not None and not lines[1 - refused] and len(lines[refused]) == 1 and \
        str(sweeps[1 - refused].pid) in lines[refused][0]
    configs = 2
    records, torn = [], False
    for name in ("train.jsonl", "sweep.jsonl"):
        got, _, broken = read_results(os.path.join(results, name), b"")
        records.append(got)
        torn = torn or broken
    v["records"] = [len(r) for r in records]
    logs = [r.get("log", "") for r in records[1]]
    whole = [whole_log(path) for path in logs]
    v["nothing_wrong"] = v["records"] == [configs, configs] and len(set(logs)) == configs and all(whole)
    v["not_torn"] = not torn
    marker = os.path.dirname(results)
    left = wait_for(lambda: not job_left(marker) or None, 3.0)
    v["none_left"] = bool(left)
    v["pass"] = all(v[k] for k in ("in_time", "one_line", "nothing_wrong", "not_torn", "none_left"))
    if not v["pass"]:
        v["stderr"] = (errs[0][-1500:] + "\n--- the second sweep:\n" + errs[1][-1500:])
    return v


def whole_log(path):
    """A run's log, whole and its alone: one run's closing lines, once."""
    try:
        with open(path) as f:
            text = f.read()
    except OSError:
        return False
    return text.count("Running benchmark") == 1 and text.count("Total img/sec on") == 1

#!/usr/bin/env python3
"""A fault campaign: a seeded random matrix of multi-rank jobs, each hit by
one fault, each judged on what a user must be able to count on.

  scripts/fault-campaign.py --runs 240 --seed 1 --out campaign.jsonl

Each run draws a strategy (every CPU strategy this build can run, Gloo's
among them when it was built; --strategies narrows it), a number of ranks (2-4) and
a subcommand (collectives; train for some), and takes the next fault kind in
turn, at a time drawn from those the kind has:
  stop    one rank stopped (SIGSTOP) at launch (before it runs gradsync:
          the others wait in MPI_Init's closing fence, which gradsync
          bounds at --timeout + 3 s; the line cannot name the rank), while
          the ranks set up (past MPI_Init), as they start measuring, or in
          the middle;
  kill    one rank killed (SIGKILL), at the same times but launch (a
          process killed before it runs gradsync is mpirun's alone to
          report, and Open MPI 4.1 does not always name its rank);
  slow    every data link of the job throttled to 8 kbit/s (tc htb on
          loopback in the job's network namespace, all TCP but the
          launcher's; every MPI message through TCP: OMPI_MCA_btl=self,tcp),
          as it starts measuring or in the middle: links that move nothing;
  option  one rank given a different or bad option (an MPMD launch);
  disk    the results file on a full file system (a 1 MiB tmpfs, filled
          before the run or while it measures), with records already in it
          (collectives, 150 iterations);
  forged  forged ZeroMQ traffic at every ZeroMQ socket of the job (the
          parameter server's shards, the stall board) while it measures.
A run passes when (the columns of the table):
  in time   the job ended within its timeout + 5 s of the fault (the
            harness's own waits, which bound setup and `none`, take
            --timeout + 3 s), or ran to its end when the fault must not
            end it (forged traffic);
  one line  stop, slow, option, disk: exactly one "gradsync: error:" line,
            naming the stopped rank, the rank with the bad option, or the
            full file ("No space left on device"); for slow, any one line
            (every rank waits, none stopped); kill: mpirun's notice names
            the killed rank and no gradsync line names another; forged:
            none, exit 0, every result checked and correct, and under
            ps-zmq the shards' record counts the messages they refused;
  nothing wrong  no record says "correct": true unless the run finished
            (forged), and the records written before are byte for byte there;
  not torn  every line of the results file is whole JSON;
  none left no process of the job runs 3 s after mpirun returned.
Each run's verdict goes to --out (JSON lines); the table goes to stdout.
Needs root for slow and disk (tc, mount); nsenter, ss and tc from
util-linux and iproute2. Runs one job at a time: about 5 s each on 2 cores.
"""

import argparse
import json
import os
import random
import re
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
STRATEGIES = ["ring-mpi", "tree-mpi", "double-tree-mpi", "halving-doubling-mpi",
              "hierarchical-mpi", "mpi-allreduce", "ps-zmq"]
TRAIN_STRATEGIES = ["none", "ring-mpi", "ps-zmq", "mpi-allreduce"]
GLOO_STRATEGIES = ["gloo-ring", "gloo-bcube", "gloo-ring-chunked", "gloo-halving-doubling"]
KINDS = ["stop", "kill", "slow", "option", "disk", "forged"]
WHEN = {"stop": ["launch", "setup", "start", "middle"], "kill": ["setup", "start", "middle"],
        "slow": ["start", "middle"], "option": ["setup"], "disk": ["before", "middle"],
        "forged": ["start", "middle"]}
BAD_OPTIONS = [("--test-delay-ms", "21"), ("--ring-segment", "3"), ("-b", "4Q"),
               ("--strategy", "nosuch"), ("--timeout", "9")]


def rank_pids(marker):
    """{world rank: pid} of the processes whose command line holds marker."""
    found = {}
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                if marker.encode() not in f.read():
                    continue
            with open(f"/proc/{pid}/environ", "rb") as f:
                env = dict(kv.split(b"=", 1) for kv in f.read().split(b"\0") if b"=" in kv)
        except OSError:
            continue
        rank = env.get(b"OMPI_COMM_WORLD_RANK")
        if rank is not None:
            found[int(rank)] = int(pid)
    return found


def job_left(marker):
    """The pids still running with marker in their command line."""
    left = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit() or int(pid) == os.getpid():
            continue
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                cmd = f.read()
            with open(f"/proc/{pid}/stat") as f:
                state = f.read().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if marker.encode() in cmd and state != "Z":
            left.append(int(pid))
    return left


def wait_for(predicate, limit_s, step_s=0.05):
    deadline = time.monotonic() + limit_s
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(step_s)
    return None


# --- forged ZeroMQ traffic: ZMTP 3.0 spoken by hand (NULL security) ----------

def zmtp_frame(body, more=False, command=False):
    flags = (1 if more else 0) | (4 if command else 0)
    if len(body) > 255:
        return bytes([flags | 2]) + struct.pack(">Q", len(body)) + body
    return bytes([flags, len(body)]) + body


def zmtp_connect(connect, socket_type):
    """A socket that has done ZMTP's greeting and READY as `socket_type`."""
    s = connect()
    s.settimeout(1.0)
    greeting = b"\xff" + b"\0" * 8 + b"\x7f" + b"\x03\x00" + b"NULL".ljust(20, b"\0") + b"\0" * 32
    s.sendall(greeting)
    prop = b"\x0bSocket-Type" + struct.pack(">I", len(socket_type)) + socket_type
    s.sendall(zmtp_frame(b"\x05READY" + prop, command=True))
    # The peer's greeting (64 bytes) and READY: the handshake is done, and
    # what follows is read as messages, not as a broken greeting.
    received = b""
    while len(received) < 66 or len(received) < 66 + received[65]:
        chunk = s.recv(512)
        if not chunk:
            raise OSError("closed during the handshake")
        received += chunk
    return s


def zmtp_close(s):
    """Closes after the peer has read what was sent (an unread close is a reset)."""
    time.sleep(0.02)
    s.shutdown(socket.SHUT_WR)
    s.close()


def forge(duration_s, rng):
    """Sends forged messages to every ZeroMQ socket of the job in this
    process's network namespace (nsenter put it in the job's), for duration_s: PS headers of random bytes and of
    a plausible shape with a wrong step, to TCP listeners on 127.0.0.1; stall
    reports without the job's token, to the abstract Unix sockets."""
    tcp_ports = set()
    for line in open("/proc/net/tcp").read().splitlines()[1:]:
        fields = line.split()
        local, state = fields[1], fields[3]
        address, port = local.split(":")
        if state == "0A" and address == "0100007F":  # LISTEN on 127.0.0.1
            tcp_ports.add(int(port, 16))
    boards = [line.split()[-1][1:] for line in open("/proc/net/unix").read().splitlines()[1:]
              if line.split()[-1].startswith("@gradsync-stall-")]
    sent = 0
    deadline = time.monotonic() + duration_s
    while time.monotonic() < deadline:
        for port in tcp_ports:
            try:
                s = zmtp_connect(lambda: socket.create_connection(("127.0.0.1", port), 1.0), b"DEALER")
                header = bytes(rng.getrandbits(8) for _ in range(48))
                s.sendall(zmtp_frame(header, more=True) + zmtp_frame(b"\0" * 64))
                zmtp_close(s)
                sent += 1
            except OSError:
                pass
        for name in boards:
            try:
                def connect_unix(name=name):
                    u = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                    u.connect("\0" + name)
                    return u
                s = zmtp_connect(connect_unix, b"PUSH")
                s.sendall(zmtp_frame(b"gradsync-stall 0123456789abcdef 1 99 0"))
                zmtp_close(s)
                sent += 1
            except OSError:
                pass
        time.sleep(0.05)
    return sent


# --- a slow link ---------------------------------------------------------------

def listening_ports(pid):
    """The TCP ports the process pid listens on (its network namespace's
    /proc/net/tcp entries whose socket inode is one of its descriptors)."""
    inodes = set()
    for fd in os.listdir(f"/proc/{pid}/fd"):
        try:
            target = os.readlink(f"/proc/{pid}/fd/{fd}")
        except OSError:
            continue
        if target.startswith("socket:["):
            inodes.add(target[8:-1])
    ports = set()
    for table in ("tcp", "tcp6"):
        for line in open(f"/proc/{pid}/net/{table}").read().splitlines()[1:]:
            fields = line.split()
            if fields[3] == "0A" and fields[9] in inodes:
                ports.add(int(fields[1].rsplit(":", 1)[1], 16))
    return ports


def throttle(ranks):
    """Every data link of the job at 8 kbit/s: all TCP on loopback in the
    job's network namespace, also the connections opened after the fault
    (a parameter-server shard that binds later), except those to the
    launcher's own ports (mpirun's, whose listeners the ranks connect to),
    so that the job can still be ended. Returns whether the launcher's
    ports were found (else nothing is throttled)."""
    pid = next(iter(ranks.values()))
    try:
        launcher = int(open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()[1])
        ports = listening_ports(launcher)
    except (OSError, ValueError, IndexError):
        return False
    if not ports:
        return False
    tc = ["nsenter", "-t", str(pid), "-n", "tc"]
    steps = [["qdisc", "add", "dev", "lo", "root", "handle", "1:", "htb", "default", "30"],
             ["class", "add", "dev", "lo", "parent", "1:", "classid", "1:10", "htb", "rate", "10gbit"],
             ["class", "add", "dev", "lo", "parent", "1:", "classid", "1:30", "htb", "rate", "8kbit",
              "ceil", "8kbit"]]
    for port in sorted(ports):
        for end in ("dport", "sport"):
            steps.append(["filter", "add", "dev", "lo", "parent", "1:", "protocol", "ip", "prio", "1",
                          "u32", "match", "ip", end, str(port), "0xffff", "flowid", "1:10"])
    for step in steps:
        subprocess.run(tc + step, check=False, capture_output=True)
    return bool(ports)


# --- one run -------------------------------------------------------------------

class Run:
    def __init__(self, index, rng, args):
        self.index = index
        self.kind = KINDS[index % len(KINDS)] if not args.kinds else args.kinds[index % len(args.kinds)]
        self.when = rng.choice(WHEN[self.kind])
        self.train = self.kind in ("stop", "kill") and rng.random() < 0.2
        self.strategy = rng.choice(
            [s for s in TRAIN_STRATEGIES if s in args.strategies] or args.strategies
            if self.train else args.strategies)
        if self.kind == "option":
            self.strategy = rng.choice(["ring-mpi", "tree-mpi", "ps-zmq", "mpi-allreduce"])
        self.ranks = rng.choice([2, 3, 4])
        self.victim = rng.randrange(self.ranks)
        self.bad = rng.choice(BAD_OPTIONS) if self.kind == "option" else None
        self.middle_s = rng.uniform(0.3, 1.5)
        self.timeout = args.timeout

    def describe(self):
        what = "train" if self.train else "collectives"
        text = f"{self.kind} ({self.when}) {what} {self.strategy} x{self.ranks}"
        if self.kind in ("stop", "kill", "option"):
            text += f", rank {self.victim}"
        if self.bad:
            text += f", {self.bad[0]} {self.bad[1]}"
        return text


def command(run, out, gradsync, finite):
    """One rank's command: 150 iterations (about 3 s) when the run must
    finish for the fault to show, else more than any fault lets it reach."""
    iters = "150" if finite else "1000000"
    if run.train:
        args = ["train", "--model", "small-cnn", "--batch-size", "4", "--num-iters", iters, "--out", out]
    else:
        args = ["collectives", "-b", "4K", "-e", "4K", "-n", iters, "-w", "1", "--json", out]
    args += ["--strategy", run.strategy, "--timeout", str(run.timeout), "--test-delay-ms", "20"]
    return [gradsync] + args


def with_option(cmd, flag, value):
    """cmd with flag set to value (replaced when there, else added)."""
    cmd = list(cmd)
    if flag in cmd:
        cmd[cmd.index(flag) + 1] = value
    else:
        cmd += [flag, value]
    return cmd


def launch(run, work, gradsync, out):
    """Starts the job (the work directory, in `out`, marks its processes)."""
    finite = run.kind in ("forged", "disk")
    cmd = command(run, out, gradsync, finite)
    # mpirun's own notice names a killed rank; --quiet would silence it.
    mpirun = [os.path.join(REPO, "scripts", "mpirun.sh")] + ([] if run.kind == "kill" else ["--quiet"])
    if run.kind == "option":
        ranks = []
        if run.victim > 0:
            ranks += ["-np", str(run.victim)] + cmd + [":"]
        ranks += ["-np", "1"] + with_option(cmd, *run.bad)
        if run.victim < run.ranks - 1:
            ranks += [":", "-np", str(run.ranks - run.victim - 1)] + cmd
        argv = mpirun + ranks
    else:
        if run.when == "launch":  # the victim is stopped before it runs gradsync
            cmd = ["sh", "-c", f'[ "$OMPI_COMM_WORLD_RANK" = {run.victim} ] && kill -STOP $$; '
                   'exec "$@"', "sh"] + cmd
        argv = mpirun + ["-np", str(run.ranks)] + cmd
    env = dict(os.environ)
    if run.kind == "slow":
        env["OMPI_MCA_btl"] = "self,tcp"
    stdout = open(os.path.join(work, "out"), "w")
    stderr = open(os.path.join(work, "err"), "w")
    return subprocess.Popen(["timeout", "120"] + argv, stdout=stdout, stderr=stderr, env=env,
                            start_new_session=True)


def header_seen(work, train):
    text = open(os.path.join(work, "out")).read()
    return ("Running benchmark" in text) if train else ("# strategy" in text)


def judge(run, proc, work, out, fault_at, before, extra):
    """The verdict of one run, as a dict."""
    status = proc.wait()
    ended = time.monotonic()
    err = open(os.path.join(work, "err")).read()
    lines = [l for l in err.splitlines() if l.startswith("gradsync: error: ")]
    harness = run.when in ("launch", "setup") or run.strategy == "none"
    bound = run.timeout + (3 if harness else 0) + 5
    elapsed = ended - fault_at if fault_at else None
    v = {"run": run.index, "kind": run.kind, "when": run.when, "strategy": run.strategy,
         "ranks": run.ranks, "subcommand": "train" if run.train else "collectives",
         "exit": status, "errors": lines, "elapsed_s": round(elapsed, 2) if elapsed else None}
    v.update(extra)
    if run.kind in ("stop", "kill", "option"):
        v["rank"] = run.victim
    if run.bad:
        v["option"] = " ".join(run.bad)
    # The results file: whole lines of JSON; the records written before intact.
    records, torn = [], False
    if os.path.exists(out):
        content = open(out, "rb").read()
        if before and not content.startswith(before):
            v["lost"] = True
        for line in content[len(before):].decode(errors="replace").splitlines():
            try:
                records.append(json.loads(line))
            except ValueError:
                torn = True
        if content and not content.endswith(b"\n"):
            torn = True
    v["not_torn"] = not torn
    refused = [r.get("ps_rejected") for r in records if "ps_rejected" in r]
    if refused:
        v["ps_rejected"] = refused
    finished = run.kind == "forged"
    v["nothing_wrong"] = not v.get("lost") and all(
        finished or r.get("correct") is not True for r in records)
    if run.kind == "forged":  # a run that forged nothing tested nothing: it fails
        v["in_time"] = status == 0 and extra.get("forged_messages", 0) > 0
        v["one_line"] = status == 0 and not lines and bool(records) and all(
            r.get("correct") is True for r in records)
        if run.strategy == "ps-zmq":  # the shards refused the forged messages, and counted them
            v["one_line"] = v["one_line"] and sum(r.get("total", 0) for r in refused) > 0
    else:
        v["in_time"] = status not in (0, 124) and elapsed is not None and elapsed <= bound
        if run.kind == "kill":
            named = re.search(rf"process rank {run.victim} with PID \d+ .*signal 9", err)
            strangers = [l for l in lines if f"rank {run.victim}" not in l]
            v["one_line"] = bool(named) and not strangers
        elif run.kind == "stop" and run.when == "launch":  # no rank can be named before MPI
            v["one_line"] = len(lines) == 1 and "MPI_Init did not complete" in lines[0]
        elif run.kind == "stop":
            v["one_line"] = len(lines) == 1 and bool(
                re.search(rf"is rank {run.victim}( \(server shard \d+\))? alive\?", lines[0]))
        elif run.kind == "option":
            v["one_line"] = len(lines) == 1 and bool(re.search(rf"\brank {run.victim}\b", lines[0]))
        elif run.kind == "disk":
            v["one_line"] = len(lines) == 1 and "No space left on device" in lines[0]
        else:  # slow: every rank waits; one line, whichever it names
            v["one_line"] = len(lines) == 1
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


def run_one(run, gradsync):
    work = tempfile.mkdtemp(prefix=f"gradsync-fault-{run.index}-")
    mounted = False
    stopped = []
    try:
        out = os.path.join(work, "results.jsonl")
        before = b""
        extra = {}
        if run.kind == "disk":
            disk = os.path.join(work, "disk")
            os.mkdir(disk)
            subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", disk], check=True)
            mounted = True
            out = os.path.join(disk, "results.jsonl")
            # Records written before, ending on a page boundary: tmpfs has no
            # slack left in the file's last page for the new record to slip into.
            before = b"".join(json.dumps({"earlier": i, "correct": True, "pad": "x" * 4000}).encode()
                              + b"\n" for i in range(2))
            pad = 8192 - len(before) - len(json.dumps({"earlier": 2, "pad": ""})) - 1
            before += json.dumps({"earlier": 2, "pad": "x" * pad}).encode() + b"\n"
            assert len(before) == 8192
            open(out, "wb").write(before)

            def fill():
                try:
                    with open(os.path.join(disk, "filler"), "wb") as f:
                        while True:
                            f.write(b"\0" * 65536)
                            f.flush()
                except OSError:  # full: what this is for
                    pass
            if run.when == "before":
                fill()
        proc = launch(run, work, gradsync, out)
        launched_at = time.monotonic()
        fault_at = None
        ranks = {}
        if run.when == "launch":
            fault_at = launched_at  # the wrapper stops the victim itself
        elif run.when == "setup":
            # Past MPI_Init (rank 0 has printed), before the strategy is set up.
            wait_for(lambda: os.path.getsize(os.path.join(work, "out")) > 0 or proc.poll() is not None, 60)
            ranks = rank_pids(work)
        else:
            if not wait_for(lambda: header_seen(work, run.train) or proc.poll() is not None, 60):
                extra["note"] = "never started measuring"
            if run.when == "middle":
                time.sleep(run.middle_s)
            ranks = rank_pids(work)
        if run.when == "launch":
            pass
        elif run.kind in ("stop", "kill"):
            pid = (ranks or {}).get(run.victim)
            if pid:
                os.kill(pid, signal.SIGSTOP if run.kind == "stop" else signal.SIGKILL)
                fault_at = time.monotonic()
                if run.kind == "stop":
                    stopped.append(pid)
            else:
                extra["note"] = "the rank had already ended"
        elif run.kind == "slow":
            if ranks and throttle(ranks):
                fault_at = time.monotonic()
            else:
                extra["note"] = "the launcher's ports were not found: nothing throttled"
        elif run.kind == "option":
            fault_at = launched_at  # the bad option is there from the start
        elif run.kind == "disk":
            if run.when == "middle":
                fill()
            fault_at = time.monotonic()
        elif run.kind == "forged":
            pid = next(iter((ranks or {}).values()), None)
            if pid:
                forger = subprocess.run(["nsenter", "-t", str(pid), "-n", sys.executable, __file__,
                                         "--forge", str(run.index)], capture_output=True, text=True)
                extra["forged_messages"] = int(forger.stdout.strip() or 0)
                if forger.returncode != 0:
                    extra["note"] = "the forger failed: " + forger.stderr.strip()[-300:]
            fault_at = time.monotonic()
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
        for pid in job_left(work):
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        if mounted:
            subprocess.run(["umount", "-l", os.path.join(work, "disk")], check=False)
        shutil.rmtree(work, ignore_errors=True)


COLUMNS = [("in_time", "in time"), ("one_line", "one true line"),
           ("nothing_wrong", "nothing recorded wrong or lost"), ("not_torn", "nothing torn"),
           ("none_left", "nothing left running")]


def table(verdicts):
    rows = ["| fault | runs | " + " | ".join(name for _, name in COLUMNS) + " | all |",
            "|---|---:|" + "---:|" * (len(COLUMNS) + 1)]
    for kind in KINDS + ["all"]:
        mine = [v for v in verdicts if kind in ("all", v["kind"])]
        if not mine:
            continue
        cells = [f"{sum(1 for v in mine if v[k])}" for k, _ in COLUMNS]
        rows.append(f"| {kind} | {len(mine)} | " + " | ".join(cells) +
                    f" | {sum(1 for v in mine if v['pass'])} |")
    return "\n".join(rows)


def usable_gloo(gradsync):
    """The gloo-* strategies that `gradsync strategies` lists as usable."""
    table = subprocess.run([gradsync, "strategies"], capture_output=True, text=True).stdout
    usable = {f[0] for f in (line.split() for line in table.splitlines()) if len(f) > 1 and f[1] == "yes"}
    return [s for s in GLOO_STRATEGIES if s in usable]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=240)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--timeout", type=float, default=2.0, help="--timeout of every job (s)")
    parser.add_argument("--kinds", type=lambda s: s.split(","), default=None,
                        help=f"comma-separated, of {','.join(KINDS)} (default: all, in turn)")
    parser.add_argument("--gradsync", default=os.environ.get("GRADSYNC", os.path.join(REPO, "build", "bin", "gradsync")))
    parser.add_argument("--strategies", type=lambda s: s.split(","), default=None,
                        help="comma-separated strategies to draw from (default: every CPU "
                             "strategy this build can run)")
    parser.add_argument("--out", help="each run's verdict, as JSON lines")
    parser.add_argument("--only", type=lambda s: [int(x) for x in s.split(",")], default=None,
                        help="run only these runs of the seeded sequence (comma-separated indexes), "
                             "to repeat a failed one")
    parser.add_argument("--forge", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.forge is not None:
        print(forge(2.0, random.Random(args.forge)))
        return 0
    if args.runs < 1:
        parser.error("--runs must be at least 1")
    if args.only is not None and max(args.only) >= args.runs:
        parser.error(f"--only: run {max(args.only)} is beyond --runs {args.runs}")
    for kind in args.kinds or []:
        if kind not in KINDS:
            parser.error(f"--kinds: unknown fault '{kind}' (of {', '.join(KINDS)})")
    if not os.access(args.gradsync, os.X_OK):
        parser.error(f"{args.gradsync}: no gradsync binary there (build it, or pass --gradsync)")
    known = STRATEGIES + usable_gloo(args.gradsync)
    for strategy in args.strategies or []:
        if strategy not in known:
            parser.error(f"--strategies: '{strategy}' is not a CPU strategy this build can run "
                         f"(of {', '.join(known)})")
    args.strategies = args.strategies or known
    if os.geteuid() != 0:
        parser.error("needs root: the slow and disk faults use tc and mount")
    # Ended by a signal, a run still takes down what it made (its job, a
    # mount): SIGTERM and SIGINT unwind through run_one's cleanup.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    rng = random.Random(args.seed)
    verdicts = []
    sink = open(args.out, "a") if args.out else None
    for i in range(args.runs):
        run = Run(i, rng, args)
        if args.only is not None and i not in args.only:
            continue
        verdict = run_one(run, args.gradsync)
        verdicts.append(verdict)
        mark = "ok  " if verdict["pass"] else "FAIL"
        first = (verdict["errors"] or [""])[0][len("gradsync: error: "):][:140]
        after = "" if verdict["elapsed_s"] is None else f" after {verdict['elapsed_s']} s"
        line = f"{mark} {i:4d} {verdict['describe']}: exit {verdict['exit']}{after}"
        print(line + (f": {first}" if first else ""), flush=True)
        if sink:
            sink.write(json.dumps(verdict) + "\n")
            sink.flush()
    print()
    print(table(verdicts))
    return 0 if all(v["pass"] for v in verdicts) else 1


if __name__ == "__main__":
    sys.exit(main())

"""A slow link: every data link of the job throttled to 8 kbit/s with tc htb on
loopback in the job's network namespace, the launcher's own ports spared."""
import os
import subprocess

from .procfs import parent_of


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
        ports = listening_ports(parent_of(pid))
    except (OSError, TypeError):
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

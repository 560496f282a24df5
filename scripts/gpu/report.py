#!/usr/bin/env python3
"""What scripts/gpu-check.sh reads back from its steps' output, and its summary.

The GPU machine has python3 but gradsync only once the build step has made
it, and the summary must come out when the build fails too: so this is a
standalone module of the standard library alone (no gradsync, no matplotlib).

    report.py why FILE STATUS                  why a step failed, one line
    report.py failure FILE STATUS LIMIT        "FAIL why" or "TIMEOUT ..." of a failed step
    report.py cuda-line FILE                   CMake's "gradsync: CUDA ..." line
    report.py strategy-lines FILE NAMES        `gradsync strategies` rows of NAMES
    report.py gtest-details NAME FILE          the tests a GoogleTest run caught
    report.py gtest-verdict NAME FILE STATUS   "STATUS figure" of that run
    report.py collectives-verdict FILE STATUS NAME   one strategy's rows of that table
    report.py train-verdict FILE STATUS
    report.py libstdcxx LIBSTDCXX PATH...      whether that libstdc++ has every GLIBCXX
                                               version the ELF files under PATHs need
    report.py row STEP STATUS FIGURE           one summary row
    report.py summary ROWS SECONDS COMMIT GPU  the summary (ROWS: STEP<tab>STATUS<tab>FIGURE lines)
    report.py json ROWS SECONDS COMMIT GPU EXIT   the same as JSON, one entry per GPU feature

FILE is a step's whole output, STATUS its exit status, NAME a strategy. A
verdict is one line: PASS, FAIL, TIMEOUT or SKIP, a space, and the figure
that goes with it. TIMEOUT is a step cut off at its time limit (slow, not
known to be wrong), never folded into FAIL.
"""
import json
import os
import re
import sys
import time

TIMED_OUT = ("124", "137")  # timeout's own status, and SIGKILL after --kill-after
WHY_WORDS = re.compile(r"error|Error|ERROR|failed|FAILED")
WHY_WIDTH = 160

GTEST_RUN = "[ RUN      ] "
GTEST_OK = re.compile(r"^\[       OK \]")
GTEST_FAILED = re.compile(r"^\[  FAILED  \] [A-Za-z_0-9/.]+ \(")
GTEST_SKIPPED = re.compile(r"^\[  SKIPPED \] [A-Za-z_0-9/.]+ \(")


def lines_of(path):
    # Bytes that are not UTF-8 pass through as they came (surrogateescape).
    with open(path, encoding="utf-8", errors="surrogateescape") as f:
        return f.read().splitlines()


def why(lines, status):
    """The last line that names an error (gtest's own "[  FAILED" list aside), with the status."""
    if status in TIMED_OUT:
        return "timed out"
    found = [l for l in lines if WHY_WORDS.search(l) and not l.startswith("[  FAILED")]
    return f"exit {status}" + (f": {found[-1][:WHY_WIDTH]}" if found else "")


def failure(lines, status, limit="?"):
    """The verdict of a step that did not end with status 0."""
    if status in TIMED_OUT:
        return f"TIMEOUT cut off at its limit of {limit} s"
    return f"FAIL {why(lines, status)}"


def cuda_line(lines):
    for line in lines:
        if re.match(r"^-- gradsync: CUDA [0-9]", line):
            return line[len("-- gradsync: "):]
    return ""


def strategy_lines(lines, names):
    """The rows of `gradsync strategies` that start with one of the names (any case)."""
    starts = tuple(n.lower() + " " for n in names.split(","))
    return ["  " + l for l in lines if l.lower().startswith(starts)]


class GTest:
    """What one GoogleTest run's output says: the tests it ran, passed, failed and skipped."""

    def __init__(self, lines):
        self.passed = sum(1 for l in lines if GTEST_OK.match(l))
        self.failed = [l for l in lines if GTEST_FAILED.match(l)]
        self.skipped = sum(1 for l in lines if GTEST_SKIPPED.match(l))
        self.names = sorted({l[len(GTEST_RUN):].split(" ")[0] for l in lines
                             if l.startswith(GTEST_RUN) and l[len(GTEST_RUN):][:1] not in ("", " ")})
        # A skipped test says why on the line after gtest's "...: Skipped" (that
        # line is the reason, never a test's start; at the end, the last reason).
        reasons, test, reason, i = set(), "", "", 0
        while i < len(lines):
            if lines[i].startswith("[ RUN      ]"):
                fields = lines[i].split()
                test = fields[3] if len(fields) > 3 else ""
            if lines[i].endswith(": Skipped"):
                i += 1
                reason = lines[i] if i < len(lines) else reason
                reasons.add(f"  skipped {test}: {reason}")
            i += 1
        self.reasons = sorted(reasons)

    def details(self, name):
        head = [f"  {name} ran: " + " ".join(self.names)] if self.names else []
        return head + self.reasons + ["  " + l for l in self.failed]

    def verdict(self, lines, status):
        figure = f"{self.passed} passed, {len(self.failed)} failed, {self.skipped} skipped"
        if status in TIMED_OUT:
            return f"TIMEOUT {figure} before its time limit cut it off"
        if status != "0":
            return f"FAIL {figure}; {why(lines, status)}"
        if self.passed + self.skipped == 0:
            return "SKIP no test matches the GPU filter"
        return f"{'SKIP' if self.passed == 0 else 'PASS'} {figure}"


def table_columns(lines):
    """The column names of `gradsync collectives`' table, from its first header line
    ("# strategy size count type redop time algbw busbw #wrong [stage]")."""
    for line in lines:
        f = line.split()
        if len(f) > 2 and f[0] == "#" and f[1] == "strategy":
            return f[1:]
    return []


def collectives_verdict(lines, status, name):
    """One strategy's verdict from the table: PASS with its largest size (time,
    algbw, the staging copies on device buffers), FAIL when a row counts wrong
    elements or the strategy has no row, or the run's failure."""
    if status != "0":
        return failure(lines, status)
    columns = table_columns(lines)
    rows = [dict(zip(columns, l.split())) for l in lines
            if columns and l.split()[:1] == [name] and len(l.split()) >= len(columns)]
    if not rows:
        return f"FAIL no row of {name} in the table"
    wrong = [r["size"] for r in rows if r.get("#wrong") not in ("0", "N/A")]
    if wrong:
        return f"FAIL wrong elements at {', '.join(wrong)} B"
    last = rows[-1]
    stage = f", staging {last['stage']} us" if last.get("stage") not in (None, "host") else ""
    return f"PASS {last['size']} B in {last['time']} us, {last['algbw']} GB/s{stage}; exact sums at {len(rows)} sizes"


def train_verdict(lines, status):
    figure = next((l[len("Total "):] for l in lines if l.startswith("Total img/sec")), "")
    if status != "0":
        return failure(lines, status)
    if not figure:
        return "FAIL no 'Total img/sec' line in the output"
    return f"PASS {figure}"


GLIBCXX = re.compile(rb"GLIBCXX_([0-9]+(?:\.[0-9]+)*)")


def version_key(text):
    return tuple(int(p) for p in text.split("."))


def elf_files(paths):
    """The ELF files among PATHS and in the folders among them (links not followed)."""
    for top in paths:
        if os.path.isfile(top):
            candidates = [top]
        else:
            candidates = [os.path.join(d, n) for d, _, names in os.walk(top) for n in names]
        for path in candidates:
            if os.path.isfile(path) and not os.path.islink(path):
                with open(path, "rb") as f:
                    if f.read(4) == b"\x7fELF":
                        yield path


def glibcxx_of(path):
    with open(path, "rb") as f:
        return {m.decode() for m in GLIBCXX.findall(f.read())}


def libstdcxx(lib, paths):
    """Whether the libstdc++ LIB defines every GLIBCXX_ symbol version that the ELF
    files under PATHS ask for (their version needs name them as strings)."""
    if not os.path.isfile(lib):
        return "SKIP no libstdc++.so.6 found on this machine"
    have = glibcxx_of(lib)
    needed, files = {}, 0
    for path in elf_files(p for p in paths if os.path.exists(p)):
        files += 1
        for v in glibcxx_of(path):
            needed.setdefault(v, path)
    if not files:
        return "SKIP no file to check (no bundle, no binary)"
    if not needed:
        return f"PASS none of the {files} files checked needs a GLIBCXX version"
    newest_have = max(have, key=version_key) if have else "none"
    newest_need = max(needed, key=version_key)
    missing = sorted(set(needed) - have, key=version_key)
    if missing:
        return (f"FAIL {lib} (GLIBCXX up to {newest_have}) lacks GLIBCXX_{missing[-1]}, "
                f"needed by {needed[missing[-1]]}" + (f" and {len(missing) - 1} older" if len(missing) > 1 else ""))
    return f"PASS {lib} has GLIBCXX up to {newest_have}; needed: up to {newest_need}"


def row(step, status, figure):
    return f"{step:<28} {status:<4} {figure}"


def summary(rows_path, seconds, commit, gpu):
    when = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    out = [f"== gpu-check summary ({when}, {seconds} s, commit {commit})", f"GPU: {gpu}"]
    for line in lines_of(rows_path):
        out.append(row(*(line.split("\t", 2) + ["", ""])[:3]))
    return out


# The GPU feature each summary row answers for, by the row's first word.
FEATURES = (("gpu", "device detection"), ("build", "CUDA build"), ("gpu-tests", "GPU unit tests"),
            ("gpu-mpi-tests", "GPU unit tests (multi-rank suite, 2 ranks on one GPU)"),
            ("collectives", "NCCL collectives on device memory"),
            ("staged", "host-staged collectives on device memory"),
            ("shared", "two ranks on one GPU (host-staged shares, NCCL refused)"),
            ("train", "train --compute cuda"), ("ddp-nccl", "PyTorch DDP reference over NCCL"))


def feature_of(step):
    first = step.split(" ")[0]
    for prefix, feature in FEATURES:
        if first == prefix:
            return feature
    return "environment"


# How fast, from a figure: training's img/sec, a collective's algbw at its largest size.
SPEEDS = ((re.compile(r"img/sec on [0-9]+ workers?(?:\(s\))?: ([0-9.]+)"), "img/s"),
          (re.compile(r"([0-9.]+) GB/s"), "GB/s"))


def speed_of(verdict, figure):
    if verdict != "PASS":
        return None
    for pattern, unit in SPEEDS:
        m = pattern.search(figure)
        if m:
            return {"value": float(m.group(1)), "unit": unit}
    return None


def as_json(rows_path, seconds, commit, gpu, exit_status):
    """Per row: its feature, whether it ran, whether its result is right (null
    when that is not known: skipped or cut off), how fast (null where the step
    has no such figure), and the figure."""
    entries = []
    for line in lines_of(rows_path):
        step, verdict, figure = (line.split("\t", 2) + ["", ""])[:3]
        entries.append({"feature": feature_of(step), "step": step, "verdict": verdict,
                        "ran": verdict in ("PASS", "FAIL", "TIMEOUT"),
                        "correct": {"PASS": True, "FAIL": False}.get(verdict),
                        "speed": speed_of(verdict, figure), "figure": figure})
    record = {"when": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "seconds": int(seconds),
              "commit": commit, "gpu": gpu, "exit": int(exit_status), "steps": entries}
    return [json.dumps(record, indent=1)]


COMMANDS = {
    "why": (2, lambda path, status: [why(lines_of(path), status)]),
    "failure": (3, lambda path, status, limit: [failure(lines_of(path), status, limit)]),
    "cuda-line": (1, lambda path: [cuda_line(lines_of(path))]),
    "strategy-lines": (2, lambda path, names: strategy_lines(lines_of(path), names)),
    "gtest-details": (2, lambda name, path: GTest(lines_of(path)).details(name)),
    "gtest-verdict": (3, lambda name, path, status:
                      [GTest(lines_of(path)).verdict(lines_of(path), status)]),
    "collectives-verdict": (3, lambda path, status, name:
                            [collectives_verdict(lines_of(path), status, name)]),
    "train-verdict": (2, lambda path, status: [train_verdict(lines_of(path), status)]),
    "row": (3, lambda step, status, figure: [row(step, status, figure)]),
    "summary": (4, summary),
    "json": (5, as_json),
}


def main(argv):
    sys.stdout.reconfigure(errors="surrogateescape")
    if argv[:1] == ["libstdcxx"] and len(argv) >= 3:
        print(libstdcxx(argv[1], argv[2:]))
        return 0
    if not argv or argv[0] not in COMMANDS or len(argv) - 1 != COMMANDS[argv[0]][0]:
        known = ", ".join(COMMANDS)
        print(f"gpu-check: error: report.py wants one of {known} with its arguments "
              f"(got {' '.join(argv) or 'nothing'})", file=sys.stderr)
        return 2
    for line in COMMANDS[argv[0]][1](*argv[1:]):
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

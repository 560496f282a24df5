#!/usr/bin/env python3
"""What scripts/gpu-check.sh reads back from its steps' output, and its summary.

The GPU machine has python3 but gradsync only once the build step has made
it, and the summary must come out when the build fails too: so this is a
standalone module of the standard library alone (no gradsync, no matplotlib).

    report.py why FILE STATUS                  why a step failed, one line
    report.py cuda-line FILE                   CMake's "gradsync: CUDA ..." line
    report.py strategy-lines FILE NAMES        `gradsync strategies` rows of NAMES
    report.py gtest-details NAME FILE          the tests a GoogleTest run caught
    report.py gtest-verdict NAME FILE STATUS   "STATUS figure" of that run
    report.py collectives-verdict FILE STATUS NAMES
    report.py train-verdict FILE STATUS
    report.py row STEP STATUS FIGURE           one summary row
    report.py summary ROWS SECONDS COMMIT GPU  the summary (ROWS: STEP<tab>STATUS<tab>FIGURE lines)

FILE is a step's whole output, STATUS its exit status, NAMES strategies
separated by commas. A verdict is one line: PASS, FAIL or SKIP, a space, and
the figure that goes with it.
"""
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
        if status != "0":
            return f"FAIL {figure}; {why(lines, status)}"
        if self.passed + self.skipped == 0:
            return "SKIP no test matches the GPU filter"
        return f"{'SKIP' if self.passed == 0 else 'PASS'} {figure}"


def collectives_verdict(lines, status, names):
    """PASS with the largest size of each strategy's table, or FAIL and why. A row is
    "name size count type redop time algbw busbw #wrong"."""
    if status != "0":
        return f"FAIL {why(lines, status)}"
    wanted, last = names.split(","), {}
    for line in lines:
        f = line.split()
        if len(f) >= 9 and f[0] in wanted:
            last[f[0]] = f"{f[0]} {f[1]} B {f[5]} us {f[6]} GB/s"
    return "PASS " + "; ".join(last[n] for n in wanted if n in last)


def train_verdict(lines, status):
    figure = next((l[len("Total "):] for l in lines if l.startswith("Total img/sec")), "")
    if status != "0":
        return f"FAIL {why(lines, status)}"
    if not figure:
        return "FAIL no 'Total img/sec' line in the output"
    return f"PASS {figure}"


def row(step, status, figure):
    return f"{step:<28} {status:<4} {figure}"


def summary(rows_path, seconds, commit, gpu):
    when = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    out = [f"== gpu-check summary ({when}, {seconds} s, commit {commit})", f"GPU: {gpu}"]
    for line in lines_of(rows_path):
        out.append(row(*(line.split("\t", 2) + ["", ""])[:3]))
    return out


COMMANDS = {
    "why": (2, lambda path, status: [why(lines_of(path), status)]),
    "cuda-line": (1, lambda path: [cuda_line(lines_of(path))]),
    "strategy-lines": (2, lambda path, names: strategy_lines(lines_of(path), names)),
    "gtest-details": (2, lambda name, path: GTest(lines_of(path)).details(name)),
    "gtest-verdict": (3, lambda name, path, status:
                      [GTest(lines_of(path)).verdict(lines_of(path), status)]),
    "collectives-verdict": (3, lambda path, status, names:
                            [collectives_verdict(lines_of(path), status, names)]),
    "train-verdict": (2, lambda path, status: [train_verdict(lines_of(path), status)]),
    "row": (3, lambda step, status, figure: [row(step, status, figure)]),
    "summary": (4, summary),
}


def main(argv):
    sys.stdout.reconfigure(errors="surrogateescape")
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

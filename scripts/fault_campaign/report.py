"""What the campaign prints: a line per run as it ends, and the table of the runs
by fault kind (Markdown, as docs/guide/troubleshooting.md shows it)."""
from .judge import ERROR_PREFIX
from .plan import KINDS


def progress_line(index, verdict):
    """One run's line: ok or FAIL, what it was, its exit and the first error line."""
    mark = "ok  " if verdict["pass"] else "FAIL"
    first = (verdict["errors"] or [""])[0][len(ERROR_PREFIX):][:140]
    after = "" if verdict["elapsed_s"] is None else f" after {verdict['elapsed_s']} s"
    line = f"{mark} {index:4d} {verdict['describe']}: exit {verdict['exit']}{after}"
    return line + (f": {first}" if first else "")


COLUMNS = [("in_time", "in time"), ("one_line", "one true line"),
           ("nothing_wrong", "nothing recorded wrong or lost"), ("not_torn", "nothing torn"),
           ("none_left", "nothing left running")]


def table(verdicts):
    """The campaign's table: per fault kind, the runs and how many passed each column."""
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

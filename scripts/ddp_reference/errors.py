"""How the DDP reference fails: one line on stderr and an exit status (2 for bad
input, 1 for a run that failed), never a traceback."""
import sys

PROG = "ddp-reference"
USAGE_STATUS = 2


class UsageError(Exception):
    """Bad input: one line, exit status 2."""


def fail(message, status):
    print(f"{PROG}: error: {message}", file=sys.stderr, flush=True)
    sys.exit(status)


def one_line(e):
    """An exception as one line: PyTorch's callback chains and source locations left out."""
    text = " ".join(str(e).split()) or type(e).__name__
    text = text.split(" At: ")[0]
    marker = "Got the following error when running the callback: "
    while marker in text:
        text = text.split(marker, 1)[1]
    if "Timed out" in text or "timed out" in text or "Connection closed by peer" in text:
        text += " (a peer did not answer within --timeout; the run is ended)"
    return text

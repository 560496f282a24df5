"""Reading and checking result records.

Arguments are files or directories (a directory stands for its *.jsonl files,
sorted by name). Every line is checked the way gradsync's own reader does: it
must be JSON, an object, with `schema` "gradsync.result" and a known
`schema_version`; blank lines are skipped. Any failure is a PlotError whose
message names the file and line, which the command line prints as one line.
Fields are read through Record.get, so a record that lacks a field a figure
needs also fails with its file and line instead of a traceback.
"""
import json
import os

SCHEMA = "gradsync.result"
KNOWN_VERSIONS = (1,)


class PlotError(Exception):
    """An input or usage problem, reported as one line."""


class Record:
    """One record and where it came from (for error messages)."""

    def __init__(self, data, path, line):
        self.data = data
        self.path = path
        self.line = line

    @property
    def where(self):
        return f"{self.path}:{self.line}"

    @property
    def kind(self):
        return self.data.get("kind")

    @property
    def simulated(self):
        return self.data.get("simulated") is True

    def get(self, dotted, types=(int, float), default=KeyError):
        """The field at `dotted` (e.g. "results.img_sec_mean"), checked by type."""
        value = self.data
        for part in dotted.split("."):
            if not isinstance(value, dict) or part not in value:
                if default is not KeyError:
                    return default
                raise PlotError(f"{self.where}: {self.kind} record has no {dotted}")
            value = value[part]
        ok = isinstance(value, types) and not (isinstance(value, bool) and bool not in _tuple(types))
        if not ok:
            if default is not KeyError and value is None:
                return default
            raise PlotError(f"{self.where}: {dotted} is {json.dumps(value)[:40]}, "
                            f"expected {_type_names(types)}")
        return value


def _tuple(types):
    return types if isinstance(types, tuple) else (types,)


def _type_names(types):
    names = {int: "an integer", float: "a number", str: "a string", bool: "true or false",
             list: "an array", dict: "an object", type(None): "null"}
    return " or ".join(dict.fromkeys(names.get(t, t.__name__) for t in _tuple(types)))


def expand(paths):
    """Files named by the arguments: directories stand for their *.jsonl files."""
    files = []
    for path in paths:
        if os.path.isdir(path):
            found = sorted(os.path.join(path, n) for n in os.listdir(path) if n.endswith(".jsonl"))
            found = [f for f in found if os.path.isfile(f)]
            if not found:
                raise PlotError(f"{path}: directory has no .jsonl files")
            files.extend(found)
        elif os.path.exists(path):
            files.append(path)
        else:
            raise PlotError(f"{path}: no such file or directory")
    return files


def read_file(path):
    """Every record of one file, checked line by line."""
    try:
        with open(path, "rb") as f:
            raw = f.read()
    except OSError as e:
        raise PlotError(f"{path}: cannot read ({e.strerror})") from None
    records = []
    for number, line in enumerate(raw.split(b"\n"), start=1):
        where = f"{path}:{number}"
        try:
            text = line.decode("utf-8").strip()
        except UnicodeDecodeError:
            raise PlotError(f"{where}: not valid UTF-8") from None
        if not text:
            continue
        try:
            data = json.loads(text)
        except json.JSONDecodeError as e:
            raise PlotError(f"{where}: not valid JSON ({e.msg}; column {e.colno})") from None
        if not isinstance(data, dict):
            raise PlotError(f"{where}: not a JSON object")
        if data.get("schema") != SCHEMA:
            raise PlotError(f"{where}: schema is {json.dumps(data.get('schema'))}, "
                            f"expected \"{SCHEMA}\"")
        version = data.get("schema_version")
        if isinstance(version, bool) or version not in KNOWN_VERSIONS:
            raise PlotError(f"{where}: schema_version {json.dumps(version)} is not one this "
                            f"reader knows ({', '.join(map(str, KNOWN_VERSIONS))})")
        records.append(Record(data, path, number))
    return records


def load(paths):
    """(files, records) for the arguments, in file order then line order."""
    files = expand(paths)
    records = []
    for path in files:
        records.extend(read_file(path))
    return files, records


def of_kind(records, files, kind, purpose, simulated=False):
    """Records of `kind` (measured or simulated); an error naming the files if none."""
    chosen = [r for r in records if r.kind == kind and r.simulated == simulated]
    if not chosen:
        what = f"simulated {kind}" if simulated else ("measured train" if kind == "train" else kind)
        shown = ", ".join(files[:3]) + (f" and {len(files) - 3} more" if len(files) > 3 else "")
        raise PlotError(f"{shown}: no {what} records ({purpose} needs them)")
    return chosen

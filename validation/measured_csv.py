# measured_csv.py: reads the raw CSVs that the measuring programs write (tools/calibrate, bench/cuda/*.cu): leading
# `# key: value` lines as metadata, other `#` lines as comments, then a header and rows. Used by the convert_*.py
# scripts beside it.
import csv, sys


def read(raw, required, writer):
    """(metadata dict, rows as dicts) of RAW; exits naming the file when a key of `required` has no `# key:` line
    (`writer` says which program writes them)."""
    meta, body = {}, []
    with open(raw) as f:
        for line in f.read().splitlines():
            if line.startswith("# ") and ":" in line and not body:
                key, value = line[2:].split(":", 1)
                meta[key.strip()] = value.strip()
            elif not line.startswith("#"):
                body.append(line)
    for key in required:
        if key not in meta:
            sys.exit(f"{raw}: no `# {key}:` line ({writer})")
    return meta, list(csv.DictReader(body))

#!/usr/bin/env python3
# convert_calibration.py: turns a raw CSV written by tools/calibrate (docs/calibration.md, format 1) into the
# measured CSVs of `gpmc validate` (bytes,measured_s): pinned host-to-device, pinned device-to-host and
# device-to-device copies on one stream, one file each, every row the median of the timed repetitions.
# Usage: python3 validation/convert_calibration.py RAW.csv OUTDIR [DEVICE]
import csv, os, sys

KINDS = [("h2d_pinned", "h2d", "pinned", "pinned host-to-device copies (cudaMemcpyAsync)"),
         ("d2h_pinned", "d2h", "pinned", "pinned device-to-host copies (cudaMemcpyAsync)"),
         ("d2d", "d2d", "device", "device-to-device copies within the GPU (cudaMemcpyAsync)")]


def main():
    if len(sys.argv) not in (3, 4):
        sys.exit("usage: convert_calibration.py RAW.csv OUTDIR [DEVICE]")
    raw, outdir = sys.argv[1], sys.argv[2]
    device = sys.argv[3] if len(sys.argv) == 4 else "0"
    meta, rows = {}, []
    with open(raw) as f:
        lines = f.read().splitlines()
    body = []
    for line in lines:
        if line.startswith("# ") and ":" in line and not body:
            key, value = line[2:].split(":", 1)
            meta[key.strip()] = value.strip()
        elif not line.startswith("#"):
            body.append(line)
    rows = list(csv.DictReader(body))
    for key in ("gpu", "driver", "date"):
        if key not in meta:
            sys.exit(f"{raw}: no `# {key}:` line (docs/calibration.md, format 1)")
    for name, direction, memory, what in KINDS:
        chosen = [r for r in rows if r["benchmark"] == "copy" and r["direction"] == direction and
                  r["memory"] == memory and r["streams"] == "1" and device in (r["src"], r["dst"])]
        if not chosen:
            sys.exit(f"{raw}: no one-stream {direction} {memory} copies of device {device}")
        path = os.path.join(outdir, name + ".csv")
        with open(path, "w") as out:
            out.write(f"# source: {raw} (tools/calibrate, docs/calibration.md), device {device}\n")
            out.write(f"# hardware: {meta['gpu']}, {meta['driver']}, measured {meta['date']}\n")
            out.write(f"# rows: every one-stream `copy,{direction},{memory}` row, {what}, "
                      f"{len(chosen)} sizes\n")
            out.write(f"# conversion: measured_s = median_s (the median of {chosen[0]['reps']} timed repetitions, "
                      "CUDA events, after 3 warm-up runs)\n")
            out.write("bytes,measured_s\n")
            for r in sorted(chosen, key=lambda r: float(r["amount"])):
                out.write(f"{int(float(r['amount']))}B,{float(r['median_s']):.6g}\n")
        print(f"wrote {path} ({len(chosen)} points)")


if __name__ == "__main__":
    main()

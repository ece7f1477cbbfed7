#!/usr/bin/env python3
# convert_calibration.py: turns a raw CSV written by tools/calibrate (docs/calibration.md, format 1) into the
# measured CSVs of `gpmc validate` (bytes,measured_s): pinned host-to-device, pinned device-to-host and
# device-to-device copies on one stream, one file each, every row the median of the timed repetitions; given several
# runs of the same node, each row is the median over the runs of those medians (a run disturbed at some sizes then
# does not decide them).
# Usage: python3 validation/convert_calibration.py OUTDIR [--device N] RAW.csv [RAW.csv ...]
import os, statistics, sys

import measured_csv

KINDS = [("h2d_pinned", "h2d", "pinned", "pinned host-to-device copies (cudaMemcpyAsync)"),
         ("d2h_pinned", "d2h", "pinned", "pinned device-to-host copies (cudaMemcpyAsync)"),
         ("d2d", "d2d", "device", "device-to-device copies within the GPU (cudaMemcpyAsync)")]


def main():
    args = sys.argv[1:]
    device = "0"
    if "--device" in args:
        at = args.index("--device")
        if at + 1 >= len(args):
            sys.exit("convert_calibration.py: --device needs a number")
        device = args[at + 1]
        del args[at:at + 2]
    if len(args) < 2:
        sys.exit("usage: convert_calibration.py OUTDIR [--device N] RAW.csv [RAW.csv ...]")
    outdir, raws = args[0], args[1:]
    runs = [measured_csv.read(raw, ("gpu", "driver", "date"), "docs/calibration.md, format 1") for raw in raws]
    meta = runs[0][0]
    for raw, (m, _) in zip(raws, runs):
        if m["gpu"] != meta["gpu"]:
            sys.exit(f"{raw}: another GPU ({m['gpu']}) than {raws[0]} ({meta['gpu']})")
    for name, direction, memory, what in KINDS:
        per_run = []
        for raw, (_, rows) in zip(raws, runs):
            chosen = {int(float(r["amount"])): r for r in rows
                      if r["benchmark"] == "copy" and r["direction"] == direction and r["memory"] == memory
                      and r["streams"] == "1" and device in (r["src"], r["dst"])}
            if not chosen:
                sys.exit(f"{raw}: no one-stream {direction} {memory} copies of device {device}")
            per_run.append(chosen)
        sizes = sorted(per_run[0])
        for raw, chosen in zip(raws, per_run):
            if sorted(chosen) != sizes:
                sys.exit(f"{raw}: other {direction} sizes than {raws[0]}")
        reps = per_run[0][sizes[0]]["reps"]
        path = os.path.join(outdir, name + ".csv")
        with open(path, "w") as out:
            out.write(f"# source: {', '.join(raws)} (tools/calibrate, docs/calibration.md), device {device}\n")
            out.write(f"# hardware: {meta['gpu']}, {meta['driver']}, measured {meta['date']}\n")
            out.write(f"# rows: every one-stream `copy,{direction},{memory}` row, {what}, {len(sizes)} sizes\n")
            if len(raws) == 1:
                out.write(f"# conversion: measured_s = median_s (the median of {reps} timed repetitions, "
                          "CUDA events, after 3 warm-up runs)\n")
            else:
                out.write(f"# conversion: measured_s = the median over the {len(raws)} runs of median_s (each the "
                          f"median of {reps} timed repetitions, CUDA events, after 3 warm-up runs)\n")
            out.write("bytes,measured_s\n")
            for n in sizes:
                value = statistics.median(float(chosen[n]["median_s"]) for chosen in per_run)
                out.write(f"{n}B,{value:.6g}\n")
        print(f"wrote {path} ({len(sizes)} points from {len(raws)} run{'s' if len(raws) > 1 else ''})")


if __name__ == "__main__":
    main()

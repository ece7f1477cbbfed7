#!/usr/bin/env python3
# convert_split.py: turns the `split_*` rows of CSVs written by bench/cuda/pageable_par.cu into the measured CSV of
# `gpmc validate` for apps/bandwidth.gpm: one host thread's copy of `bytes` as `streams` copies of bytes / streams
# on as many streams, pinned or pageable, each direction; the median over the runs given of each run's median.
# Usage: python3 validation/convert_split.py OUT.csv RAW.csv [RAW.csv ...]
import re
import statistics
import sys

import measured_csv


def main():
    if len(sys.argv) < 3:
        sys.exit("usage: convert_split.py OUT.csv RAW.csv [RAW.csv ...]")
    out_path, raws = sys.argv[1], sys.argv[2:]
    times = {}  # (memory, direction, streams, bytes) -> each run's median
    meta = None
    for raw in raws:
        meta, rows = measured_csv.read(raw, ("gpu", "driver", "source"), "bench/cuda/pageable_par.cu writes it")
        for r in rows:
            m = re.fullmatch(r"split_(pinned|pageable)_(h2d|d2h)_k(\d+)", r["case"])
            if m:
                key = (m.group(1), m.group(2), int(m.group(3)), int(r["bytes"]))
                times.setdefault(key, []).append(float(r["first_median_s"]))
    if not times:
        sys.exit("no split_* rows in " + ", ".join(raws))
    with open(out_path, "w") as out:
        out.write(f"# source: {', '.join(raws)} (bench/cuda/pageable_par.cu, host clock)\n")
        out.write(f"# hardware: {meta['gpu']}, CUDA driver {meta['driver']}\n")
        out.write(f"# rows: one host thread's copy of `bytes` as `streams` copies on as many streams, {len(times)} "
                  f"rows\n")
        out.write("# conversion: measured_s = the median over the runs of first_median_s\n")
        out.write("memory,direction,streams,bytes,measured_s\n")
        for (memory, direction, streams, size), values in sorted(times.items()):
            out.write(f"{memory},{direction},{streams},{size}B,{statistics.median(values):.6g}\n")
    print(f"wrote {out_path} ({len(times)} rows)")


if __name__ == "__main__":
    main()

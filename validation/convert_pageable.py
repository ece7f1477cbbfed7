#!/usr/bin/env python3
# convert_pageable.py: turns the CSVs written by bench/cuda/pageable_par.cu into the measured CSV of `gpmc validate`
# for validation/pageable_par.gpm: for each case of two copies issued at once (no delay) and each size, the time of
# the later one to end (the larger of the two medians of a run), the median over the runs given.
# Usage: python3 validation/convert_pageable.py OUT.csv RAW.csv [RAW.csv ...]
import statistics
import sys

import measured_csv

# The bench's cases of two copies at once: (first, second, second_memory) of validation/pageable_par.gpm.
CASES = {
    "pageable_h2d+pinned_h2d": ("h2d", "h2d", "pinned"),
    "pageable_d2h+pinned_d2h": ("d2h", "d2h", "pinned"),
    "pageable_h2d+pageable_h2d": ("h2d", "h2d", "pageable"),
    "pageable_d2h+pageable_d2h": ("d2h", "d2h", "pageable"),
    "pageable_h2d+pageable_d2h": ("h2d", "d2h", "pageable"),
    "pageable_h2d+pinned_d2h": ("h2d", "d2h", "pinned"),
}


def main():
    if len(sys.argv) < 3:
        sys.exit("usage: convert_pageable.py OUT.csv RAW.csv [RAW.csv ...]")
    out_path, raws = sys.argv[1], sys.argv[2:]
    times = {}  # (case, bytes) -> the later end of each run
    meta = None
    for raw in raws:
        meta, rows = measured_csv.read(raw, ("gpu", "driver", "source"), "bench/cuda/pageable_par.cu writes it")
        if not rows or "second_median_s" not in rows[0]:
            sys.exit(f"{raw}: no `second_median_s` column")
        for r in rows:
            if r["case"] in CASES:
                later = max(float(r["first_median_s"]), float(r["second_median_s"]))
                times.setdefault((r["case"], int(r["bytes"])), []).append(later)
    with open(out_path, "w") as out:
        out.write(f"# source: {', '.join(raws)} (bench/cuda/pageable_par.cu, host clock)\n")
        out.write(f"# hardware: {meta['gpu']}, CUDA driver {meta['driver']}\n")
        out.write(f"# rows: a pageable copy (`first`) and another (`second`, from `second_memory`) of `bytes` each, "
                  f"from two host threads at once, {len(times)} rows\n")
        out.write("# conversion: measured_s = the median over the runs of max(first_median_s, second_median_s)\n")
        out.write("first,second,second_memory,bytes,measured_s\n")
        for case in CASES:
            for (name, size), values in sorted(times.items(), key=lambda kv: kv[0][1]):
                if name == case:
                    first, second, memory = CASES[case]
                    out.write(f"{first},{second},{memory},{size}B,{statistics.median(values):.6g}\n")
    print(f"wrote {out_path} ({len(times)} rows)")


if __name__ == "__main__":
    main()

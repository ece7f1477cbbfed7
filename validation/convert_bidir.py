#!/usr/bin/env python3
# convert_bidir.py: turns a CSV written by bench/cuda/bidir_copies.cu into the measured CSV of `gpmc validate`
# (bytes,measured_s) for validation/bidir_pinned.gpm: each row's time of the two copies issued at once (the median
# of the timed runs), bytes being each copy's size.
# Usage: python3 validation/convert_bidir.py RAW.csv OUT.csv
import sys

import measured_csv


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: convert_bidir.py RAW.csv OUT.csv")
    raw, out_path = sys.argv[1], sys.argv[2]
    meta, rows = measured_csv.read(raw, ("gpu", "driver", "source"), "bench/cuda/bidir_copies.cu writes it")
    if not rows or "both_median_s" not in rows[0]:
        sys.exit(f"{raw}: no `both_median_s` column")
    with open(out_path, "w") as out:
        out.write(f"# source: {raw} ({meta['source']})\n")
        out.write(f"# hardware: {meta['gpu']}, CUDA driver {meta['driver']}\n")
        out.write(f"# rows: a pinned h2d and a pinned d2h copy of `bytes` each, issued at once on two streams, "
                  f"{len(rows)} sizes\n")
        out.write("# conversion: measured_s = both_median_s\n")
        out.write("bytes,measured_s\n")
        for r in rows:
            out.write(f"{int(r['bytes'])}B,{float(r['both_median_s']):.6g}\n")
    print(f"wrote {out_path} ({len(rows)} points)")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
# convert_offload.py: turns CSVs written by bench/cuda/offload_streams.cu into the measured CSV of `gpmc validate`
# (strategy,streams,fmas,measured_s) for validation/offload_streams.gpm: every `streams`, `implicit` and `hybrid` row
# (the whole offload), measured_s the median of the timed runs.
# Usage: python3 validation/convert_offload.py OUT.csv RAW.csv [RAW.csv ...]
import sys

import measured_csv


def main():
    if len(sys.argv) < 3:
        sys.exit("usage: convert_offload.py OUT.csv RAW.csv [RAW.csv ...]")
    out_path, raws = sys.argv[1], sys.argv[2:]
    rows, gpus, floats = [], set(), set()
    for raw in raws:
        meta, body = measured_csv.read(raw, ("gpu", "source", "floats", "fmas_per_float"),
                                      "bench/cuda/offload_streams.cu writes it")
        gpus.add(meta["gpu"])
        floats.add(meta["floats"])
        for r in body:
            if r["case"] in ("streams", "implicit", "hybrid"):
                rows.append((r["case"], int(r["streams"]), int(meta["fmas_per_float"]), float(r["median_s"])))
    if len(floats) != 1:
        sys.exit("convert_offload.py: the files differ in their number of floats")
    with open(out_path, "w") as out:
        out.write(f"# source: {', '.join(raws)} (bench/cuda/offload_streams.cu, CUDA events)\n")
        out.write(f"# hardware: {', '.join(sorted(gpus))}\n")
        out.write(f"# rows: {floats.pop()} floats copied in, `fmas` dependent FMAs per float, copied out, with `strategy` over `streams`"
                  f" streams issued breadth first; {len(rows)} rows\n")
        out.write("# conversion: strategy = case, measured_s = median_s, of the rows of those cases\n")
        out.write("strategy,streams,fmas,measured_s\n")
        for c, s, k, t in rows:
            out.write(f"{c},{s},{k},{t:.6g}\n")
    print(f"wrote {out_path} ({len(rows)} points)")


if __name__ == "__main__":
    main()

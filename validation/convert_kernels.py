#!/usr/bin/env python3
# convert_kernels.py: turns CSVs written by bench/cuda/app_kernels.cu into the measured CSVs of `gpmc validate`, one
# per kernel (n,measured_s) for the apps of validation/kernels/: measured_s is, for each kernel and size, the median
# over the runs that have it of each run's median (the iteration rows came with a later version of the bench).
# Usage: python3 validation/convert_kernels.py OUTDIR RAW.csv [RAW.csv ...]   (writes OUTDIR/kernel_<name>.csv)
import os, statistics, sys

import measured_csv

# bench kernel -> the app of validation/kernels/ whose counts it is compared with
APPS = {
    "jacobi2d_stencil": "jacobi2d_stencil.gpm", "jacobi2d_reduce": "jacobi2d_reduce.gpm",
    "jacobi2d_pack": "jacobi2d_halo.gpm", "jacobi2d_unpack": "jacobi2d_halo.gpm",
    "minife_dot": "minife_dot.gpm", "minife_waxpby": "minife_waxpby.gpm",
    "minife_matvec_thread": "minife_matvec.gpm", "minife_matvec_warp": "minife_matvec.gpm",
    "jacobi2d_iteration": "jacobi2d_iteration.gpm", "minife_iteration": "minife_iteration.gpm",
}
# Rows the bench writes that no app prices (two kernels at once on one GPU: a `par` warns that it does not share the
# GPU), reported in docs/validation.md from the raw files.
NOT_CONVERTED = {"jacobi2d_stencil_two_streams", "jacobi2d_pack_unpack_two_streams"}


def main():
    if len(sys.argv) < 3:
        sys.exit("usage: convert_kernels.py OUTDIR RAW.csv [RAW.csv ...]")
    out_dir, raws = sys.argv[1], sys.argv[2:]
    times, gpus = {}, set()
    for raw in raws:
        meta, body = measured_csv.read(raw, ("gpu", "source"), "bench/cuda/app_kernels.cu writes it")
        gpus.add(meta["gpu"])
        for r in body:
            if r["kernel"] in NOT_CONVERTED:
                continue
            if r["kernel"] not in APPS:
                sys.exit(f"{raw}: unknown kernel {r['kernel']!r}")
            times.setdefault(r["kernel"], {}).setdefault(int(r["n"]), []).append(float(r["median_s"]))
    for kernel, by_n in times.items():
        counts = {len(v) for v in by_n.values()}
        if len(counts) != 1:
            sys.exit(f"convert_kernels.py: kernel {kernel} is not in the same runs at every size")
        runs = counts.pop()
        path = os.path.join(out_dir, f"kernel_{kernel}.csv")
        with open(path, "w") as out:
            out.write(f"# source: {', '.join(raws)} (bench/cuda/app_kernels.cu, CUDA events)\n")
            out.write(f"# hardware: {', '.join(sorted(gpus))}\n")
            out.write(f"# rows: the {kernel} kernel at n points per side (app validation/kernels/{APPS[kernel]});"
                      f" {len(by_n)} rows\n")
            out.write(f"# conversion: measured_s = the median over the {runs} runs that have the kernel of each run's"
                      " median_s\n")
            out.write("n,measured_s\n")
            for n in sorted(by_n):
                out.write(f"{n},{statistics.median(by_n[n]):.6g}\n")
        print(f"wrote {path} ({len(by_n)} points)")


if __name__ == "__main__":
    main()

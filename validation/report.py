#!/usr/bin/env python3
# report.py: runs `gpmc validate` on every shipped dataset of validation/ and prints the Markdown tables of
# docs/validation.md ("Datasheet-only machines against public measurements"): MAPE and WMAPE overall and by
# AHEAD's size classes, and a few points of each dataset.
# Usage (from the repository root, after building): python3 validation/report.py [build/gpmc]
# With a gpmc that has no `validate` command, each point is one `gpmc eval --set ...` and the metrics are
# computed here with the same definitions.
import json, subprocess, sys

GPMC = sys.argv[1] if len(sys.argv) > 1 else "build/gpmc"

# (title, machine, app, measured CSV, extra --set arguments)
DATASETS = [
    ("V100-PCIe, pinned host to device", "machines/v100_pcie.gpm", "validation/v100_pcie/h2d_pinned.gpm",
     "validation/v100_pcie/h2d_pinned.csv", []),
    ("V100-PCIe, pinned device to host", "machines/v100_pcie.gpm", "validation/v100_pcie/d2h_pinned.gpm",
     "validation/v100_pcie/d2h_pinned.csv", []),
    ("V100-PCIe, device to device", "machines/v100_pcie.gpm", "validation/v100_pcie/d2d.gpm",
     "validation/v100_pcie/d2d.csv", []),
    ("H200 SXM (measured here), pinned host to device", "machines/h200_node.gpm",
     "validation/v100_pcie/h2d_pinned.gpm", "validation/h200_node/h2d_pinned.csv", []),
    ("H200 SXM (measured here), pinned device to host", "machines/h200_node.gpm",
     "validation/v100_pcie/d2h_pinned.gpm", "validation/h200_node/d2h_pinned.csv", []),
    ("H200 SXM (measured here), device to device", "machines/h200_node.gpm", "validation/v100_pcie/d2d.gpm",
     "validation/h200_node/d2d.csv", []),
    ("H100 SXM (measured here), pinned host to device", "machines/h100_node.gpm",
     "validation/v100_pcie/h2d_pinned.gpm", "validation/h100_node/h2d_pinned.csv", []),
    ("H100 SXM (measured here), pinned device to host", "machines/h100_node.gpm",
     "validation/v100_pcie/d2h_pinned.gpm", "validation/h100_node/d2h_pinned.csv", []),
    ("H100 SXM (measured here), device to device", "machines/h100_node.gpm", "validation/v100_pcie/d2d.gpm",
     "validation/h100_node/d2d.csv", []),
    ("H200 SXM (measured here), pinned h2d and d2h at once", "machines/h200_node.gpm",
     "validation/bidir_pinned.gpm", "validation/h200_node/bidir_pinned.csv", []),
    ("H100 SXM (measured here), pinned h2d and d2h at once", "machines/h100_node.gpm",
     "validation/bidir_pinned.gpm", "validation/h100_node/bidir_pinned.csv", []),
    ("H100 SXM (measured here), offloads (streams, implicit, hybrid), calibrated machine",
     "machines/h100_node_measured.gpm", "validation/offload_streams.gpm", "validation/h100_node/offload_streams.csv", []),
    ("H200 SXM (measured here), offloads (streams, implicit, hybrid), calibrated machine",
     "machines/h200_node_measured.gpm", "validation/offload_streams.gpm", "validation/h200_node/offload_streams.csv", []),
    ("H100 SXM (measured here), pageable copies beside others at once, calibrated machine",
     "machines/h100_node_measured.gpm", "validation/pageable_par.gpm", "validation/h100_node/pageable_par.csv", []),
    ("H100 SXM (measured here), a copy split over streams, pinned and pageable, calibrated machine",
     "machines/h100_node_measured.gpm", "apps/bandwidth.gpm", "validation/h100_node/split_copies.csv", []),
    ("RTX 4090, P2P writes, 40 MB, peer access on", "machines/rtx4090_8x.gpm", "validation/rtx4090_8x/p2p.gpm",
     "validation/rtx4090_8x/p2p_unidirectional.csv", []),
    ("RTX 4090, P2P writes, 16 B, peer access on", "machines/rtx4090_8x.gpm", "validation/rtx4090_8x/p2p.gpm",
     "validation/rtx4090_8x/p2p_latency.csv", []),
    ("RTX 4090 x8, NCCL all-reduce, peer access on", "machines/rtx4090_8x.gpm", "validation/rtx4090_8x/allreduce.gpm",
     "validation/rtx4090_8x/allreduce_p2p_on.csv", []),
    ("RTX 4090, copies with peer access off (staged)", "machines/rtx4090_8x.gpm", "validation/rtx4090_8x/p2p.gpm",
     "validation/rtx4090_8x/p2p_disabled_unidirectional.csv", ["--set", "peer=0"]),
    ("A100 x8, NCCL all-reduce", "machines/dgx_a100.gpm", "validation/a100_nccl/allreduce.gpm",
     "validation/a100_nccl/allreduce.csv", []),
    ("A100 x8, NCCL all-gather", "machines/dgx_a100.gpm", "validation/a100_nccl/allgather.gpm",
     "validation/a100_nccl/allgather.csv", []),
    ("A100 x8, NCCL all-to-all", "machines/dgx_a100.gpm", "validation/a100_nccl/alltoall.gpm",
     "validation/a100_nccl/alltoall.csv", []),
    ("A100 x8, NCCL broadcast", "machines/dgx_a100.gpm", "validation/a100_nccl/bcast.gpm",
     "validation/a100_nccl/bcast.csv", []),
    ("A100 x8, NCCL reduce", "machines/dgx_a100.gpm", "validation/a100_nccl/reduce.gpm",
     "validation/a100_nccl/reduce.csv", []),
    ("A100 x8, NCCL reduce-scatter", "machines/dgx_a100.gpm", "validation/a100_nccl/reduce_scatter.gpm",
     "validation/a100_nccl/reduce_scatter.csv", []),
    ("A100 x8 (another machine), NCCL send/recv ring", "machines/dgx_a100.gpm",
     "validation/a100_nccl/sendrecv_ring.gpm", "validation/a100_nccl/sendrecv_ring.csv", []),
    ("A100 x8, NCCL broadcast, binomial tree", "machines/dgx_a100.gpm", "validation/a100_nccl/bcast.gpm",
     "validation/a100_nccl/bcast.csv", ["--set", "algorithm=binomial_tree"]),
    ("A100 x8, NCCL reduce, binomial tree", "machines/dgx_a100.gpm", "validation/a100_nccl/reduce.gpm",
     "validation/a100_nccl/reduce.csv", ["--set", "algorithm=binomial_tree"]),
]
# The apps' kernels alone (bench/cuda/app_kernels.cu on the H100 host) against the roofline of their counts: on the
# datasheet machine, and on the calibrated one (its mem_bw and peaks from tools/calibrate's triad and FMA loop, its
# kernel_issue from its launch benchmark).
KERNELS = [("Jacobi2D stencil", "jacobi2d_stencil", "jacobi2d_stencil"),
           ("Jacobi2D reduce", "jacobi2d_reduce", "jacobi2d_reduce"),
           ("Jacobi2D pack", "jacobi2d_halo", "jacobi2d_pack"),
           ("Jacobi2D unpack", "jacobi2d_halo", "jacobi2d_unpack"),
           ("MiniFE dot", "minife_dot", "minife_dot"),
           ("MiniFE waxpby", "minife_waxpby", "minife_waxpby"),
           ("MiniFE matvec, a warp per row", "minife_matvec", "minife_matvec_warp"),
           ("MiniFE matvec, a thread per row", "minife_matvec", "minife_matvec_thread"),
           ("Jacobi2D iteration (its four kernels back to back)", "jacobi2d_iteration", "jacobi2d_iteration"),
           ("MiniFE iteration (its six kernels back to back)", "minife_iteration", "minife_iteration")]
DATASETS += [(f"H100 SXM (measured here), kernel {title}", "machines/h100_node.gpm", f"validation/kernels/{app}.gpm",
              f"validation/h100_node/kernel_{csv}.csv", []) for title, app, csv in KERNELS]
DATASETS += [(f"H100 SXM (measured here), kernel {title}, calibrated machine", "machines/h100_node_measured.gpm",
              f"validation/kernels/{app}.gpm", f"validation/h100_node/kernel_{csv}.csv", [])
             for title, app, csv in KERNELS]
# The same bench on the H200 host (one lease): the stencil, the warp-per-row matvec and the two iterations.
H200_KERNELS = [k for k in KERNELS if k[2] in ("jacobi2d_stencil", "minife_matvec_warp", "jacobi2d_iteration",
                                               "minife_iteration")]
DATASETS += [(f"H200 SXM (measured here), kernel {title}{suffix}", machine, f"validation/kernels/{app}.gpm",
              f"validation/h200_node/kernel_{csv}.csv", [])
             for suffix, machine in (("", "machines/h200_node.gpm"), (", calibrated machine",
                                                                      "machines/h200_node_measured.gpm"))
             for title, app, csv in H200_KERNELS]
# The same measurements on the nccl model (NCCL's tuner on the machine's links), the algorithm left to the tuner.
NCCL = ["--set", "comm_model=nccl"]
AUTO = ["--set", "algorithm=auto"]
DATASETS += [
    ("RTX 4090 x8, NCCL all-reduce, peer access on, nccl model", "machines/rtx4090_8x.gpm",
     "validation/rtx4090_8x/allreduce.gpm", "validation/rtx4090_8x/allreduce_p2p_on.csv", NCCL + AUTO),
    ("RTX 4090 x8, NCCL all-reduce, peer access off, nccl model", "machines/rtx4090_8x.gpm",
     "validation/rtx4090_8x/allreduce.gpm", "validation/rtx4090_8x/allreduce_p2p_off.csv",
     ["--set", "peer=0"] + NCCL + AUTO),
    ("A100 x8, NCCL all-reduce, nccl model", "machines/dgx_a100.gpm", "validation/a100_nccl/allreduce.gpm",
     "validation/a100_nccl/allreduce.csv", NCCL + AUTO),
    ("A100 x8, NCCL all-gather, nccl model", "machines/dgx_a100.gpm", "validation/a100_nccl/allgather.gpm",
     "validation/a100_nccl/allgather.csv", NCCL),
    ("A100 x8, NCCL all-to-all, nccl model", "machines/dgx_a100.gpm", "validation/a100_nccl/alltoall.gpm",
     "validation/a100_nccl/alltoall.csv", NCCL),
    ("A100 x8, NCCL broadcast, nccl model", "machines/dgx_a100.gpm", "validation/a100_nccl/bcast.gpm",
     "validation/a100_nccl/bcast.csv", NCCL + AUTO),
    ("A100 x8, NCCL reduce, nccl model", "machines/dgx_a100.gpm", "validation/a100_nccl/reduce.gpm",
     "validation/a100_nccl/reduce.csv", NCCL + AUTO),
    ("A100 x8, NCCL reduce-scatter, nccl model", "machines/dgx_a100.gpm", "validation/a100_nccl/reduce_scatter.gpm",
     "validation/a100_nccl/reduce_scatter.csv", NCCL),
]

# nccl-tests prints each operation's `size`, the size its "1 MiB and more" refers to: the whole buffer. The apps'
# `bytes` is that size except where the CSV's conversion line divides it by the rank count (eight here): an
# all-gather's `bytes` is each rank's contribution (size: the gathered output), an all-to-all's the block to each
# rank (size: each rank's send buffer).
NCCL_TESTS_SIZE = {"validation/a100_nccl/allgather.gpm": 8, "validation/a100_nccl/alltoall.gpm": 8}

# AHEAD section V (Fig. 1 and its text): copies of less than 10 bytes, copies of more than 1 MB, and between.
CLASSES = [("< 10 B", lambda n: n < 10), ("10 B - 1 MB", lambda n: 10 <= n <= 1e6), ("> 1 MB", lambda n: n > 1e6)]


def has_validate():
    return subprocess.run([GPMC, "validate", "--help"], capture_output=True).returncode == 0


def size_in_bytes(cell):
    return float(cell[:-1]) if cell.endswith("B") else float(cell)


def validate_by_eval(machine, app, measured, extra):
    """The same document from one `gpmc eval --set` per row, for a gpmc without the validate command."""
    with open(measured) as f:
        lines = [(n, l.strip()) for n, l in enumerate(f, 1) if l.strip() and not l.startswith("#")]
    header = lines[0][1].split(",")
    points = []
    for number, line in lines[1:]:
        cells = line.split(",")
        sets = sum((["--set", f"{k}={v}"] for k, v in zip(header[:-1], cells[:-1])), [])
        command = [GPMC, "eval", machine, app, "--format", "json"] + sets + extra
        run = subprocess.run(command, capture_output=True, text=True)
        if run.returncode != 0:
            sys.exit(f"report.py: `{' '.join(command)}` failed:\n{run.stderr}")
        predicted, measured_s = json.loads(run.stdout)["total_s"], float(cells[-1])
        params = {k: size_in_bytes(v) if k == "bytes" else float(v) for k, v in zip(header[:-1], cells[:-1])}
        points.append({"line": number, "params": params, "measured_s": measured_s, "predicted_s": predicted,
                       "error": (predicted - measured_s) / measured_s})
    mape, wmape = metrics(points)
    return {"points": points, "mape": mape / 100, "wmape": wmape / 100}


def validate(machine, app, measured, extra):
    if not has_validate():
        return validate_by_eval(machine, app, measured, extra)
    command = [GPMC, "validate", machine, app, "--measured", measured, "--format", "json"] + extra
    run = subprocess.run(command, capture_output=True, text=True)
    if run.returncode != 0:
        sys.exit(f"report.py: `{' '.join(command)}` failed:\n{run.stderr}")
    return json.loads(run.stdout)


def metrics(points):
    """MAPE and WMAPE (AHEAD section VI-C: weights A_i / sum A) of the points, in percent."""
    mape = 100 * sum(abs(p["error"]) for p in points) / len(points)
    wmape = 100 * sum(abs(p["predicted_s"] - p["measured_s"]) for p in points) / sum(p["measured_s"] for p in points)
    return mape, wmape


def number(v):
    """A parameter's value as the report writes it: whole numbers without a point; words as they are."""
    return int(v) if isinstance(v, (int, float)) and float(v).is_integer() else v


def seconds(s):
    for unit, scale in (("s", 1), ("ms", 1e-3), ("us", 1e-6), ("ns", 1e-9)):
        if s >= scale:
            return f"{s / scale:.4g} {unit}"
    return f"{s:.3g} s"


def main():
    print("| dataset | command | points | MAPE | WMAPE | " + " | ".join(f"MAPE / WMAPE {c}" for c, _ in CLASSES) + " |")
    print("|---|---|---:|---:|---:|" + "---:|" * len(CLASSES))
    details = []
    for title, machine, app, measured, extra in DATASETS:
        doc = validate(machine, app, measured, extra)
        points = doc["points"]
        cells = []
        for _, member in CLASSES:
            chosen = [p for p in points if "bytes" in p["params"] and member(p["params"]["bytes"])]
            cells.append("%.1f%% / %.1f%% (%d)" % (metrics(chosen) + (len(chosen),)) if chosen else "—")
        command = f"`gpmc validate {machine} {app} --measured {' '.join([measured] + extra)}`"
        print(f"| {title} | {command} | {len(points)} | {100 * doc['mape']:.1f}% | {100 * doc['wmape']:.1f}% | "
              + " | ".join(cells) + " |")
        details.append((title, points, NCCL_TESTS_SIZE.get(app, 1)))
    # Models that choose (the nccl model's algorithm and protocol): every point with the choice, and the share of
    # the points of 1 MiB and more within 15 % of the measurement.
    chosen = [(t, p, f) for t, p, f in details if any("chosen" in q for q in p)]
    if chosen:
        print("\n| dataset | points of 1 MiB and more (`bytes`) | within 15 % | WMAPE of those "
              "| points of 1 MiB and more (nccl-tests' size) | within 15 % | WMAPE of those |")
        print("|---|---:|---:|---:|---:|---:|---:|")
        for title, points, factor in chosen:
            cells = []
            for f in (1, factor):
                big = [p for p in points if f * p["params"]["bytes"] >= 2 ** 20]
                within = sum(1 for p in big if abs(p["error"]) <= 0.15)
                cells.append(f"{len(big)} | {within} ({100 * within / len(big):.0f}%) | {metrics(big)[1]:.1f}%")
            print(f"| {title} | " + " | ".join(cells) + " |")
    for title, points, _ in details:
        if any("chosen" in p for p in points):
            print(f"\n{title}: every point (line of the CSV, parameters, measured, predicted, error, chosen)\n")
            print("| line | parameters | measured | predicted | error | chosen |")
            print("|---:|---|---:|---:|---:|---|")
            for p in points:
                params = ", ".join(f"{k} = {number(v)}" for k, v in p["params"].items())
                print(f"| {p['line']} | {params} | {seconds(p['measured_s'])} | {seconds(p['predicted_s'])} | "
                      f"{100 * p['error']:+.1f}% | {p['chosen']} |")
            continue
        # Datasets by size: a few points across the sizes; others (no `bytes`): every point.
        by_size = all("bytes" in p["params"] for p in points)
        print(f"\n{title}: {'a few points' if by_size else 'every point'} (line of the CSV, parameters, measured, "
              "predicted, error)\n")
        print("| line | parameters | measured | predicted | error |")
        print("|---:|---|---:|---:|---:|")
        step = max(1, len(points) // 6) if by_size else 1
        for p in (points[::step][:7] if by_size else points):
            params = ", ".join(f"{k} = {number(v)}" for k, v in p["params"].items())
            print(f"| {p['line']} | {params} | {seconds(p['measured_s'])} | {seconds(p['predicted_s'])} | "
                  f"{100 * p['error']:+.1f}% |")


if __name__ == "__main__":
    main()

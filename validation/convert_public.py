#!/usr/bin/env python3
# convert_public.py: regenerates the `gpmc validate` CSVs under validation/ and the calibration test fixture
# from the public measurement files in shared/validation/ (docs/validation.md, docs/calibration.md).
# Usage (from the repository root): python3 validation/convert_public.py [SHARED_VALIDATION_DIR]
# The conversion is arithmetic only (bandwidth to seconds); nothing is fitted or filtered by value.
import os, re, sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SHARED = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "..", "shared", "validation")
V100 = "bandwidthTest_shmoo_pinned_v100_pcie_32gb_superbench.txt"
RTX = "pcie_8x_rtx4090_epyc7542_p2p_off_vs_on_nccl_allreduce_and_p2pmatrix.txt"
NCCL = "nccl_tests_8x_a100_sxm4_40gb_single_node_6collectives_superbench.txt"


def read(name):
    path = os.path.join(SHARED, name)
    if not os.path.exists(path):
        sys.exit(f"convert_public.py: error: {path} not found (pass the shared/validation folder)")
    with open(path) as f:
        return f.read().splitlines()


def write(rel, comments, header, rows):
    path = os.path.join(ROOT, rel)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        for c in comments:
            f.write(f"# {c}\n" if c else "#\n")
        f.write(header + "\n")
        for r in rows:
            f.write(",".join(r) + "\n")
    print(f"wrote {rel} ({len(rows)} rows)")


def seconds(value):
    return repr(float(value))


# Sizes are written with their unit (`1000B`): `gpmc validate` reads a cell like a `--set` value.


# ---- V100-PCIE-32GB, bandwidthTest shmoo (pinned H2D, D2H; D2D) ----
V100_ROW = re.compile(r"bandwidthTest-(H2D-Pinned|D2H-Pinned|D2D), Bandwidth = ([0-9.]+) GB/s, "
                      r"Time = [0-9.]+ s, Size = ([0-9]+) bytes")


def v100_rows():
    rows = {"H2D-Pinned": [], "D2H-Pinned": [], "D2D": []}
    for line in read(V100):
        m = V100_ROW.match(line)
        if m:
            kind, gbps, size = m.group(1), float(m.group(2)), int(m.group(3))
            # bandwidthTest divides bytes by the mean time per copy; for D2D it counts every byte twice (read
            # and write), which the file's own Time column confirms (2000 B at 0.1 GB/s: Time = 0.00004 s).
            factor = 2 if kind == "D2D" else 1
            rows[kind].append((size, factor * size / (gbps * 1e9)))
    return rows


V100_SOURCE = [
    f"source: shared/validation/{V100} (Microsoft SuperBench test fixtures",
    "  tests/data/cuda_memory_{h2d,d2h,d2d}_bw.log, commit 700d6501f110ed17a7016f1b9f2e453926f7b7a1)",
    "hardware: 1x NVIDIA Tesla V100-PCIE-32GB, PCIe Gen3 x16; host CPU not stated",
    "tool: CUDA samples bandwidthTest, shmoo mode, --csv: the mean time per copy over its repetitions",
]


def convert_v100():
    rows = v100_rows()
    names = {"H2D-Pinned": ("h2d_pinned", "pinned host to device copies"),
             "D2H-Pinned": ("d2h_pinned", "pinned device to host copies"),
             "D2D": ("d2d", "device-to-device copies within the GPU")}
    for kind, (name, what) in names.items():
        conversion = ("measured_s = 2 x bytes / (Bandwidth x 1e9): bandwidthTest counts a D2D byte twice"
                      if kind == "D2D" else "measured_s = bytes / (Bandwidth x 1e9)")
        write(f"validation/v100_pcie/{name}.csv",
              V100_SOURCE + [f"rows: every `bandwidthTest-{kind}` line, {what}, sizes 1,000 to 68,000,000 bytes",
                             f"conversion: {conversion}; Bandwidth is printed in GB/s (1e9 B/s)",
                             "  rounded to 0.1 GB/s, so the smallest sizes carry up to 12% rounding error;",
                             "  the printed Time column is rounded to 10 us and is not used"],
              "bytes,measured_s", [(f"{s}B", seconds(t)) for s, t in rows[kind]])
    # The same rows in the raw format of tools/calibrate: the recorded-output fixture of its tests.
    comments = [
        "a recorded calibration in the raw format of tools/calibrate (docs/calibration.md), converted from",
        f"published measurements: shared/validation/{V100}",
        "every bandwidthTest-H2D-Pinned, -D2H-Pinned and -D2D line; median_s = min_s = max_s = the published mean",
        "time per copy (bytes / bandwidth; 2 x bytes / bandwidth for D2D, see validation/v100_pcie/d2d.csv);",
        "reps 1 stands for the one published value. A test fixture of tools/calibrate, not a machine model.",
    ]
    lines = ["# format: 1", "# gpu: Tesla V100-PCIE-32GB",
             "# driver: not printed by the published bandwidthTest log",
             "# date: 2021 (SuperBench v0.4 test data)", "# devices: 1",
             "# source: CUDA samples bandwidthTest shmoo, published by Microsoft SuperBench"]
    lines += [f"# {c}" for c in comments]
    lines.append("benchmark,direction,memory,src,dst,streams,amount,reps,median_s,min_s,max_s")
    spec = {"H2D-Pinned": ("h2d", "pinned", "host", "0"), "D2H-Pinned": ("d2h", "pinned", "0", "host"),
            "D2D": ("d2d", "device", "0", "0")}
    for kind, (direction, memory, src, dst) in spec.items():
        for size, t in rows[kind]:
            lines.append(f"copy,{direction},{memory},{src},{dst},1,{size},1,{seconds(t)},{seconds(t)},{seconds(t)}")
    path = os.path.join(ROOT, "tests/calibrate/v100_pcie_bandwidthtest_raw.csv")
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    print(f"wrote tests/calibrate/v100_pcie_bandwidthtest_raw.csv ({len(lines) - 12} rows)")


# ---- 8x RTX 4090 on two EPYC 7542, p2pBandwidthLatencyTest with the P2P-enabled driver ----
def rtx_matrix(lines, title, start_at):
    """The 8x8 matrix printed after the first line equal to `title` at or after line `start_at`."""
    for i in range(start_at, len(lines)):
        if lines[i].strip() == title:
            matrix = []
            for row in lines[i + 2:i + 10]:
                cells = row.split()
                matrix.append([float(c) for c in cells[1:9]])
            return matrix, i
    sys.exit(f"convert_public.py: error: `{title}` not found in {RTX}")


def convert_rtx():
    lines = read(RTX)
    part_b = next(i for i, l in enumerate(lines) if "(B) PATCHED DRIVER" in l)
    part_a_end = part_b
    source = [f"source: shared/validation/{RTX}",
              "  (blog post 'RTX4090 GPUDirect P2P Unlocked!', https://blog.chlc.cc/p/rtx4090-gpudirect-p2p-unlocked)",
              "hardware: 2x AMD EPYC 7542, 8x GeForce RTX 4090 on PCIe Gen4 x16, no PCIe switch, GPUs 0-3 on",
              "  socket 0 and 4-7 on socket 1 (nvidia-smi topo: CPU affinity 0-31 and 32-63)",
              "tool: cuda-samples p2pBandwidthLatencyTest (P2P writes: GPU src writes to GPU dst);"]
    bw_on, _ = rtx_matrix(lines, "Unidirectional P2P=Enabled Bandwidth (P2P Writes) Matrix (GB/s)", part_b)
    write("validation/rtx4090_8x/p2p_unidirectional.csv",
          source + ["  run (B), tinygrad's P2P-enabled driver: 'Unidirectional P2P=Enabled Bandwidth (P2P Writes)'",
                    "rows: the 56 off-diagonal cells, src = row, dst = column (the diagonal is a copy within a GPU)",
                    "conversion: the test times 5 cudaMemcpyPeerAsync copies of 10,000,000 ints (40,000,000 bytes)",
                    "  and prints 40e6 x 5 / 1e9 / time: measured_s = 40,000,000 / (GB/s x 1e9), per copy"],
          "src,dst,bytes,measured_s",
          [(str(i), str(j), "40000000B", seconds(40e6 / (bw_on[i][j] * 1e9)))
           for i in range(8) for j in range(8) if i != j])
    lat_on, _ = rtx_matrix(lines, "P2P=Enabled Latency (P2P Writes) Matrix (us)", part_b)
    write("validation/rtx4090_8x/p2p_latency.csv",
          source + ["  run (B), 'P2P=Enabled Latency (P2P Writes) Matrix (us)', the GPU rows",
                    "rows: the 56 off-diagonal cells, src = row, dst = column",
                    "conversion: the test times 100 back-to-back cudaMemcpyPeerAsync copies of 4 ints (16 bytes)",
                    "  and prints time / 100 in us: measured_s = us x 1e-6, per 16-byte copy"],
          "src,dst,bytes,measured_s",
          [(str(i), str(j), "16B", seconds(lat_on[i][j] * 1e-6)) for i in range(8) for j in range(8) if i != j])
    rows = []
    for line in lines[part_b:]:
        cells = line.split()
        if line.startswith("P2P Connectivity Matrix"):
            break
        # size count type redop root time algbw busbw #wrong (out-of-place), then the in-place four
        if len(cells) == 13 and cells[0].isdigit():
            rows.append((cells[0] + "B", seconds(float(cells[5]) * 1e-6)))
    write("validation/rtx4090_8x/allreduce_p2p_on.csv",
          source[:4] + ["tool: nccl-tests all_reduce_perf -b 8 -e 128M -f 2 -g 8 (one process, eight GPUs, float sum,",
                        "  warm-up 5, iters 20: the printed time is the mean per all-reduce), run (B), P2P enabled",
                        "rows: every line of run (B)'s all-reduce table, 8 B to 128 MiB",
                        "conversion: bytes = size (B, each rank's buffer); measured_s = out-of-place time (us) x 1e-6"],
          "bytes,measured_s", rows)
    bw_off, _ = rtx_matrix(lines, "Unidirectional P2P=Disabled Bandwidth Matrix (GB/s)", 0)
    assert _ < part_a_end
    write("validation/rtx4090_8x/p2p_disabled_unidirectional.csv",
          source + ["  run (A), stock driver, P2P not available: 'Unidirectional P2P=Disabled Bandwidth Matrix'",
                    "  (cudaMemcpyPeerAsync is staged through host memory by the driver)",
                    "rows: the 56 off-diagonal cells, src = row, dst = column",
                    "conversion: measured_s = 40,000,000 / (GB/s x 1e9), per copy (as above)"],
          "src,dst,bytes,measured_s",
          [(str(i), str(j), "40000000B", seconds(40e6 / (bw_off[i][j] * 1e9)))
           for i in range(8) for j in range(8) if i != j])


# ---- 8x A100-SXM4-40GB, nccl-tests all_reduce_perf (one process, eight GPUs) ----
def convert_nccl():
    lines = read(NCCL)
    start = next(i for i, l in enumerate(lines) if l.startswith("===== tests/data/nccl_allreduce.log"))
    rows = []
    for line in lines[start + 1:]:
        if line.startswith("====="):
            break
        cells = line.split()
        # size count type redop time algbw busbw error (out-of-place), then the in-place four
        if len(cells) == 12 and cells[0].isdigit() and int(cells[0]) > 0:
            rows.append((cells[0] + "B", seconds(float(cells[4]) * 1e-6)))
    write("validation/a100_nccl/allreduce.csv",
          [f"source: shared/validation/{NCCL}",
           "  (Microsoft SuperBench test fixture tests/data/nccl_allreduce.log, commit 700d6501f110ed17a7016f1b9f2e453926f7b7a1)",
           "hardware: one node, 8x NVIDIA A100-SXM4-40GB (NVSwitch); node type and NCCL version not printed",
           "tool: nccl-tests all_reduce_perf, nThread 1 nGpus 8, float sum, 1 B to 8 GiB by factors of 2,",
           "  warm-up 5, iters 20: the printed time is the mean per all-reduce",
           "rows: every line of the all-reduce table with size > 0 (the two 0-byte lines are dropped)",
           "conversion: bytes = size (B, each rank's buffer); measured_s = out-of-place time (us) x 1e-6"],
          "bytes,measured_s", rows)


# The other collectives of the same file. nccl-tests' `size` is, per rank: the whole output for all_gather (each
# rank contributes size / 8), the whole send buffer for alltoall (size / 8 to each rank), the buffer for
# broadcast and reduce (root 0), the whole send buffer for reduce_scatter (each rank gets size / 8 of the result:
# count is that share in elements). The out-of-place time is the eighth cell from the end of a row whatever
# columns (redop, root) the collective prints.
NCCL_OTHERS = [  # (log name, nccl-tests binary, csv/app name, what a row's bytes column means, size divisor,
    #             smallest size kept: at least one byte per rank)
    ("nccl_allgather.log", "all_gather_perf", "allgather", "each rank's contribution, size / 8; size is the gathered output", 8, 8),
    ("nccl_alltoall.log", "alltoall_perf", "alltoall", "bytes to each rank, size / 8; size is each rank's send buffer", 8, 8),
    ("nccl_broadcast.log", "broadcast_perf", "bcast", "the broadcast buffer, size; root 0", 1, 1),
    ("nccl_reduce.log", "reduce_perf", "reduce", "the reduced buffer, size; root 0", 1, 1),
    ("nccl_reducescatter.log", "reduce_scatter_perf", "reduce_scatter",
     "each rank's whole send buffer, size; each rank ends with size / 8 of the sum", 1, 8),
]


def convert_nccl_others():
    lines = read(NCCL)
    for log, binary, name, meaning, divisor, smallest in NCCL_OTHERS:
        start = next(i for i, l in enumerate(lines) if l.startswith(f"===== tests/data/{log}"))
        rows = []
        for line in lines[start + 1:]:
            if line.startswith("=====") or line.startswith("# Avg bus bandwidth"):  # the table ends here
                break
            cells = line.split()
            if len(cells) >= 11 and cells[0].isdigit() and cells[1].isdigit() and int(cells[0]) >= smallest:
                size = int(cells[0])
                assert size % divisor == 0
                rows.append((f"{size // divisor}B", seconds(float(cells[-8]) * 1e-6)))
        write(f"validation/a100_nccl/{name}.csv",
              [f"source: shared/validation/{NCCL}",
               f"  (Microsoft SuperBench test fixture tests/data/{log}, commit 700d6501f110ed17a7016f1b9f2e453926f7b7a1)",
               "hardware: one node, 8x NVIDIA A100-SXM4-40GB (NVSwitch); node type and NCCL version not printed",
               f"tool: nccl-tests {binary}, nThread 1 nGpus 8, float, 1 B to 8 GiB by factors of 2,",
               "  warm-up 5, iters 20: the printed time is the mean per operation",
               "rows: every line of the table whose size gives at least one byte per rank",
               f"conversion: bytes = {meaning}; measured_s = out-of-place time (us) x 1e-6"],
              "bytes,measured_s", rows)


# The second, independent source at the end of the same file: nccl-tests sendrecv_perf on another machine of
# 8 A100 joined by NVLink, each GPU sending `size` to the next and receiving as much from the previous at once.
def convert_sendrecv():
    lines = read(NCCL)
    start = next(i for i, l in enumerate(lines) if l.startswith("./build/sendrecv_perf"))
    rows = []
    for line in lines[start + 1:]:
        cells = line.split()
        if len(cells) == 13 and cells[0].isdigit():  # size count type redop root time algbw busbw #wrong, in-place 4
            rows.append((cells[0] + "B", seconds(float(cells[5]) * 1e-6)))
        elif rows:
            break
    write("validation/a100_nccl/sendrecv_ring.csv",
          [f"source: shared/validation/{NCCL}",
           "  (its 'ADDITIONAL, INDEPENDENT SOURCE': GitHub li-plus/playground, cuda/nccl.md, commit b85070fb449ea55858fed14cf69cefe10592261b)",
           "hardware: 8 A100 joined by NVLink, '600GB/s bi-directional' per GPU (SXM variant and host not stated):",
           "  not the SuperBench node of the other CSVs here",
           "tool: nccl-tests sendrecv_perf -b 128M -e 1G -f 2 -g 8: every GPU sends size to the next and receives",
           "  size from the previous at once",
           "rows: every line of the table",
           "conversion: bytes = size; measured_s = out-of-place time (us) x 1e-6"],
          "bytes,measured_s", rows)


if __name__ == "__main__":
    convert_v100()
    convert_rtx()
    convert_nccl()
    convert_nccl_others()
    convert_sendrecv()

#!/usr/bin/env python3
"""gen_gpmc.py HOSTS OUTDIR: the gpmc side of bench/simgrid_crosscheck.sh: a machine of HOSTS hosts h[0..] on a
two-level fat tree (16 hosts per leaf, 4 spines, 12.5 GB/s links each way, no latency) and an app with one flows
block: an all-to-all of 1 MB per ordered pair, the built-in pattern `all_to_all h[*] 1 MB` (src-major, dst-minor)."""
import os
import sys

hosts = int(sys.argv[1])
outdir = sys.argv[2]
per_leaf = 16
spines = 4
leaves = hosts // per_leaf
m = ["machine ft {", "  arbitration maxmin", "  node {"]
m.append(f"    cpu h[{hosts}]")
m.append(f"    switch leaf[{leaves}]")
m.append(f"    switch spine[{spines}]")
for l in range(leaves):
    sep = ", leaf[%d] <-> " % l
    m.append(f"    link leaf[{l}] <-> " + sep.join(f"h[{l * per_leaf + i}]" for i in range(per_leaf)) + " { bw = 12.5 GB/s }")
    m.append(f"    link leaf[{l}] <-> spine[*] {{ bw = 12.5 GB/s }}")
m += ["  }", "}"]
open(os.path.join(outdir, f"ft{hosts}.gpm"), "w").write("\n".join(m) + "\n")
a = ["app a2a {", "  flows {", "    all_to_all h[*] 1 MB", "  }", "}"]
open(os.path.join(outdir, f"a2a{hosts}.gpm"), "w").write("\n".join(a) + "\n")

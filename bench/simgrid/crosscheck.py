#!/usr/bin/env python3
"""crosscheck.py GPMC ALLTOALL WORKDIR HOSTS...: runs the all-to-all of bench/simgrid_crosscheck.sh in gpmc and in
SimGrid at each host count and prints per size the median wall and CPU time of each whole process and the largest
relative difference between the two per-flow completion times. Runs each tool three times below 512 hosts, once
from 512 on. SimGrid is stopped after SIMGRID_TIMEOUT seconds (default 3600); gpmc's time and its own per-flow times
are still reported then."""
import csv
import os
import resource
import statistics
import subprocess
import sys
import time

gpmc, alltoall, work = sys.argv[1], sys.argv[2], sys.argv[3]
here = os.path.dirname(os.path.abspath(__file__))
simgrid_timeout = float(os.environ.get("SIMGRID_TIMEOUT", "3600"))


def timed(command, timeout=None):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.monotonic()
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        done = None
    wall = time.monotonic() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, done


print(f"{'hosts':>6} {'flows':>9}  {'gpmc wall / cpu (s)':>20}  {'SimGrid wall / cpu (s)':>23}  result")
for hosts in [int(h) for h in sys.argv[4:]]:
    subprocess.run([sys.executable, os.path.join(here, "gen_gpmc.py"), str(hosts), work], check=True)
    platform = os.path.join(work, f"p{hosts}.xml")
    with open(platform, "w") as out:
        subprocess.run(["bash", os.path.join(here, "platform.sh"), str(hosts)], stdout=out, check=True)
    flows_csv = os.path.join(work, f"flows{hosts}.csv")
    g_times, s_times = [], []
    s = None
    for _ in range(3 if hosts < 512 else 1):
        g_wall, g_cpu, g = timed([gpmc, "eval", os.path.join(work, f"ft{hosts}.gpm"), os.path.join(work, f"a2a{hosts}.gpm"),
                                  "--flows-out", flows_csv])
        g_times.append((g_wall, g_cpu))
        s_wall, s_cpu, s = timed([alltoall, platform, str(hosts), "1000000", "--cfg=network/model:CM02",
                                  "--cfg=network/crosstraffic:0", "--log=root.threshold:warning"], simgrid_timeout)
        s_times.append((s_wall, s_cpu))
    gw, gc = statistics.median(t[0] for t in g_times), statistics.median(t[1] for t in g_times)
    sw, sc = statistics.median(t[0] for t in s_times), statistics.median(t[1] for t in s_times)
    if g.returncode != 0:
        result = "gpmc refused: " + g.stderr.splitlines()[0]
    elif s is None:
        result = f"SimGrid stopped after {simgrid_timeout:.0f} s; gpmc at least {sw / gw:.0f}x faster"
    elif s.returncode != 0:
        result = "SimGrid failed: " + (s.stderr.splitlines() or ["?"])[-1]
    else:
        ends = {}
        with open(flows_csv) as f:
            for row in csv.DictReader(f):
                ends[(int(row["src"][2:-1]), int(row["dst"][2:-1]))] = float(row["end_s"])
        worst = 0.0
        for line in s.stdout.splitlines():
            a, b, e = line.split(",")
            e = float(e)
            worst = max(worst, abs(ends[(int(a), int(b))] - e) / e)
        result = f"max relative difference {worst:.3g} over {len(ends)} flows; SimGrid / gpmc wall {sw / gw:.2f}x"
    print(f"{hosts:>6} {hosts * (hosts - 1):>9}  {gw:>9.3f} / {gc:<8.3f}  {sw:>10.3f} / {sc:<10.3f}  {result}",
          flush=True)

#!/usr/bin/env python3
# flows_source.py: CPU time of flows written one per line in the source (a fat-tree all-to-all), against one pattern.
"""Usage: python3 bench/flows_source.py GPMC [HOSTS...] [--runs N]

For each HOSTS (default 64), writes the all-to-all of bench/simgrid_crosscheck.sh (1 MB per ordered pair on the
two-level fat tree of bench/simgrid/gen_gpmc.py: 16 hosts per leaf, 4 spines) twice: as one `flows` block of
HOSTS x (HOSTS - 1) lines `h[i] -> h[j] 1 MB`, and as the one line `all_to_all h[*] 1 MB`. Runs `GPMC dump-ast` of the
lines (the parse alone), `GPMC eval` of each form, and `GPMC eval` of the lines again with `--max-flows` one below
their count (refused: how early), N times each (default 3), and prints the median CPU time (user + system, from the
kernel's rusage of the child) and peak resident memory, and the cost per line: (eval of the lines - eval of the
pattern) / lines. Sources over the default 8 MiB limit are run with `--max-source-bytes` raised to fit. The two evals
must print the same total; the script fails otherwise.
"""
import os
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_LIMIT = 8 << 20


def measure(argv):
    """Runs argv once; returns (exit status, CPU seconds, peak RSS in MB, stdout)."""
    with tempfile.TemporaryFile() as out, open(os.devnull, "wb") as null:
        proc = subprocess.Popen(argv, stdout=out, stderr=null)
        _, status, usage = os.wait4(proc.pid, 0)
        out.seek(0)
        text = out.read().decode()
    return os.waitstatus_to_exitcode(status), usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024.0, text


def median_run(argv, runs, want_status=0):
    samples = [measure(argv) for _ in range(runs)]
    for status, _, _, _ in samples:
        if status != want_status:
            sys.exit(f"flows_source.py: `{' '.join(argv)}` exited with {status}, expected {want_status}")
    return statistics.median(s[1] for s in samples), statistics.median(s[2] for s in samples), samples[0][3]


def total_line(text):
    return next((line for line in text.splitlines() if line.startswith("total:")), "")


def main():
    args = sys.argv[1:]
    runs = 3
    if "--runs" in args:
        k = args.index("--runs")
        runs = int(args[k + 1])
        del args[k:k + 2]
    if not args:
        sys.exit(__doc__)
    gpmc = os.path.abspath(args[0])
    sizes = [int(h) for h in args[1:]] or [64]
    # A gpmc from before the limits were options (for a baseline): no refusal timed, no source over 8 MiB.
    options = "--max-flows" in subprocess.run([gpmc, "eval", "--help"], capture_output=True, text=True).stdout
    print("| hosts | flow lines | source | parse (dump-ast) | eval, lines | eval, pattern | per line | refused at "
          "--max-flows lines-1 |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|")
    with tempfile.TemporaryDirectory() as work:
        for hosts in sizes:
            subprocess.run([sys.executable, os.path.join(HERE, "simgrid", "gen_gpmc.py"), str(hosts), work], check=True)
            machine = os.path.join(work, f"ft{hosts}.gpm")
            pattern = os.path.join(work, f"a2a{hosts}.gpm")
            lines = os.path.join(work, f"lines{hosts}.gpm")
            count = hosts * (hosts - 1)
            with open(lines, "w") as f:
                f.write("app a2a {\n  flows {\n")
                for s in range(hosts):
                    f.write("".join(f"    h[{s}] -> h[{d}] 1 MB\n" for d in range(hosts) if d != s))
                f.write("  }\n}\n")
            size = os.path.getsize(lines)
            limit = [] if size <= DEFAULT_LIMIT else [f"--max-source-bytes={size}"]
            if limit and not options:
                print(f"| {hosts:,} | {count:,} | {size / 1e6:.2f} MB | over the 8 MiB limit | | | | |")
                continue
            parse_cpu, _, _ = median_run([gpmc, "dump-ast", lines] + limit, runs)
            lines_cpu, lines_mb, lines_out = median_run([gpmc, "eval", machine, lines] + limit, runs)
            pattern_cpu, _, pattern_out = median_run([gpmc, "eval", machine, pattern], runs)
            refused = "n/a"
            if options:
                refused_cpu, _, _ = median_run([gpmc, "eval", machine, lines, f"--max-flows={count - 1}"] + limit, runs, 1)
                refused = f"{refused_cpu:.3f} s"
            if total_line(lines_out) != total_line(pattern_out) or not total_line(lines_out):
                sys.exit(f"flows_source.py: {hosts} hosts: `{total_line(lines_out)}` (lines) != "
                         f"`{total_line(pattern_out)}` (pattern)")
            per_line = (lines_cpu - pattern_cpu) / count * 1e6
            print(f"| {hosts:,} | {count:,} | {size / 1e6:.2f} MB | {parse_cpu:.3f} s | {lines_cpu:.3f} s, "
                  f"{lines_mb:.0f} MB | {pattern_cpu:.3f} s | {per_line:.1f} us | {refused} |", flush=True)


if __name__ == "__main__":
    main()

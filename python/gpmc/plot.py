"""gpmc.plot: plots of gpmc's results with matplotlib, from Python or as `python3 -m gpmc.plot KIND INPUT -o OUT`.

  sweep       a sweep's curve: any column (total_s, a phase) against any varied parameter, one line per value of
              the others; log axes where the values are geometric; --rate plots x / column (bytes / s: bandwidth)
  strategies  `gpmc eval --compare strategy --format json` as bars, fastest first
  search      a search's order times as a histogram, fastest, median and slowest marked (`gpmc search
              --orders-out FILE.csv`, or gpmc.search(..., makespans=True))
  timeline    `gpmc eval --timeline FILE.json` as a Gantt chart, one row per track

INPUT is a file gpmc wrote (CSV or JSON; `-` reads standard input) or, from Python, the Result gpmc's functions
return. OUT ends in .png or .svg; the same input gives the same bytes (no dates, a fixed SVG hash salt).
"""
import argparse
import csv
import io
import json
import math
import sys

__all__ = ["sweep", "strategies", "search", "timeline", "main"]


def _pyplot():
    try:
        import matplotlib.pyplot as plt
    except ImportError as e:
        raise ImportError("gpmc.plot needs matplotlib (apt-get install python3-matplotlib)") from e
    return plt


def _read_text(source):
    if source == "-":
        return sys.stdin.read()
    with open(source, encoding="utf-8") as f:
        return f.read()


def _load_json(source):
    if isinstance(source, dict):
        return source
    return json.loads(_read_text(source))


def _save(fig, output):
    """Writes the figure when `output` is given (PNG or SVG, by extension) and returns it. The file is the same for the
    same figure: no dates, SVG ids from a fixed salt, text as paths."""
    if output:
        import matplotlib
        plt = _pyplot()
        kind = str(output).rsplit(".", 1)[-1].lower()
        if kind not in ("png", "svg"):
            raise ValueError(f"{output}: the output is a .png or an .svg file")
        metadata = {"Date": None, "Creator": "gpmc.plot"} if kind == "svg" else {"Software": "gpmc.plot"}
        with matplotlib.rc_context({"svg.hashsalt": "gpmc", "svg.fonttype": "path"}):
            fig.savefig(output, format=kind, metadata=metadata, dpi=100)
        plt.close(fig)
    return fig


# ---- sweeps ----

def _sweep_table(source):
    """(axes, columns, rows) of a sweep: the varied parameters' names, every value column (total_s, the phases),
    and one dict per valid point (words as strings, numbers as floats)."""
    text = None if isinstance(source, dict) else _read_text(source)
    if text is None or text.lstrip().startswith("{"):  # gpmc sweep --format json, or gpmc.sweep()'s result
        doc = source if text is None else json.loads(text)
        axes = [a["name"] for a in doc["varied"]]
        columns = ["total_s"] + list(doc["phases"])
        rows = []
        for p in doc["points"]:
            if p.get("error") or p["total_s"] is None:
                continue
            row = {a: p[a] for a in axes}
            row.update(zip(columns, [p["total_s"]] + list(p["phases_s"])))
            rows.append(row)
        return axes, columns, rows
    reader = csv.reader(io.StringIO(text))
    header = next(reader, [])
    if "total_s" not in header:
        raise ValueError(f"{source}: not a gpmc sweep CSV (no total_s column)")
    split = header.index("total_s")
    # After the times: `chosen` (the nccl model's algorithm and protocol) and `error` are words, not values.
    axes, columns = header[:split], [c for c in header[split:] if c not in ("error", "chosen")]
    rows = []
    for cells in reader:
        record = dict(zip(header, cells))
        if record.get("error") or record["total_s"] == "":
            continue
        row = {}
        for a in axes:
            try:
                row[a] = float(record[a])
            except ValueError:
                row[a] = record[a]  # a word parameter
        row.update({c: float(record[c]) for c in columns})
        rows.append(row)
    return axes, columns, rows


def _geometric(values):
    """The common ratio of sorted positive values spaced geometrically (ratio > 1), else None."""
    xs = sorted(set(values))
    if len(xs) < 3 or any(not isinstance(x, float) or x <= 0 for x in xs):
        return None
    ratios = [b / a for a, b in zip(xs, xs[1:])]
    r = ratios[0]
    if r <= 1.5 or any(abs(q / r - 1) > 1e-6 for q in ratios[:-1]):
        return None  # the last step may be shorter (a range whose end is not a power of the factor)
    return r


def _unit_label(name):
    return name[:-2] + " (s)" if name.endswith("_s") else name + " (s)"


def sweep(source, output=None, x=None, y="total_s", rate=False, title=None):
    """Plots column `y` (total_s or a phase) against varied parameter `x` (the first by default), one line per
    combination of the other varied parameters. With rate=True the value plotted is x / y (bytes / s: the effective
    bandwidth). Log axes where x is geometric (base 2 when its ratio is a power of two). Returns the Figure."""
    plt = _pyplot()
    axes, columns, rows = _sweep_table(source)
    if not axes:
        raise ValueError("the sweep varies no parameter")
    x = x or axes[0]
    if x not in axes:
        raise ValueError(f"--x {x}: not a varied parameter (varied: {', '.join(axes)})")
    if y not in columns:
        raise ValueError(f"--y {y}: not a column of the sweep ({', '.join(columns)})")
    if not rows:
        raise ValueError("the sweep has no valid point to plot")
    others = [a for a in axes if a != x]
    groups = {}
    for row in rows:
        groups.setdefault(tuple(row[a] for a in others), []).append(row)
    words = any(isinstance(row[x], str) for row in rows)
    ratio = None if words else _geometric([row[x] for row in rows])
    fig, ax = plt.subplots(figsize=(7, 4.5))
    positions = {}
    if words:
        for row in rows:
            positions.setdefault(row[x], len(positions))
    for key, members in groups.items():
        members = sorted(members, key=lambda r: positions.get(r[x], 0) if words else r[x])
        xs = [positions[r[x]] if words else r[x] for r in members]
        ys = [(r[x] / r[y] if r[y] else float("nan")) if rate else r[y] for r in members]
        label = ", ".join(f"{a}={_format(v)}" for a, v in zip(others, key)) or None
        ax.plot(xs, ys, marker="o", markersize=3, linewidth=1.2, label=label)
    if words:
        ax.set_xticks(list(positions.values()), list(positions.keys()))
    elif ratio:
        ax.set_xscale("log", base=2 if abs(math.log2(ratio) - round(math.log2(ratio))) < 1e-9 else 10)
    values = [(r[x] / r[y] if r[y] else 0) if rate else r[y] for r in rows]
    positive = [v for v in values if v > 0]
    if ratio and positive and max(positive) / min(positive) > 100:
        ax.set_yscale("log")
    ax.set_xlabel(x)
    ax.set_ylabel(f"{x} / {y} (per second)" if rate else _unit_label(y))
    ax.set_title(title or (f"{x} / {y} against {x}" if rate else f"{y} against {x}"))
    ax.grid(True, which="major", linewidth=0.5, alpha=0.5)
    if len(groups) > 1:
        ax.legend(fontsize="small")
    fig.tight_layout()
    return _save(fig, output)


def _format(value):
    return value if isinstance(value, str) else f"{value:g}"


# ---- strategies ----

def strategies(source, output=None, title=None):
    """`gpmc eval --compare strategy --format json` (or gpmc.compare_strategies) as horizontal bars, fastest on top,
    each labelled with its time and its ratio to the fastest. Returns the Figure."""
    plt = _pyplot()
    doc = _load_json(source)
    ranked = doc.get("strategies")
    if not ranked:
        raise ValueError("no `strategies` list: write it with gpmc eval --compare strategy --format json")
    fig, ax = plt.subplots(figsize=(7, 0.6 * len(ranked) + 1.5))
    names = [s["name"] for s in ranked]
    times = [s["total_s"] for s in ranked]
    scale, unit = _time_scale(max(times))
    bars = ax.barh(range(len(ranked)), [t * scale for t in times], color=["#2a7ab9"] + ["#9bbcd6"] * (len(ranked) - 1))
    ax.set_yticks(range(len(ranked)), names)
    ax.invert_yaxis()  # fastest on top
    for bar, t in zip(bars, times):
        ax.text(bar.get_width(), bar.get_y() + bar.get_height() / 2, f" {t * scale:.4g} {unit}  {t / times[0]:.3f}x",
                va="center", fontsize="small")
    ax.set_xlim(0, max(times) * scale * 1.35)
    ax.set_xlabel(f"total ({unit})")
    ax.set_title(title or f"{doc.get('app', '')} on {doc.get('machine', '')}: offload strategies")
    fig.tight_layout()
    return _save(fig, output)


def _time_scale(seconds):
    for scale, unit in ((1, "s"), (1e3, "ms"), (1e6, "us"), (1e9, "ns")):
        if seconds * scale >= 1:
            return scale, unit
    return 1e9, "ns"


# ---- search ----

def _makespans(source):
    """Every order's makespan: a gpmc.search(..., makespans=True) result, or a --orders-out CSV."""
    if isinstance(source, dict):
        if "makespans" not in source:
            raise ValueError("the search result has no makespans: call gpmc.search(..., makespans=True)")
        return list(source["makespans"])
    lines = [line for line in _read_text(source).splitlines() if line and not line.startswith("#")]
    if not lines or lines[0] != "order,makespan_s":
        raise ValueError(f"{source}: not a gpmc search --orders-out file (header order,makespan_s)")
    return [float(line.split(",")[1]) for line in lines[1:]]


def search(source, output=None, bins=None, title=None):
    """The order times of a search as a histogram, with the fastest, median and slowest orders marked. Returns the
    Figure."""
    plt = _pyplot()
    times = _makespans(source)
    if not times:
        raise ValueError("the search has no orders")
    ordered = sorted(times)
    fastest, slowest = ordered[0], ordered[-1]
    median = ordered[(len(ordered) - 1) // 2] if len(ordered) % 2 else (ordered[len(ordered) // 2 - 1] +
                                                                        ordered[len(ordered) // 2]) / 2
    scale, unit = _time_scale(slowest)
    fig, ax = plt.subplots(figsize=(7, 4.5))
    count = bins or max(10, min(100, int(math.sqrt(len(times)))))
    ax.hist([t * scale for t in times], bins=count, color="#9bbcd6", edgecolor="#2a7ab9", linewidth=0.5)
    for value, name, colour in ((fastest, "fastest", "#1a9641"), (median, "median", "#555555"),
                                (slowest, "slowest", "#d7191c")):
        ax.axvline(value * scale, color=colour, linestyle="--" if name == "median" else "-", linewidth=1.2,
                   label=f"{name} {value * scale:.4g} {unit}")
    ax.set_xlabel(f"makespan ({unit})")
    ax.set_ylabel("orders")
    ax.set_title(title or f"{len(times)} orders: slowest / fastest {slowest / fastest:.3f}x")
    ax.legend(fontsize="small")
    fig.tight_layout()
    return _save(fig, output)


# ---- timeline ----

def timeline(source, output=None, title=None):
    """A Chrome trace (gpmc eval --timeline FILE.json, gpmc.timeline) as a Gantt chart: one row per track (process
    and thread names), one bar per complete event, coloured by category. Returns the Figure."""
    plt = _pyplot()
    doc = _load_json(source)
    events = doc["traceEvents"] if isinstance(doc, dict) else doc
    processes, threads, tracks, bars = {}, {}, [], []
    for e in events:
        if e.get("ph") == "M" and e.get("name") == "process_name":
            processes[e["pid"]] = e["args"]["name"]
        elif e.get("ph") == "M" and e.get("name") == "thread_name":
            threads[(e["pid"], e["tid"])] = e["args"]["name"]
    for e in events:
        if e.get("ph") != "X":
            continue
        key = (e["pid"], e.get("tid", 0))
        if key not in tracks:
            tracks.append(key)
        bars.append((key, e["ts"], e.get("dur", 0), e.get("cat", ""), e.get("name", "")))
    if not bars:
        raise ValueError("the timeline has no events")
    tracks.sort()
    row = {key: k for k, key in enumerate(tracks)}
    end_us = max(ts + dur for _, ts, dur, _, _ in bars)
    scale, unit = _time_scale(end_us * 1e-6)
    categories = sorted({cat for _, _, _, cat, _ in bars})
    palette = plt.get_cmap("tab10")
    colour = {cat: palette(k % 10) for k, cat in enumerate(categories)}
    fig, ax = plt.subplots(figsize=(9, 0.45 * len(tracks) + 1.8))
    for key, ts, dur, cat, name in bars:
        left, width = ts * 1e-6 * scale, dur * 1e-6 * scale
        ax.barh(row[key], width, left=left, height=0.7, color=colour[cat], edgecolor="white", linewidth=0.3)
        if width > end_us * 1e-6 * scale * 0.08:
            ax.text(left + width / 2, row[key], name, ha="center", va="center", fontsize=6, clip_on=True)
    labels = []
    for pid, tid in tracks:
        process, thread = processes.get(pid, f"process {pid}"), threads.get((pid, tid))
        labels.append(f"{_shorten(process)}: {thread}" if thread else _shorten(process))
    ax.set_yticks(range(len(tracks)), labels, fontsize="small")
    ax.invert_yaxis()
    ax.set_xlabel(f"time ({unit})")
    handles = [plt.Rectangle((0, 0), 1, 1, color=colour[c]) for c in categories]
    ax.legend(handles, [c or "(none)" for c in categories], fontsize="small", loc="upper left", bbox_to_anchor=(1.01, 1))
    ax.set_title(title or processes.get(tracks[0][0], "timeline"))
    fig.tight_layout()
    return _save(fig, output)


def _shorten(text, width=40):
    return text if len(text) <= width else text[:width - 3] + "..."


# ---- the command line ----

def main(argv=None):
    parser = argparse.ArgumentParser(prog="python3 -m gpmc.plot", description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    kinds = parser.add_subparsers(dest="kind", required=True)
    p = kinds.add_parser("sweep", help="a sweep's curve (gpmc sweep CSV or --format json)")
    p.add_argument("--x", help="the varied parameter on the x axis (default: the first)")
    p.add_argument("--y", default="total_s", help="the column plotted (default total_s; or a phase's name)")
    p.add_argument("--rate", action="store_true", help="plot x / y (bytes / s: the effective bandwidth)")
    kinds.add_parser("strategies", help="gpmc eval --compare strategy --format json as bars")
    p = kinds.add_parser("search", help="the order times of gpmc search --orders-out as a histogram")
    p.add_argument("--bins", type=int, help="histogram bins (default: the square root of the orders, 10 to 100)")
    kinds.add_parser("timeline", help="gpmc eval --timeline FILE.json as a Gantt chart")
    for sub in kinds.choices.values():
        sub.add_argument("input", help="the file gpmc wrote (- reads standard input)")
        sub.add_argument("-o", "--output", required=True, help="the plot, a .png or .svg file")
        sub.add_argument("--title", help="the plot's title (default: what it shows)")
    args = parser.parse_args(argv)
    try:
        import matplotlib
    except ImportError:
        print("gpmc.plot: error: matplotlib is not installed (apt-get install python3-matplotlib)", file=sys.stderr)
        return 1
    matplotlib.use("Agg")  # files only: no window, whatever the environment
    try:
        if args.kind == "sweep":
            sweep(args.input, args.output, x=args.x, y=args.y, rate=args.rate, title=args.title)
        elif args.kind == "strategies":
            strategies(args.input, args.output, title=args.title)
        elif args.kind == "search":
            search(args.input, args.output, bins=args.bins, title=args.title)
        else:
            timeline(args.input, args.output, title=args.title)
    except (OSError, ValueError, KeyError, json.JSONDecodeError) as e:
        print(f"gpmc.plot: error: {e}", file=sys.stderr)
        return 1
    print(f"wrote {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

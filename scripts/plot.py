#!/usr/bin/python3
"""Charts from collsim's JSON output (Debian's python3-matplotlib).

  collsim run scenarios/capacity-plan.yaml --format json --out plan.json
  /usr/bin/python3 scripts/plot.py plan.json --out plan.png      # or .svg

A training study gives step-time stacked bars (compute, exposed
communication) per point and, when the number of devices varies, scaling
curves (samples/s and scaling efficiency against devices). A collective
scenario gives bus bandwidth and time against message size, one line per
algorithm; a collective study (sweep: or variants:) a line per algorithm and
point, and bus bandwidth at the largest size against the first swept key.
`collsim compare` or `calibrate` output (--format json) gives measured and
predicted bus bandwidth against size, with the error per size below.
`collsim plan` output gives the step of the best layouts (at most 20 per
device count) broken down into compute, communication waits and the
pipeline bubble, and with several device counts the best tokens/s against
devices.
"""
import argparse
import json
import sys
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")  # files only, no display
import matplotlib.pyplot as plt  # noqa: E402


def layout_text(l):
    text = f"tp{l['tp']} pp{l['pp']} dp{l['dp']}"
    if l.get("ep", 1) > 1:
        text += f" ep{l['ep']}"
    if l.get("zero"):
        text += f" z{l['zero']}"
    return text


def point_label(p):
    parts = [p["variant"]] if p.get("variant") else []
    parts += [f"{k.split('.')[-1]}={v}" for k, v in p.get("sweep", {}).items()]
    parts.append(p["algorithm"])
    if p.get("layout"):
        parts.append(layout_text(p["layout"]))
    return "\n".join(parts)


PLAN_PARTS = [("compute_ms", "compute"), ("tp_ms", "TP"), ("ep_ms", "EP"), ("pp_ms", "pipeline transfers"),
              ("bubble_ms", "bubble"), ("dp_ms", "DP / ZeRO"), ("optimizer_ms", "optimizer")]


def plan_shown(doc):
    shown, per = [], defaultdict(int)
    for p in doc["plans"]:
        if p.get("status") == "ok" and per[p["devices"]] < 20:
            per[p["devices"]] += 1
            shown.append(p)
    return shown


def plot_plan(doc, fig):
    shown = plan_shown(doc)
    devices = sorted({p["devices"] for p in shown})
    panels = 2 if len(devices) > 1 else 1
    ax = fig.add_subplot(1, panels, 1)
    x = list(range(len(shown)))
    bottom = [0.0] * len(shown)
    for key, label in PLAN_PARTS:
        values = [p["breakdown"][key] / 1e3 for p in shown]
        if any(values):
            ax.bar(x, values, bottom=bottom, label=label)
            bottom = [b + v for b, v in zip(bottom, values)]
    labels = [layout_text(p) + f"\nmb{p['micro_batch']}" + (f"\n{p['devices']} dev" if panels == 2 else "") for p in shown]
    ax.set_xticks(x)
    ax.set_xticklabels(labels, fontsize=7, rotation=90 if len(shown) > 8 else 0)
    ax.set_ylabel("step time (s)")
    ax.set_title(f"{doc['name']}: {doc['model']} on {doc['cluster']}, best layouts first")
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    if panels == 2:
        ax2 = fig.add_subplot(1, 2, 2)
        best = [max(p["tokens_per_s"] or 0 for p in shown if p["devices"] == d) for d in devices]
        ax2.plot(devices, best, marker="o")
        ax2.set_xscale("log", base=2)
        ax2.set_xlabel("devices")
        ax2.set_ylabel("tokens/s (best layout)")
        ax2.set_title("throughput")


def plot_training(doc, fig):
    points = doc["points"]
    devices = sorted({p["devices"] for p in points})
    panels = 2 if len(devices) > 1 else 1
    # Two panels one above the other: the bars keep the figure's whole width.
    ax = fig.add_subplot(panels, 1, 1)
    labels = [point_label(p) for p in points]
    compute = [p["compute_us"] / 1e3 for p in points]
    exposed = [p["exposed_communication_us"] / 1e3 for p in points]
    x = range(len(points))
    ax.bar(x, compute, label="compute")
    ax.bar(x, exposed, bottom=compute, label="exposed communication")
    ax.set_xticks(list(x))
    ax.set_xticklabels(labels, fontsize=7 if len(points) <= 24 else 5, rotation=90 if len(points) > 8 else 0)
    ax.set_ylabel("step time (ms)")
    clusters = sorted({p["cluster"] for p in points if p.get("cluster")})
    ax.set_title(f"{doc['name']}: step time on {', '.join(clusters)}")
    ax.legend()
    if panels == 2:
        ax2 = fig.add_subplot(2, 1, 2)
        series = defaultdict(list)  # everything but the device count names a curve
        for p in points:
            key = tuple((k, v) for k, v in p.get("sweep", {}).items() if "servers" not in k and "devices" not in k)
            # The configured algorithm ("auto"), not the selector's pick at each point.
            configured = p["algorithm"].split(":")[0] if p["algorithm"].startswith("auto:") else p["algorithm"]
            layout = layout_text(p["layout"]) if p.get("layout") else ""
            series[(p.get("variant", ""), configured, layout) + key].append(p)
        for key, ps in series.items():
            ps.sort(key=lambda p: p["devices"])
            name = " ".join(str(k) if not isinstance(k, tuple) else f"{k[0].split('.')[-1]}={k[1]}" for k in key if k)
            ax2.plot([p["devices"] for p in ps], [100 * p["scaling_efficiency"] for p in ps], marker="o", label=name)
        ax2.set_xscale("log", base=2)
        ax2.set_xlabel("devices")
        ax2.set_ylabel("scaling efficiency (%)")
        ax2.set_ylim(0, 105)
        ax2.set_title("scaling")
        ax2.legend(fontsize=7)


def swept_value(v):
    """A swept value as a number when it reads as one (for the x axis)."""
    try:
        return float(v)
    except (TypeError, ValueError):
        return None


def point_of(r, keys):
    """The variant and swept keys that name a study point (without the key
    names' prefixes)."""
    parts = [r["variant"]] if r.get("variant") else []
    return " ".join(parts + [f"{k.split('.')[-1]}={r['sweep'][k]}" for k in keys])


def curve_label(r, keys):
    return " ".join(filter(None, [point_of(r, keys), r["algorithm"]]))


def line_styles(results, keys):
    """A colour per algorithm, a line style and marker per study point, so a
    study's many lines stay apart."""
    algorithms = list(dict.fromkeys(r["algorithm"] for r in results))
    points = list(dict.fromkeys(point_of(r, keys) for r in results))

    def style(r):
        point = points.index(point_of(r, keys))
        return dict(color=f"C{algorithms.index(r['algorithm']) % 10}", linestyle=["-", "--", ":", "-."][point % 4],
                    marker="osv^Dx"[point // 4 % 6], markersize=3)
    return style


def size_axis(ax, sizes):
    """Log-2 size axis with human ticks (64K, 1M, 1G), at most 9 of them."""
    ax.set_xscale("log", base=2)
    ticks = sorted(set(sizes))
    ticks = ticks[:: max(1, -(-len(ticks) // 9))]
    ax.set_xticks(ticks)
    ax.set_xticklabels([human_bytes(t) for t in ticks])
    ax.minorticks_off()
    ax.set_xlabel("message size")


def legend_outside(ax, lines, results=None):
    """Right of the panel, so it never hides a line. Past 24 lines a legend
    would outgrow the figure: then it names the algorithms' colours only."""
    if lines <= 1:
        return
    if lines <= 24 or results is None:
        ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0))
        return
    from matplotlib.lines import Line2D
    algorithms = list(dict.fromkeys(r["algorithm"] for r in results))
    handles = [Line2D([], [], color=f"C{i % 10}", label=a) for i, a in enumerate(algorithms)]
    handles.append(Line2D([], [], color="grey", linestyle="--", label=f"line style: study point ({lines} lines)"))
    ax.legend(handles=handles, fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0))


def plot_collective(doc, fig, rows):
    """Bus bandwidth and time against size, a line per algorithm (and per
    study point); a study also gets its metric against the first swept key."""
    results = [r for r in doc["results"] if r.get("status", "ok") == "ok"]
    keys = doc.get("sweep_keys", [])
    lines = defaultdict(list)
    for r in results:
        lines[curve_label(r, keys)].append(r)
    style = line_styles(results, keys)
    op = results[0]["op"]
    cluster = doc["cluster"]["name"] if isinstance(doc.get("cluster"), dict) else doc.get("cluster", "")
    swept = f", swept: {', '.join(keys)}" if keys else ""
    fig.suptitle(f"{doc['name']}: {op} on {cluster}{swept}")
    bw, time = fig.add_subplot(rows, 2, 1), fig.add_subplot(rows, 2, 2)
    for label, rs in lines.items():
        rs.sort(key=lambda r: r["bytes"])
        bw.plot([r["bytes"] for r in rs], [r["busbw_GBps"] for r in rs], label=label, **style(rs[0]))
        time.plot([r["bytes"] for r in rs], [r["time_us"] for r in rs], label=label, **style(rs[0]))
    sizes = [r["bytes"] for r in results]
    for ax in (bw, time):
        size_axis(ax, sizes)
    bw.set_ylabel("bus bandwidth (GB/s)")
    bw.set_title("bus bandwidth")
    time.set_ylabel("time (us)")
    time.set_yscale("log")
    time.set_title("time")
    legend_outside(time, len(lines), results)
    if rows == 2:
        plot_sweep_comparison(fig.add_subplot(2, 2, 3), results, keys)


def plot_sweep_comparison(ax, results, keys):
    """Bus bandwidth at the largest size against the first swept key, a line
    per algorithm (and per value of the other keys)."""
    key, largest = keys[0], max(r["bytes"] for r in results)
    lines = defaultdict(list)
    for r in results:
        if r["bytes"] == largest:
            lines[curve_label(r, keys[1:])].append(r)
    style = line_styles(results, keys[1:])
    values = sorted({r["sweep"][key] for r in results}, key=lambda v: (swept_value(v) is None, swept_value(v), v))
    numeric = all(swept_value(v) is not None for v in values)
    position = {v: swept_value(v) if numeric else i for i, v in enumerate(values)}
    for label, rs in lines.items():
        rs.sort(key=lambda r: position[r["sweep"][key]])
        ax.plot([position[r["sweep"][key]] for r in rs], [r["busbw_GBps"] for r in rs], label=label, **style(rs[0]))
    if numeric and min(position.values()) > 0 and max(position.values()) / min(position.values()) >= 8:
        ax.set_xscale("log", base=2)
    ax.set_xticks([position[v] for v in values])
    ax.set_xticklabels(values, rotation=90 if len(values) > 12 else 0)
    ax.minorticks_off()
    ax.set_xlabel(key)
    ax.set_ylabel("bus bandwidth (GB/s)")
    ax.set_title(f"at {human_bytes(largest)} against {key}")
    legend_outside(ax, len(lines), results)


BUS_FACTOR = {"allreduce": lambda p: 2 * (p - 1) / p, "reducescatter": lambda p: (p - 1) / p,
              "allgather": lambda p: (p - 1) / p, "alltoall": lambda p: (p - 1) / p,
              "broadcast": lambda p: 1.0, "reduce": lambda p: 1.0}


def human_bytes(b):
    """64K, 1M, 1G; a size that is no whole unit keeps three digits (1.27G)."""
    for unit, size in (("G", 1 << 30), ("M", 1 << 20), ("K", 1 << 10)):
        if b >= size:
            return f"{b // size}{unit}" if b % size == 0 else f"{b / size:.3g}{unit}"
    return str(b)


def plot_comparison(doc, fig):
    """collsim compare / calibrate --format json: measured and predicted bus
    bandwidth against size, and the two-point line, with the error below."""
    factor = BUS_FACTOR.get(doc["op"], lambda p: 1.0)(doc["ranks"])
    points = sorted(doc["points"], key=lambda p: p["bytes"])
    sizes = [p["bytes"] for p in points]
    busbw = lambda key: [p["bytes"] / (p[key] * 1e-6) / 1e9 * factor for p in points]  # noqa: E731
    ax = fig.add_subplot(2, 1, 1)
    ax.plot(sizes, busbw("measured_us"), marker="o", label=f"measured ({doc['tool']})")
    ax.plot(sizes, busbw("predicted_us"), marker="s", label=f"collsim: {doc['algorithm']} ({doc['library']})")
    ax.plot(sizes, busbw("line_us"), linestyle="--", color="grey", label="two-point line")
    ax.set_ylabel("bus bandwidth (GB/s)")
    ax.set_title(f"{doc['op']} on {doc['cluster']}: measured {doc['measured'].split('/')[-1]}")
    ax.legend(fontsize=8)
    err = fig.add_subplot(2, 1, 2, sharex=ax)
    err.axhline(0, color="black", linewidth=0.5)
    err.plot(sizes, [100 * p["error"] for p in points], marker="s", label="collsim")
    err.plot(sizes, [100 * p["line_error"] for p in points], linestyle="--", color="grey", label="two-point line")
    err.set_ylabel("error (%)")
    err.legend(fontsize=8)
    for a in (ax, err):
        size_axis(a, sizes)


def plot_compute_calibration(doc, fig):
    """collsim calibrate RUNS.yaml --format json: each run's error against its
    measured step, before and after the device's compute was fitted."""
    runs = doc["runs"]
    x = range(len(runs))
    ax = fig.add_subplot(1, 1, 1)
    ax.axhline(0, color="black", linewidth=0.5)
    ax.plot(x, [100 * r["error_before"] for r in runs], marker="o", linestyle="", label=f"{doc['device']} preset")
    ax.plot(x, [100 * r["error_after"] for r in runs], marker="s", linestyle="", label="fitted")
    ax.set_xticks(list(x))
    ax.set_xticklabels([r["run"] for r in runs], rotation=60, ha="right", fontsize=7)
    ax.set_ylabel("predicted / measured step - 1 (%)")
    fitted = ", ".join(f"{k} {v:.3g}" for k, v in doc["fitted"].items())
    ax.set_title(f"calibrated: {fitted}", fontsize=9)
    ax.legend(fontsize=8)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("json", help="collsim run, plan, compare or calibrate --format json output (a log's or runs')")
    parser.add_argument("--out", required=True, help="chart file, .png or .svg")
    args = parser.parse_args()
    try:
        with open(args.json) as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        sys.exit(f"plot.py: cannot read {args.json}: {e}")
    if doc.get("kind") == "plan":
        if not plan_shown(doc):
            sys.exit(f"plot.py: {args.json} has no simulated layouts to plot")
        wide = len({p["devices"] for p in plan_shown(doc)}) > 1
        fig = plt.figure(figsize=(min(16, max(8, 0.45 * len(plan_shown(doc)) + 4)) * (1.4 if wide else 1), 6))
        plot_plan(doc, fig)
    elif "runs" in doc and "fitted" in doc:  # collsim calibrate RUNS.yaml
        fig = plt.figure(figsize=(min(16, max(8, 0.3 * len(doc["runs"]) + 4)), 6))
        plot_compute_calibration(doc, fig)
    elif "measured" in doc and "points" in doc:  # collsim compare / calibrate
        if not doc["points"]:
            sys.exit(f"plot.py: {args.json} has no sizes to plot")
        fig = plt.figure(figsize=(9, 7))
        plot_comparison(doc, fig)
    else:
        training = doc.get("kind") == "training"
        if not training and "results" not in doc:
            sys.exit(f"plot.py: {args.json} is not collsim run output (no 'points' or 'results')")
        ok = doc["points"] if training else [r for r in doc["results"] if r.get("status", "ok") == "ok"]
        if not ok:
            sys.exit(f"plot.py: {args.json} has no results to plot")
        if training:
            many = len(doc["points"])
            tall = len({p['devices'] for p in doc['points']}) > 1
            # Readable whatever the number of points: at most 16 x 11 inches.
            fig = plt.figure(figsize=(min(16, max(8, 0.35 * many + 4)), 10 if tall else 5.5))
            plot_training(doc, fig)
        else:
            study = bool(doc.get("sweep_keys")) and any(r.get("status", "ok") == "ok" for r in doc["results"])
            fig = plt.figure(figsize=(13, 9.5 if study else 5.5))
            plot_collective(doc, fig, 2 if study else 1)
    fig.tight_layout()
    # No creation date in an SVG: the same JSON gives the same file.
    fig.savefig(args.out, metadata={"Date": None} if args.out.endswith(".svg") else None)
    print(f"plot.py: wrote {args.out}")

if __name__ == "__main__":
    main()

#!/usr/bin/python3
"""Charts from collsim's JSON output (Debian's python3-matplotlib).

  collsim run scenarios/capacity-plan.yaml --format json --out plan.json
  /usr/bin/python3 scripts/plot.py plan.json --out plan.png      # or .svg

A training study gives step-time stacked bars (compute, exposed
communication) per point and, when the number of devices varies, scaling
curves (samples/s and scaling efficiency against devices). A collective
scenario gives bus bandwidth against message size, one line per algorithm.
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
    ax.set_title(f"{doc['name']}: step time")
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


def plot_collective(doc, fig):
    ax = fig.add_subplot(1, 1, 1)
    lines = defaultdict(list)
    for r in doc["results"]:
        lines[r["algorithm"]].append((r["bytes"], r["busbw_GBps"]))
    for algo, pts in lines.items():
        pts.sort()
        ax.plot([b for b, _ in pts], [bw for _, bw in pts], marker="o", label=algo)
    ax.set_xscale("log", base=2)
    ax.set_xlabel("message size (bytes)")
    ax.set_ylabel("bus bandwidth (GB/s)")
    op = doc["results"][0]["op"] if doc["results"] else ""
    ax.set_title(f"{doc['name']}: {op} on {doc['cluster']['name']}")
    ax.legend()


BUS_FACTOR = {"allreduce": lambda p: 2 * (p - 1) / p, "reducescatter": lambda p: (p - 1) / p,
              "allgather": lambda p: (p - 1) / p, "alltoall": lambda p: (p - 1) / p,
              "broadcast": lambda p: 1.0, "reduce": lambda p: 1.0}


def human_bytes(b):
    for unit, size in (("G", 1 << 30), ("M", 1 << 20), ("K", 1 << 10)):
        if b >= size and b % size == 0:
            return f"{b // size}{unit}"
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
    err.set_xlabel("message size")
    err.legend(fontsize=8)
    for a in (ax, err):
        a.set_xscale("log", base=2)
        ticks = sizes[:: max(1, len(sizes) // 8)]
        a.set_xticks(ticks)
        a.set_xticklabels([human_bytes(t) for t in ticks])


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("json", help="collsim run, plan, compare or calibrate --format json output")
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
    elif "measured" in doc and "points" in doc:  # collsim compare / calibrate
        if not doc["points"]:
            sys.exit(f"plot.py: {args.json} has no sizes to plot")
        fig = plt.figure(figsize=(9, 7))
        plot_comparison(doc, fig)
    else:
        training = doc.get("kind") == "training"
        if not training and "results" not in doc:
            sys.exit(f"plot.py: {args.json} is not collsim run output (no 'points' or 'results')")
        if training and not doc["points"] or not training and not doc["results"]:
            sys.exit(f"plot.py: {args.json} has no results to plot")
        many = len(doc["points"]) if training else 1
        tall = training and len({p['devices'] for p in doc['points']}) > 1
        # Readable whatever the number of points: at most 16 x 11 inches.
        fig = plt.figure(figsize=(min(16, max(8, 0.35 * many + 4)), 10 if tall else 5.5))
        (plot_training if training else plot_collective)(doc, fig)
    fig.tight_layout()
    # No creation date in an SVG: the same JSON gives the same file.
    fig.savefig(args.out, metadata={"Date": None} if args.out.endswith(".svg") else None)
    print(f"plot.py: wrote {args.out}")

if __name__ == "__main__":
    main()

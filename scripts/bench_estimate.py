#!/usr/bin/env python3
"""How close `--estimate` comes to the real run, command by command.

Each pair: the estimate a command prints under --estimate (its events, wall
time and peak memory), then the same command run, its wall time and peak
resident memory measured (GNU time's), and its events where it
simulates (perf's CSV column, a study's points' sum); and what the
estimate itself cost (cost_s). The target (#63):
every wall time and memory within 2x of the real one, both ways.

Called by scripts/bench_estimate.sh, which builds the release binary and
writes the scenarios; run that.
"""
import json
import os
import re
import shlex
import subprocess
import sys
import time

COLLSIM = "build/collsim"
UNITS = {"s": 1, "min": 60, "h": 3600, "days": 86400}


def parse_estimate(line):
    """'what: about 3.3e+07 events (~21 s), 1.4 GiB of memory; ...' or
    'what: about 0.31 s, 12 MiB of memory' -> (events or None, seconds, MiB)."""
    events = re.search(r"(?:about|at least) ([0-9.e+]+) events", line)
    seconds = re.search(r"(?:~|about |at least )([0-9.]+) (s|min|h|days)\b", line)
    memory = re.search(r"([0-9.]+) (MiB|GiB) of memory", line)
    if not seconds or not memory:
        sys.exit(f"bench_estimate: cannot read the estimate {line!r}")
    mib = float(memory.group(1)) * (1024 if memory.group(2) == "GiB" else 1)
    return (float(events.group(1)) if events else None, float(seconds.group(1)) * UNITS[seconds.group(2)], mib)


def measure(args):
    """Runs collsim ARGS; returns (wall seconds, peak MiB, stdout). The peak is
    GNU time's: a child forked from this script would count the script's
    own pages (wait4's ru_maxrss covers the fork before its exec)."""
    peak_file = "/tmp/bench_estimate_peak.%d" % os.getpid()
    start = time.monotonic()
    run = subprocess.run(["/usr/bin/time", "-f", "%M", "-o", peak_file, COLLSIM] + args, capture_output=True, text=True)
    wall = time.monotonic() - start
    if run.returncode != 0:
        sys.exit(f"bench_estimate: collsim {' '.join(args)} failed: {run.stderr.strip()[-500:]}")
    with open(peak_file) as f:
        peak_kib = float(f.read().split()[-1])
    os.unlink(peak_file)
    return wall, peak_kib / 1024, run.stdout


def events_of(out):
    """The events a run reports: its JSON points' sum, or its CSV's column's."""
    if out.lstrip().startswith("{"):
        return float(sum(p.get("events", 0) for p in json.loads(out)["points"]))
    rows = [l.split(",") for l in out.splitlines() if l and not l.startswith("#")]
    if not rows or "events" not in rows[0]:
        return None
    column = rows[0].index("events")
    return float(sum(float(r[column]) for r in rows[1:]))


def ratio(estimated, real):
    return estimated / real if real > 0 else float("nan")


def main(cases):
    print(f"{'case':<44} {'est_events':>10} {'events':>10} {'ratio':>6} {'est_s':>8} {'wall_s':>8} {'ratio':>6} "
          f"{'est_MiB':>8} {'peak_MiB':>8} {'ratio':>6} {'cost_s':>6}")
    outside = []
    for label, args, output in cases:
        limit = ["--max-events", "1e12"]
        started = time.monotonic()
        estimate = subprocess.run([COLLSIM] + args + limit + ["--estimate"], capture_output=True, text=True)
        cost = time.monotonic() - started # what the estimate itself takes (#39: about a second at most)
        if estimate.returncode != 0:
            sys.exit(f"bench_estimate: {label}: --estimate failed: {estimate.stderr.strip()}")
        est_events, est_s, est_mib = parse_estimate(estimate.stdout.strip().splitlines()[-1])
        wall, peak, out = measure(args + limit + output)
        events = events_of(out) if est_events is not None else None
        ev = (f"{est_events:>10.3g} {events:>10.3g} {ratio(est_events, events):>6.2f}" if events
              else f"{'-':>10} {'-':>10} {'-':>6}")
        wr, mr = ratio(est_s, wall), ratio(est_mib, peak)
        flag = "" if 0.5 <= wr <= 2 and 0.5 <= mr <= 2 else "  <- outside 2x"
        if flag:
            outside.append(label)
        print(f"{label:<44} {ev} {est_s:>8.2f} {wall:>8.2f} {wr:>6.2f} {est_mib:>8.0f} {peak:>8.0f} {mr:>6.2f} {cost:>6.2f}{flag}",
              flush=True)
    print(f"\n{len(cases)} pairs; wall time and memory within 2x both ways: {len(cases) - len(outside)}"
          + (f"; outside: {', '.join(outside)}" if outside else ""))
    return 1 if outside else 0


def read_cases(path):
    """A line a case: LABEL | ARGS | ARGS OF THE REAL RUN ONLY (its output format)."""
    cases = []
    for line in open(path):
        if line.strip() and not line.startswith("#"):
            label, args, output = (part.strip() for part in line.split("|"))
            cases.append((label, shlex.split(args), shlex.split(output)))
    return cases


if __name__ == "__main__":
    only = re.compile(sys.argv[2] if len(sys.argv) > 2 else "")
    sys.exit(main([c for c in read_cases(sys.argv[1]) if only.search(c[0])]))

#!/usr/bin/env python3
"""Rewrites the predicted cells of docs/validation.md's published-run tables from what collsim predicts now.

  scripts/update_validation_tables.py [--binary build/collsim]

tests/published_runs_test.cpp holds every cell to the runs: a change to the
model that moves a prediction fails it until the page shows the new one.
This reruns the tables' scenarios (the "predicted %" and ratio cells after
each row's published MFU) and the one-row calibrations (the last two cells:
the calibrated MFU and its ratio) exactly as the test does, and rewrites
those cells only.
Review the diff: the published figures and the prose stay as they are.
"""
import argparse, json, os, re, subprocess, sys

SCENARIOS = ["scenarios/published-runs.yaml", "scenarios/published-curves.yaml",
             "scenarios/published-curves-a100-40gb.yaml", "scenarios/published-curves-h100.yaml"]

# (scenario, the calibrating row, the rows predicted; none: every other row): as tests/published_runs_test.cpp.
CALIBRATIONS = [
    ("scenarios/published-runs.yaml", "korthikanti-1t", ["korthikanti-22b", "korthikanti-175b", "korthikanti-530b"]),
    ("scenarios/published-runs.yaml", "mpt-30b-a100-ckpt", ["mpt-7b-a100", "mpt-13b-a100"]),
    ("scenarios/published-runs.yaml", "mpt-13b-h100", ["mpt-7b-h100"]),
    ("scenarios/published-curves.yaml", "mpt-30b-s2048-ckpt", []),
    ("scenarios/published-curves-a100-40gb.yaml", "mpt-13b-s2048-ckpt-40gb", []),
    ("scenarios/published-curves-h100.yaml", "mpt-30b-s2048-ckpt-h100", []),
]


def run(binary, args):
    out = subprocess.run([binary] + args, check=True, capture_output=True, text=True).stdout
    return json.loads(out)


def row_index(lines, variant):
    for i, line in enumerate(lines):
        if line.startswith("| " + variant + " |"):
            return i
    sys.exit("docs/validation.md has no row for " + variant)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--binary", default="build/collsim")
    a = ap.parse_args()
    os.chdir(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    lines = open("docs/validation.md").read().split("\n")
    changed = 0
    published_mfu = {}  # per row
    for scenario in SCENARIOS:
        print("running", scenario, file=sys.stderr)
        for p in run(a.binary, ["run", scenario, "--format", "json"])["points"]:
            mfu = p["reference"]["mfu"]
            published, predicted = mfu["published"], mfu["simulated"]
            published_mfu[p["variant"]] = published
            i = row_index(lines, p["variant"])
            cells = "| %.1f | %.1f | %.2f |" % (100 * published, 100 * predicted, predicted / published)
            # The published cell and the two after it.
            pattern = re.compile(r"\| %s \| [0-9.]+ \| [0-9.]+ \|" % re.escape("%.1f" % (100 * published)))
            new, n = pattern.subn(cells, lines[i], count=1)
            if n != 1:
                sys.exit("row %s has no published cell %.1f" % (p["variant"], 100 * published))
            changed += new != lines[i]
            lines[i] = new
    held_out = []  # every calibration's held-out rows: |error| before and after
    for scenario, row, predict in CALIBRATIONS:
        print("calibrating", scenario, "on", row, file=sys.stderr)
        args = ["calibrate", scenario, "--on", row, "--format", "json", "--max-events", "1e10"]
        if predict:
            args += ["--predict", ",".join(predict)]
        doc = run(a.binary, args)
        # The page's summary table ("median |error| uncalibrated -> calibrated", "largest") is prose: printed to check.
        print("  held out %d: median %.1f %% -> %.1f %%, largest %.1f %%" % (
            len(doc["held_out"]), 100 * doc["held_out_median_abs_error_before"], 100 * doc["held_out_median_abs_error"],
            100 * doc["held_out_max_abs_error"]), file=sys.stderr)
        for r in doc["held_out"]:
            held_out.append((abs(r["error_before"]), abs(r["error_after"])))
        for run_, fit in [(doc["runs"][0], True)] + [(r, False) for r in doc["held_out"]]:
            i = row_index(lines, run_["run"])
            ratio = run_["measured_s"] / run_["after_s"]  # calibrated MFU over published: the MFU is 1 / time
            cells = "| %.1f | %.2f%s |" % (100 * published_mfu[run_["run"]] * ratio, ratio, " (fit)" if fit else "")
            new = re.sub(r"\| [0-9.]+ \| [0-9.]+( \(fit\))? \|$", cells, lines[i])
            changed += new != lines[i]
            lines[i] = new
    median = lambda v: sorted(v)[len(v) // 2] if len(v) % 2 else sum(sorted(v)[len(v) // 2 - 1:len(v) // 2 + 1]) / 2
    print("over the %d held-out rows: median %.1f %% calibrated, %.1f %% uncalibrated" % (
        len(held_out), 100 * median([a for _, a in held_out]), 100 * median([b for b, _ in held_out])), file=sys.stderr)
    open("docs/validation.md", "w").write("\n".join(lines))
    print("docs/validation.md: %d rows rewritten" % changed, file=sys.stderr)


if __name__ == "__main__":
    main()

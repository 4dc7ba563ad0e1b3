#!/usr/bin/env python3
"""Mutates the shipped YAML files and runs collsim on each mutant.

Every mutant must end with exit 0, 2 (bad input) or 3 (some study points
failed) within the timeout: exit 1 (internal error), a signal (crash) or a
timeout (hang) is a finding, printed with the mutant kept in --keep.

  scripts/mutation_run.py [--count N] [--seed S] [--binary build/collsim] [--keep DIR]

Mutations: flip, insert or delete bytes; delete, duplicate or swap lines;
replace a value with one of a list of hostile values (negative, zero, huge,
NaN, infinities, empty, lists, mappings, anchors, control characters,
invalid UTF-8); nest deeply. Each mutant runs `collsim run` with a small
--max-events so that valid mutants finish quickly (or are refused).
"""
import argparse, os, random, re, subprocess, sys, tempfile

HOSTILE = ["-1", "0", "1e309", "-1e309", ".nan", "nan", "inf", "99999999999999999999", "1.0000001", "''", "[]",
           "{}", "[a, b]", "{a: 1}", "*x", "&x 1", "!!binary aGk=", "\"\\e[31m\"", "\"\\x00\"", "1B/s", "9000000s",
           "1ps", "0GB/s", "4096", "1048576", "-0", "0x10", "1_000", "~", "null", "true", "\"\xff\"", "1GiB",
           "[[[[[[[[[[1]]]]]]]]]]", "1e-300", "65536", "hier:ring+nhrr", "auto", "all", "level0:NA;level1:NB"]


def mutate(text, rnd):
    lines = text.split("\n")
    kind = rnd.randrange(8)
    if kind == 0 and text:  # flip a byte
        b = bytearray(text.encode("utf-8", "surrogateescape"))
        i = rnd.randrange(len(b))
        b[i] = rnd.randrange(256)
        return bytes(b)
    if kind == 1 and lines:  # delete a line
        del lines[rnd.randrange(len(lines))]
    elif kind == 2 and lines:  # duplicate a line
        i = rnd.randrange(len(lines))
        lines.insert(i, lines[i])
    elif kind == 3 and len(lines) > 1:  # swap two lines
        i, j = rnd.randrange(len(lines)), rnd.randrange(len(lines))
        lines[i], lines[j] = lines[j], lines[i]
    elif kind in (4, 5, 6):  # a hostile value after a colon
        candidates = [i for i, l in enumerate(lines) if re.search(r":\s*\S", l)]
        if candidates:
            i = rnd.choice(candidates)
            head = lines[i][: lines[i].index(":") + 1]
            lines[i] = head + " " + rnd.choice(HOSTILE)
    else:  # deep nesting
        depth = rnd.choice([10, 100, 1000, 5000])
        lines.append("deep: " + "[" * depth + "]" * depth)
    return "\n".join(lines).encode("utf-8", "surrogateescape")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--count", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--binary", default="build/collsim")
    ap.add_argument("--timeout", type=float, default=30)
    ap.add_argument("--keep", default="build/mutation-findings")
    args = ap.parse_args()
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    os.chdir(root)
    sources = []
    for folder in ["scenarios", "configs/clusters", "configs/models", "tests/data", "tests/data/training"]:
        for name in sorted(os.listdir(folder)):
            if name.endswith(".yaml"):
                sources.append(os.path.join(folder, name))
    rnd = random.Random(args.seed)
    counts, findings = {}, 0
    os.makedirs(args.keep, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        for n in range(args.count):
            src = rnd.choice(sources)
            text = open(src, encoding="utf-8", errors="surrogateescape").read()
            mutant = text.encode("utf-8", "surrogateescape")
            for _ in range(rnd.randint(1, 3)):
                mutant = mutate(mutant.decode("utf-8", "surrogateescape"), rnd)
            # Keep relative paths working: the mutant sits beside its source.
            path = os.path.join(os.path.dirname(src), ".mutant-%d.yaml" % os.getpid())
            with open(path, "wb") as f:
                f.write(mutant)
            is_cluster = src.startswith("configs/clusters")
            cmd = ([args.binary, "perf", "--cluster", path, "-b", "1MiB", "-e", "4MiB"] if is_cluster
                   else [args.binary, "run", path])
            cmd += ["--max-events", "5e6", "--format", "csv", "--out", os.path.join(tmp, "out.csv")]
            try:
                status = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                        timeout=args.timeout).returncode
            except subprocess.TimeoutExpired:
                status = "timeout"
            finally:
                os.unlink(path)
            counts[status] = counts.get(status, 0) + 1
            if status not in (0, 2, 3):
                findings += 1
                keep = os.path.join(args.keep, "finding-%d-%s.yaml" % (n, os.path.basename(src)))
                with open(keep, "wb") as f:
                    f.write(mutant)
                print("FINDING: exit %s for a mutant of %s (kept as %s)" % (status, src, keep), flush=True)
            if (n + 1) % 500 == 0:
                print("%d mutants: %s" % (n + 1, counts), flush=True)
    print("%d mutants of %d files: exit statuses %s; %d findings" % (args.count, len(sources), counts, findings))
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())

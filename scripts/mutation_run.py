#!/usr/bin/env python3
"""Mutates collsim's shipped inputs, one kind at a time, and runs collsim on each mutant.

Every mutant must end with exit 0, 2 (bad input) or 3 (some study points
failed) within the timeout: exit 1 (internal error), a signal (crash) or a
timeout (hang) is a finding, printed with the mutant kept in --keep.

  scripts/mutation_run.py [--kind K ...] [--count N] [--seed S] [--binary build/collsim] [--keep DIR]

Kinds (each reaches its own parser; the default is all of them, --count each):
  study     scenario and study YAML              collsim run FILE
  cluster   cluster YAML                         collsim perf --cluster FILE
  tiers     N-tier cluster YAML (tiers: lists)   collsim perf --cluster FILE (a tier's keys, items and --set indices)
  model     training model YAML                  collsim run toy-study --set training.model=FILE
  rules     selector rules YAML                  collsim select --cluster C --rules FILE
  env       HCCL/NCCL env files                  collsim perf --cluster C --env-file FILE
  measured  nccl-tests logs                      collsim compare FILE --cluster C
  settings  a log's recorded NCCL settings       collsim compare FILE --cluster C (hostile # env: / NCCL INFO lines)
  journal   a study's partial results (JSON)     collsim run STUDY --out F --resume
  device    device files (calibrate's output)    collsim run RUNS --set cluster.device=FILE
  runs      measured training runs               collsim calibrate FILE
  profile   profiler traces and kernel tables    collsim profile FILE --scenario RUNS --variant V
  resume-edit      a study's input edited after an interruption (or the study resumed from another folder):
                   collsim run STUDY --out F --resume must refuse it (exit 2), never print old figures
  output-at-input  --out, --trace, --write-cluster or --baseline aimed at one of the command's inputs (as given,
                   through ./, a symlink or a hard link): refused with exit 2, every input left as it was

Mutations: flip, insert or delete bytes; delete, duplicate or swap lines;
replace a value with one of a list of hostile values (negative, zero, huge,
NaN, infinities, empty, lists, mappings, anchors, control characters,
invalid UTF-8); nest deeply. Logs and journals have their fields (numbers,
JSON values) replaced instead. Each run has a small --max-events so that
valid mutants finish quickly (or are refused). Each kind's summary also
counts the refusals (exit 2) that show a key as '?' (one that is not a
name: its bytes are never echoed, its line and column are) or say only
yaml-cpp's "bad file".
"""
import argparse, json, os, random, re, resource, signal, subprocess, sys, tempfile, time

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


HOSTILE_FIELDS = ["-1", "0", "1e309", "nan", "inf", "99999999999999999999", "18446744073709551615", "2e18", "",
                  "x", "1e-300", "-0", "0x10", "\"\"", "[]", "{}", "null", "true", "\"\xff\"", "1" * 400]


TIER_KEYS = ["size", "switches_per_group", "oversubscription", "bandwidth", "latency", "shape", "name", "reduce",
             "efficiency", "mtu"]
# Values a tier takes, so that a mutant also reaches the builder, not only the parser.
# The keys each tier takes (0: scale-up, 1: the NICs' switches, above: switch layers), tried most of the time.
TIER_KEYS_AT = [["bandwidth", "latency", "efficiency", "reduce"], ["size", "bandwidth", "latency", "shape", "mtu"],
                ["size", "switches_per_group", "oversubscription", "bandwidth", "latency", "name"]]
TIER_VALUES = ["1", "2", "3", "4", "7", "0.5", "100Gbps", "1us", "rail", "switch", "true", "spine"]


def mutate_tiers(text, rnd):
    """A tiers: list mutated as a person would: a tier's key set (a hostile or a plausible value, replacing the
    key where the tier has it), a tier dropped or repeated, else a generic mutation."""
    lines = text.split("\n")
    items = [i for i, l in enumerate(lines) if l.lstrip().startswith("- {")]
    choice = rnd.randrange(4)
    if items and choice == 0:
        i = rnd.choice(items)
        at = TIER_KEYS_AT[min(items.index(i), 2)]
        key = rnd.choice(at if rnd.random() < 0.7 else TIER_KEYS)
        value = rnd.choice(HOSTILE + TIER_VALUES * 3)
        if re.search(r"\b%s: [^,}]*" % key, lines[i]):
            lines[i] = re.sub(r"\b%s: [^,}]*" % key, lambda m: "%s: %s" % (key, value), lines[i], count=1)
        else:
            lines[i] = lines[i].rstrip().rstrip("}") + ", %s: %s}" % (key, value)
    elif items and choice == 1:
        del lines[rnd.choice(items)]
    elif items and choice == 2:
        i = rnd.choice(items)
        lines.insert(i, lines[i])
    else:
        return mutate(text, rnd)
    return "\n".join(lines).encode("utf-8", "surrogateescape")


def tier_override(path):
    """Eight servers in two rail groups, and half the time a --set into a tier by index (some past the list's end,
    some into a tier without the key)."""
    rnd = random.Random(path + str(os.path.getsize(path)))
    sets = ["--set", "servers=8", "--set", "tiers.1.size=4"]
    if rnd.random() < 0.5:
        sets += ["--set", "tiers.%d.%s=%s" % (rnd.randrange(5), rnd.choice(TIER_KEYS),
                                               rnd.choice(HOSTILE[:24] + TIER_VALUES * 2))]
    return sets


def mutate_fields(text, rnd):
    """A log's or a journal's mutation: its numbers and JSON values, or its lines and bytes."""
    kind = rnd.randrange(4)
    if kind == 0:
        return mutate(text, rnd)  # bytes and lines
    tokens = list(re.finditer(r'-?[0-9][0-9.eE+-]*|"[^"]*"|\[[^\]]*\]|\btrue\b|\bfalse\b|\bnull\b', text))
    if not tokens:
        return mutate(text, rnd)
    t = rnd.choice(tokens)
    value = rnd.choice(HOSTILE_FIELDS) if kind < 3 else t.group(0) * rnd.choice([2, 50])
    return (text[: t.start()] + value + text[t.end():]).encode("utf-8", "surrogateescape")


def mutate_schedule(text, rnd):
    """A schedule file's mutation: mostly an operation still well formed (another kind, peer or chunk),
    which the symbolic checker must refuse unless the schedule still computes its collective."""
    ops = list(re.finditer(r'\["(send|recv|recv_reduce|wait)", (\d+), (\d+)', text))
    if not ops or rnd.randrange(4) == 0:
        return mutate_fields(text, rnd)
    m = rnd.choice(ops)
    part = rnd.randrange(3)
    if part == 0:
        op = '["%s", %s, %s' % (rnd.choice(["send", "recv", "recv_reduce", "wait"]), m.group(2), m.group(3))
    elif part == 1:
        op = '["%s", %d, %s' % (m.group(1), rnd.randrange(9), m.group(3))
    else:
        op = '["%s", %s, %d' % (m.group(1), m.group(2), rnd.randrange(17))
    return (text[: m.start()] + op + text[m.end():]).encode("utf-8", "surrogateescape")


def fnv1a(*parts):
    """sim/core/fingerprint.h's hex fingerprint of the parts (64-bit FNV-1a, each part closed by 0xFF)."""
    h = 14695981039346656037
    for part in parts:
        for c in part.encode("utf-8", "surrogateescape") + b"\xff":
            h = ((h ^ c) * 1099511628211) % (1 << 64)
    return "%016x" % h


def tamper_journal(text, rnd):
    """A journal's records tampered with as a person would, its JSON kept sound: a layout of dp 0 or -1, a schedule
    collsim has not, a negative time or size, a number past any field, a newline in an algorithm, two points' keys
    swapped; half of them with the record's check made to match again, so that the reader's own checks are reached."""
    lines = text.split("\n")
    records = [i for i in range(1, len(lines)) if lines[i].startswith("{")]
    if not records:
        return mutate_fields(text, rnd)
    i = rnd.choice(records)
    try:
        rec = json.loads(lines[i])
        step = rec["point"]["step"]
        kind = rnd.randrange(7)
        if kind == 0 and step.get("layout"):
            step["layout"][0][2] = rnd.choice([0, -1])
        elif kind == 1 and step.get("layout"):
            step["layout"][0][5] = 99
        elif kind == 2:
            step["times"][rnd.randrange(len(step["times"]))] = -5
        elif kind == 3 and step["buckets"]:
            step["buckets"][0][0] = -1
        elif kind == 4:
            step["times"][0] = 1e300
        elif kind == 5:
            rec["point"]["algorithm"] += "\nfake,row"
        else:
            j = rnd.choice(records)
            other = json.loads(lines[j])
            rec["key"], other["key"] = other["key"], rec["key"]
            lines[j] = json.dumps(other, separators=(",", ":"), ensure_ascii=False)
        if rnd.randrange(2):
            point = json.dumps(rec["point"], separators=(",", ":"), sort_keys=True, ensure_ascii=False)
            rec["check"] = fnv1a(rec["key"], point)
        lines[i] = json.dumps(rec, separators=(",", ":"), ensure_ascii=False)
    except (ValueError, KeyError, IndexError, TypeError):
        return mutate_fields(text, rnd)
    return "\n".join(lines).encode("utf-8", "surrogateescape")


HOSTILE_SETTINGS = ["NCCL_ALGO=", "NCCL_ALGO=NVLS", "NCCL_ALGO=NVLSTree", "NCCL_ALGO=^ring,tree,nvlstree",
                    "NCCL_ALGO=CollNetChain", "NCCL_ALGO=Butterfly", "NCCL_PROTO=Fast", "NCCL_PROTO=^LL,LL128,Simple",
                    "NCCL_MAX_NCHANNELS=0", "NCCL_MAX_NCHANNELS=999999999999", "NCCL_BUFFSIZE=7", "NCCL_BUFFSIZE=-1",
                    "NCCL_NVLS_CHUNKSIZE=0", "NCCL_NVLSTREE_MAX_CHUNKSIZE=-1", "NCCL_NVLSTREE_MAX_CHUNKSIZE=64k", "=x", "X", "NCCL_ALGO=\x1b[31m", "1NCCL=2", "NCCL_ALGO=" + "ring," * 500]


def mutate_settings(text, rnd):
    """A log's recorded run settings: a hostile '# env:' line or NCCL INFO line, else a field mutation."""
    lines = text.split("\n")
    kind = rnd.randrange(3)
    if kind == 2:
        return mutate_fields(text, rnd)
    setting = rnd.choice(HOSTILE_SETTINGS)
    line = "# env: " + setting if kind == 0 else "node:1:1 [0] NCCL INFO %s set by environment to %s" % tuple(
        (setting.split("=", 1) + [""])[:2])
    lines.insert(rnd.randrange(len(lines) + 1), line)
    return "\n".join(lines).encode("utf-8", "surrogateescape")


def listing(folder, suffix):
    return [os.path.join(folder, n) for n in sorted(os.listdir(folder)) if n.endswith(suffix)]


# Measured logs and the clusters they were measured on.
MEASURED = {"a100-1x8-nvswitch-nccl2.19.txt": "dgx-a100-8", "a100-2x8-efa4x100-nccl2.8.txt": "p4d-2x8-efa",
            "h100-2x8-ib400-nccl2.26.txt": "h100-2x8-ib400", "v100-1x8-cubemesh-nccl.txt": "v100-cubemesh-8"}


def journal_study(tmp):
    """The toy study with 224 points (a few ms in all), so that a resumed journal's missing points run fast."""
    text = open("tests/data/training/toy-study.yaml").read()
    text = text.replace("model: toy-model.yaml", "model: " + os.path.abspath("tests/data/training/toy-model.yaml"))
    text = text.replace("training.accumulation: [1, 2]", "training.accumulation: [%s]" % ", ".join(map(str, range(1, 17))))
    text = text.replace("min: 2MB, max: 8MB", "min: 1MB, max: 64MB")
    path = os.path.join(tmp, "journal-study.yaml")
    open(path, "w").write(text)
    return path


def interrupted_journal(binary, study, tmp):
    """A real study's partial results: the study is killed once some points are in (tried until one is caught)."""
    out = os.path.join(tmp, "seed.csv")
    journal = out + ".partial"
    for _ in range(100):
        child = subprocess.Popen([binary, "run", study, "--format", "csv", "--out", out],
                                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        while child.poll() is None:
            if os.path.exists(journal) and open(journal).read().count("\n") >= 20:
                child.send_signal(signal.SIGKILL)
                child.wait()
                path = os.path.join(tmp, "seed.journal")
                os.rename(journal, path)
                return path
            time.sleep(0.0005)
    sys.exit("mutation_run: could not interrupt %s to seed its journal" % study)


def changed(text, rnd):
    """`text` mutated until its bytes differ (a mutation may give the same text back)."""
    for _ in range(20):
        mutant = mutate(text, rnd)
        mutant = mutant if isinstance(mutant, bytes) else mutant.encode("utf-8", "surrogateescape")
        if mutant != text.encode("utf-8", "surrogateescape"):
            return mutant
    return text.encode() + b"\n# edited\n"


def resume_after_edit(binary, rnd, tmp, n):
    """A study interrupted (its journal left whole), then one of its inputs edited, or the same scenario text
    resumed from another folder whose files differ: the resume must be refused (exit 2), never print old figures.
    Returns (status, command, mutant, whether the refusal is the one expected)."""
    folder = os.path.join(tmp, "resume-%d" % n)
    os.makedirs(folder)
    study_text = open("tests/data/training/toy-study.yaml").read()
    model_text = open("tests/data/training/toy-model.yaml").read()
    for name, text in (("study.yaml", study_text), ("toy-model.yaml", model_text)):
        open(os.path.join(folder, name), "w").write(text)
    out = os.path.join(folder, "out.csv")
    # The whole study runs, then its output cannot be written: the journal stays, as after an interruption.
    first = subprocess.run([binary, "run", "study.yaml", "--out", out, "--trace", "/dev/full", "--format", "csv"],
                           cwd=folder, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    if first.returncode != 2 or not os.path.exists(out + ".partial"):
        return first.returncode, "first run", b"", False
    cwd, target = folder, rnd.choice(["study.yaml", "toy-model.yaml"])
    if rnd.random() < 0.3:  # the same scenario from another folder, whose model differs
        cwd = os.path.join(tmp, "elsewhere-%d" % n)
        os.makedirs(cwd)
        open(os.path.join(cwd, "study.yaml"), "w").write(study_text)
        target = "toy-model.yaml"
    mutant = changed(open(os.path.join(folder, target)).read(), rnd)
    open(os.path.join(cwd, target), "wb").write(mutant)
    cmd = [binary, "run", "study.yaml", "--out", out, "--resume", "--format", "csv", "--max-events", "5e6"]
    run = subprocess.run(cmd, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, timeout=300)
    said = run.stderr.decode(errors="replace")
    # Refused for the edit, or for what the edited file says (a mutant that no longer loads).
    return run.returncode, " ".join(cmd) + " (in %s, %s edited)" % (cwd, target), mutant, run.returncode == 2 and (
        "since these partial results were written" in said or "--resume" not in said)


# Commands with an output option and the files they read: (args with {name} for each file, its inputs, its outputs).
AIMED = [
    (["run", "{study}"], ["study", "model"], ["--out", "--trace"]),
    (["run", "{scenario}", "--set", "cluster={cluster}"], ["scenario", "cluster"], ["--out", "--trace"]),
    (["perf", "--cluster", "{cluster}", "-e", "1MiB", "--env-file", "{env}"], ["cluster", "env"], ["--out", "--trace"]),
    (["compare", "{measured}", "--cluster", "{nvswitch}"], ["measured", "nvswitch"], ["--out"]),
    (["calibrate", "{measured}", "--cluster", "{nvswitch}"], ["measured", "nvswitch"], ["--out", "--write-cluster"]),
    # A sweep and training runs in one command: three inputs, three outputs.
    (["calibrate", "{measured}", "{runs}", "--cluster", "{nvswitch}"], ["measured", "runs", "nvswitch"],
     ["--out", "--write-cluster", "--write-device"]),
    (["select", "--cluster", "{cluster}", "--rules", "{rules}"], ["cluster", "rules"], ["--out"]),
    (["selector", "check", "--rules", "{rules}", "--grid", "{grid}", "--update-baseline"], ["rules", "grid"],
     ["--baseline", "--out"]),
    (["selector", "derive", "--grid", "{grid}"], ["grid"], ["--out"]),
    (["topology", "{cluster}"], ["cluster"], ["--out"]),
    (["plan", "{plan}", "--top", "1"], ["plan"], ["--out"]),
]
AIMED_FILES = {"study": "tests/data/training/toy-study.yaml", "model": "tests/data/training/toy-model.yaml",
               "scenario": "tests/data/small.yaml", "cluster": "configs/clusters/atlas-2x8.yaml",
               "env": "tests/data/env/seed-links.sh", "measured": "tests/data/measured/a100-1x8-nvswitch-nccl2.19.txt",
               "nvswitch": "configs/clusters/dgx-a100-8.yaml", "rules": "configs/selector/hccl-910b.yaml",
               "grid": "tests/data/selector/small-grid.yaml", "plan": "tests/data/training/plan-llama3-8b-2x8.yaml",
               "runs": "tests/data/training/measured-mpt-125m.yaml"}


def output_at_input(binary, rnd, tmp, n):
    """A command's output aimed at one of the files it reads, named as given, through ./, a symlink or a hard
    link: refused (exit 2), and every input left as it was."""
    folder = os.path.join(tmp, "aimed-%d" % n)
    os.makedirs(folder)
    files = {}
    for key, src in AIMED_FILES.items():
        name = "toy-model.yaml" if key == "model" else key + os.path.splitext(src)[1]
        files[key] = os.path.join(folder, name)
        # The plan's cluster and model stay where they are: the copy names them from the root.
        text = open(src).read().replace("../../../", os.getcwd() + "/")
        open(files[key], "w").write(text)
    args, inputs, outputs = rnd.choice(AIMED)
    target = rnd.choice(inputs)
    named = files[target]
    how = rnd.choice(["as given", "./", "symlink", "hard link"])
    if how == "./":
        named = "./" + os.path.basename(named)
    elif how == "symlink":
        named = os.path.join(folder, "link")
        os.symlink(files[target], named)
    elif how == "hard link":
        named = os.path.join(folder, "hard")
        os.link(files[target], named)
    before = {k: open(f, "rb").read() for k, f in files.items()}
    cmd = [binary] + [a.format(**files) for a in args] + [rnd.choice(outputs), named]
    run = subprocess.run(cmd, cwd=folder, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, timeout=300)
    intact = all(os.path.isfile(f) and open(f, "rb").read() == before[k] for k, f in files.items())
    ok = run.returncode == 2 and intact and b"an output never replaces an input" in run.stderr
    return run.returncode, " ".join(cmd) + " (%s, %s)" % (target, how), b"", ok


def run_scripted(name, check, args, rnd, tmp):
    """A kind whose every case is a small script (check) that says whether collsim did what it must."""
    counts, findings = {}, 0
    for n in range(args.count):
        try:
            status, cmd, mutant, ok = check(args.binary, rnd, tmp, n)
        except subprocess.TimeoutExpired:
            status, cmd, mutant, ok = "timeout", "(timed out)", b"", False
        counts[status] = counts.get(status, 0) + 1
        if not ok:
            findings += 1
            keep = os.path.join(args.keep, "finding-%s-%d" % (name, n))
            open(keep, "wb").write(mutant)
            print("FINDING: %s: exit %s: %s (kept as %s)" % (name, status, cmd, keep), flush=True)
    print("%s: %d cases: exit statuses %s; %d findings" % (name, args.count, counts, findings), flush=True)
    return findings


# Kinds that are scripts of several runs rather than one mutant through one command.
SCRIPTED = {"resume-edit": resume_after_edit, "output-at-input": output_at_input}


def kinds(binary, tmp):
    """Each kind: (its seed files, how to mutate, the command for a mutant at PATH with the work dir)."""
    study = journal_study(tmp)
    seed_journal = interrupted_journal(binary, study, tmp)
    studies = listing("scenarios", ".yaml") + listing("tests/data", ".yaml") + listing("tests/data/training", ".yaml")
    return {
        "study": (studies, mutate, lambda path, src: [binary, "run", path]),
        "cluster": (listing("configs/clusters", ".yaml"), mutate,
                    lambda path, src: [binary, "perf", "--cluster", path, "-b", "1MiB", "-e", "4MiB"]),
        # Clusters written as `tiers:` lists: their items' keys mutated, and a --set that reaches an item by index.
        "tiers": ([p for p in listing("configs/clusters", ".yaml") if "\ntiers:" in open(p).read()], mutate_tiers,
                  lambda path, src: [binary, "perf", "--cluster", path, "-b", "1MiB", "-e", "4MiB"] +
                                    tier_override(path)),
        "model": (listing("configs/models", ".yaml") + ["tests/data/training/toy-model.yaml"], mutate,
                  lambda path, src: [binary, "run", "tests/data/training/toy-study.yaml", "--set",
                                     "training.model=" + os.path.abspath(path)]),
        "rules": (listing("configs/selector", ".yaml") + listing("tests/data/selector", ".yaml"), mutate,
                  lambda path, src: [binary, "select", "--cluster", "configs/clusters/atlas-2x8.yaml", "--rules",
                                     path, "--explain"]),
        "env": (listing("tests/data/env", ".sh"), mutate,
                lambda path, src: [binary, "perf", "--cluster", "configs/clusters/atlas-2x8.yaml", "--env-file", path,
                                   "-b", "1MiB", "-e", "4MiB"]),
        "measured": ([os.path.join("tests/data/measured", n) for n in MEASURED], mutate_fields,
                     lambda path, src: [binary, "compare", path, "--cluster",
                                        "configs/clusters/%s.yaml" % MEASURED[os.path.basename(src)]]),
        # The run's recorded NCCL settings (# env: lines, NCCL INFO lines), through compare.
        "settings": ([os.path.join("tests/data/measured", n) for n in MEASURED], mutate_settings,
                     lambda path, src: [binary, "compare", path, "--cluster",
                                        "configs/clusters/%s.yaml" % MEASURED[os.path.basename(src)], "--min-bytes",
                                        "256MiB"]),
        "journal": ([seed_journal], mutate_fields,
                    lambda path, src: [binary, "run", study, "--out", path[: -len(".partial")], "--resume"]),
        # The same journal's records tampered with (their JSON sound): refused or run again, never believed.
        "journal-tamper": ([seed_journal], tamper_journal,
                           lambda path, src: [binary, "run", study, "--out", path[: -len(".partial")], "--resume"]),
        # Device files (what calibrate writes), through a run that uses one.
        "device": (listing("tests/data/devices", ".yaml"), mutate,
                   lambda path, src: [binary, "run", "tests/data/training/measured-mpt-125m.yaml", "--set",
                                      "cluster.device=" + os.path.abspath(path)]),
        # Profiles (traces and kernel tables), beside the run they measured.
        "profile": (listing("tests/data/profiles", ".json") + listing("tests/data/profiles", ".csv"), mutate_fields,
                    lambda path, src: [binary, "profile", path, "--scenario",
                                       "tests/data/training/measured-mpt-125m.yaml", "--variant", "s512-mb1",
                                       "--format", "json"]),
        # NPKit traces of NCCL's primitives, through the fit of a step's fixed cost.
        "npkit": (listing("tests/data/npkit", ".json"), mutate_fields,
                  lambda path, src: [binary, "npkit", path, "--format", "json"]),
        # Schedule files (--algo file:PATH), run on real sums by threads: a mutant the checker lets
        # through must still compute its AllReduce (verify's exit 1 would be a finding).
        "schedule": (listing("tests/data/schedules", ".json"), mutate_schedule,
                     lambda path, src: [binary, "verify", "--ranks", "8", "--algo", "file:" + path, "--bytes",
                                        "4000B", "--timeout", "10"]),
        # Measured training runs, through the calibration that fits them.
        "runs": (["tests/data/training/measured-mpt-125m.yaml"], mutate,
                 lambda path, src: [binary, "calibrate", path, "--format", "json", "--write-device",
                                    os.path.join(tmp, "device.yaml")]),
    }


# A refusal must say where: a key shown as '?' (a path segment collsim could
# not print) or yaml-cpp's bare "bad file" leave the user to search.
UNLOCATED_KEY = re.compile(r"(^|[.\[ ])\?([.\]:]|$)", re.M)


def message_quality(stderr, tally):
    text = stderr.decode(errors="replace")
    if UNLOCATED_KEY.search(text):
        tally["key shown as '?'"] = tally.get("key shown as '?'", 0) + 1
    if "bad file" in text:
        tally["'bad file'"] = tally.get("'bad file'", 0) + 1


def run_kind(name, seeds, mutator, command, args, rnd, tmp):
    counts, findings, quality = {}, 0, {}
    for n in range(args.count):
        src = rnd.choice(seeds)
        mutant = open(src, "rb").read()
        for _ in range(rnd.randint(1, 3)):
            mutant = mutator(mutant.decode("utf-8", "surrogateescape"), rnd)
        # Keep relative paths working: a YAML mutant sits beside its source.
        if name.startswith("journal"):
            path = os.path.join(tmp, "out.csv.partial")
        else:
            path = os.path.join(os.path.dirname(src), ".mutant-%d%s" % (os.getpid(), os.path.splitext(src)[1]))
        with open(path, "wb") as f:
            f.write(mutant)
        cmd = command(path, src) + ["--format", "csv"] if name not in ("rules", "env", "runs", "profile", "npkit", "schedule") else command(path, src)
        if name in ("study", "cluster", "tiers", "model", "env", "journal", "journal-tamper", "device", "runs"):
            cmd += ["--max-events", "5e6"]
        if name not in ("journal", "journal-tamper", "rules", "measured", "runs", "profile"):
            cmd += ["--out", os.path.join(tmp, "out.csv")]
        try:
            # The limit is on CPU time (SIGXCPU), so that a busy machine does not
            # turn a slow mutant into a finding; ten times it in wall time catches a hang.
            limit = lambda: resource.setrlimit(resource.RLIMIT_CPU, (int(args.timeout), int(args.timeout)))
            run = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, timeout=10 * args.timeout,
                                 preexec_fn=limit)
            status = run.returncode
            if status == 2:
                message_quality(run.stderr, quality)
            if args.verbose:
                print(name, status, " ".join(cmd), run.stderr.decode(errors="replace")[-300:])
        except subprocess.TimeoutExpired:
            status = "timeout"
        finally:
            if os.path.exists(path):
                os.unlink(path)
        counts[status] = counts.get(status, 0) + 1
        if status not in (0, 2, 3):
            findings += 1
            keep = os.path.join(args.keep, "finding-%s-%d-%s" % (name, n, os.path.basename(src)))
            with open(keep, "wb") as f:
                f.write(mutant)
            print("FINDING: exit %s for a %s mutant of %s (kept as %s): %s" % (status, name, src, keep, " ".join(cmd)),
                  flush=True)
        if (n + 1) % 1000 == 0:
            print("  %s: %d mutants: %s" % (name, n + 1, counts), flush=True)
    print("%s: %d mutants of %d files: exit statuses %s; %d findings; refusals without a place: %s"
          % (name, args.count, len(seeds), counts, findings, quality or "none"), flush=True)
    return findings


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kind", action="append", help="input kind (repeatable; default: all)")
    ap.add_argument("--count", type=int, default=2000, help="mutants of each kind")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--binary", default="build/collsim")
    ap.add_argument("--timeout", type=float, default=30, help="CPU seconds a mutant may take")
    ap.add_argument("--verbose", action="store_true", help="print every command and its exit status")
    ap.add_argument("--keep", default="build/mutation-findings")
    args = ap.parse_args()
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    os.chdir(root)
    args.binary = os.path.abspath(args.binary)
    os.makedirs(args.keep, exist_ok=True)
    findings = 0
    with tempfile.TemporaryDirectory() as tmp:
        table = kinds(args.binary, tmp)
        for name in args.kind or list(table) + list(SCRIPTED):
            rnd = random.Random("%s-%d" % (name, args.seed))
            if name in SCRIPTED:
                findings += run_scripted(name, SCRIPTED[name], args, rnd, tmp)
                continue
            if name not in table:
                ap.error("unknown kind %r (kinds: %s)" % (name, ", ".join(list(table) + list(SCRIPTED))))
            seeds, mutator, command = table[name]
            findings += run_kind(name, seeds, mutator, command, args, rnd, tmp)
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())

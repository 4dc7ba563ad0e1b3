#!/usr/bin/env python3
"""The outputs the README and the docs/ pages show, against the goldens.

Every fenced block line "$ build/collsim ARGS" is followed by what that
command prints, as pinned by the golden of the same ARGS
(tests/golden/commands.txt, tests/data/golden/NAME.txt). A block may show
the first lines only, or the first and last lines with a "..." line
between them.

  readme_outputs.py check    exit 1 naming each block that differs
  readme_outputs.py update   rewrite the blocks from the goldens (same shape)
"""
import glob, os, re, sys

# Shown in the README but not pinned: they print wall-clock times.
UNPINNED = {"verify --transport threads --op allreduce --algo rhd --ranks 7 --bytes 1000003"}
PREFIX = "$ build/collsim "


def goldens():
    names = {}
    for line in open("tests/golden/commands.txt"):
        if line.strip() and not line.lstrip().startswith("#"):
            name, args = line.split(None, 1)
            names[args.strip()] = name
    return names


def blocks(lines):
    """(index of the $ line, index past its output, args) for every block."""
    inblock, i = False, 0
    while i < len(lines):
        if lines[i].startswith("```"):
            inblock = not inblock
        elif inblock and lines[i].startswith(PREFIX):
            j = i + 1
            while j < len(lines) and not lines[j].startswith("```") and not lines[j].startswith("$ "):
                j += 1
            yield i, j, lines[i][len(PREFIX):]
            i = j
            continue
        i += 1


def expected(shown, golden):
    """What the block should show: the golden cut to the block's shape."""
    if "..." in shown:
        k = shown.index("...")
        head, tail = k, len(shown) - k - 1
        return golden[:head] + ["..."] + (golden[len(golden) - tail:] if tail else [])
    return golden[: len(shown)]


def main(mode):
    os.chdir(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    names = goldens()
    pages = ["README.md"] + sorted(glob.glob("docs/*.md"))
    bad = sum(page_blocks(page, names, mode) for page in pages)
    if bad:
        print("readme: %d block(s) differ; if the goldens are right: scripts/update_goldens.sh" % bad)
        return 1
    if mode == "check":
        print("readme: every shown output in %d pages matches its golden" % len(pages))
    return 0


def broken_links(page):
    """The page's relative Markdown links whose target is not in the checkout."""
    text = open(page).read()
    for m in re.finditer(r"\]\(([^)\s#]+)(#[^)]*)?\)", text):
        target = m.group(1)
        if not re.match(r"[a-z]+:", target) and not os.path.exists(os.path.join(os.path.dirname(page), target)):
            yield target


def page_blocks(page, names, mode):
    """Checks (or rewrites) one page's blocks and links; returns how many are wrong."""
    lines = open(page).read().split("\n")
    out, last, bad = [], 0, 0
    for target in broken_links(page) if mode == "check" else []:
        print("%s links to %s, which is not in the checkout" % (page, target))
        bad += 1
    for start, end, args in blocks(lines):
        out.extend(lines[last : start + 1])
        shown = lines[start + 1 : end]
        last = end
        if args in UNPINNED:
            out.extend(shown)
            continue
        name = names.get(args)
        if name is None:
            print("%s shows 'collsim %s', which has no golden: add it to tests/golden/commands.txt" % (page, args))
            bad += 1
            out.extend(shown)
            continue
        golden = open("tests/data/golden/%s.txt" % name).read().rstrip("\n").split("\n")
        want = expected(shown, golden)
        if mode == "check" and want != shown:
            print("%s: the output of 'collsim %s' differs from golden %s:" % (page, args, name))
            for a, b in zip(shown, want):
                if a != b:
                    print("  page:   %s\n  golden: %s" % (a, b))
                    break
            bad += 1
        out.extend(want)
    out.extend(lines[last:])
    if mode == "update":
        open(page, "w").write("\n".join(out))
        return 0
    return bad


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "check"))

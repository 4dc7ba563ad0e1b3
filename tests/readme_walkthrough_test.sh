#!/usr/bin/env bash
# docs/whatif.md, "A what-if study", runs as printed: every command of the
# section (its "$ build/collsim ..." lines and its sh blocks) runs in a
# fresh folder laid out like a checkout, and succeeds; the chart is a PNG
# and the trace names its point. (readme_outputs.py already checks that the
# outputs shown match their goldens.)
#   tests/readme_walkthrough_test.sh COLLSIM SOURCE_DIR
set -euo pipefail
collsim=$(realpath "$1") src=$(realpath "$2")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/build"
ln -s "$collsim" "$tmp/build/collsim"
for d in examples scripts configs scenarios; do ln -s "$src/$d" "$tmp/$d"; done

# The section's commands, in order.
awk '
  /^## A what-if study/ { on = 1; next }
  on && /^## / { exit }
  on && /^```/ { block = !block; sh = block && $0 ~ /^```sh/; next }
  on && block && /^\$ build\/collsim / { sub(/^\$ /, ""); print; next }
  on && block && sh && NF { print }
' "$src/docs/whatif.md" > "$tmp/commands.sh"
[ "$(grep -c . "$tmp/commands.sh")" -ge 6 ] || { echo "walkthrough: too few commands found:"; cat "$tmp/commands.sh"; exit 1; }
cd "$tmp"
while IFS= read -r command; do
  echo "walkthrough: $command"
  bash -c "$command" > /dev/null || { echo "walkthrough: failed: $command"; exit 1; }
done < commands.sh

[ "$(head -c 8 whatif.png | od -An -tx1 | tr -d ' \n')" = "89504e470d0a1a0a" ] || { echo "walkthrough: whatif.png is not a PNG"; exit 1; }
/usr/bin/python3 - <<'PY'
import json
events = json.load(open("whatif-trace.json"))["traceEvents"]
names = [e["args"]["name"] for e in events if e["name"] == "process_name"]
assert names and all("cluster.servers=4" in n for n in names), names
assert any(e["ph"] == "s" for e in events), "no flow arrows"
PY
echo "walkthrough: every command ran"

#!/usr/bin/env bash
# scripts/plot.py smoke test: a training study's (plain and under a layout),
# a collective scenario's and collective studies', a comparison's and a plan's JSON each become a
# non-empty PNG (and the study an SVG).
#   tests/plot_test.sh COLLSIM SOURCE_DIR
set -euo pipefail
collsim=$1
src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$collsim" run "$src/scenarios/seed-8card-tuning.yaml" --format json --out "$tmp/study.json"
"$collsim" run "$src/scenarios/default.yaml" --format json --out "$tmp/collective.json"
/usr/bin/python3 "$src/scripts/plot.py" "$tmp/study.json" --out "$tmp/study.png"
/usr/bin/python3 "$src/scripts/plot.py" "$tmp/study.json" --out "$tmp/study.svg"
/usr/bin/python3 "$src/scripts/plot.py" "$tmp/collective.json" --out "$tmp/collective.png"
# A collective study over two keys, one of them not a number.
"$collsim" run "$src/scenarios/hierarchical-vs-flat.yaml" --set 'sweep[cluster.servers]=[2,4]' \
  --set 'sweep[cluster.roce.bandwidth]=[100Gbps,200Gbps]' --set 'sizes=[64KiB,1MiB,1360MB]' \
  --format json --out "$tmp/sweep.json"
/usr/bin/python3 "$src/scripts/plot.py" "$tmp/sweep.json" --out "$tmp/sweep.png"
"$collsim" run "$src/scenarios/hierarchical-vs-flat.yaml" --set 'sweep[cluster.roce.bandwidth]=[100Gbps,200Gbps]' \
  --set 'sizes=[1MiB]' --format json --out "$tmp/sweep-words.json"
/usr/bin/python3 "$src/scripts/plot.py" "$tmp/sweep-words.json" --out "$tmp/sweep-words.png"
# 5 points x 5 algorithms: more lines than a legend holds (it names colours only).
"$collsim" run "$src/scenarios/hierarchical-vs-flat.yaml" --set 'sweep[cluster.servers]=[2,3,4,5,6]' \
  --set 'sizes=[64KiB,1MiB]' --format json --out "$tmp/sweep-many.json"
/usr/bin/python3 "$src/scripts/plot.py" "$tmp/sweep-many.json" --out "$tmp/sweep-many.png"
"$collsim" compare "$src/tests/data/measured/a100-1x8-nvswitch-nccl2.19.txt" \
  --cluster "$src/configs/clusters/dgx-a100-8.yaml" --format json > "$tmp/compare.json"
/usr/bin/python3 "$src/scripts/plot.py" "$tmp/compare.json" --out "$tmp/compare.png"
"$collsim" calibrate "$src/tests/data/training/measured-mpt-125m.yaml" --format json > "$tmp/calibrate.json"
/usr/bin/python3 "$src/scripts/plot.py" "$tmp/calibrate.json" --out "$tmp/calibrate.png"
"$collsim" plan "$src/tests/data/training/plan-llama3-8b-2x8.yaml" --format json --out "$tmp/plan.json"
/usr/bin/python3 "$src/scripts/plot.py" "$tmp/plan.json" --out "$tmp/plan.png"
"$collsim" run "$src/tests/data/training/llama3-8b-tp8-pp2.yaml" --set cluster.servers=2 --format json --out "$tmp/layout.json"
/usr/bin/python3 "$src/scripts/plot.py" "$tmp/layout.json" --out "$tmp/layout.png"
for f in study.png collective.png sweep.png sweep-words.png sweep-many.png compare.png calibrate.png plan.png layout.png; do
  [ -s "$tmp/$f" ] || { echo "plot_test: $f is empty" >&2; exit 1; }
  [ "$(head -c 8 "$tmp/$f" | od -An -tx1 | tr -d ' \n')" = "89504e470d0a1a0a" ] || { echo "plot_test: $f is not a PNG" >&2; exit 1; }
done
grep -q "<svg" "$tmp/study.svg" || { echo "plot_test: study.svg is not SVG" >&2; exit 1; }
# A file that is not collsim output is refused with a message.
echo '{}' > "$tmp/other.json"
if /usr/bin/python3 "$src/scripts/plot.py" "$tmp/other.json" --out "$tmp/x.png" 2> "$tmp/err"; then
  echo "plot_test: accepted a non-collsim JSON" >&2; exit 1
fi
grep -q "not collsim run output" "$tmp/err"
echo "plot_test: ok"

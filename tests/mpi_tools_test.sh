#!/usr/bin/env bash
# MPI tools end to end (run by ctest when MPI is built):
#  - `collsim-mpi sweep` on 1 and 4 ranks prints exactly `collsim run`'s table,
#    on 3 ranks a collective study's exactly as `collsim run` prints it, and
#    a plan's ranking exactly as `collsim plan` prints it;
#  - `collsim-mpi calibrate` writes a cluster YAML that `collsim` accepts, and
#    `compare` runs against it with correct results;
#  - a peer past --timeout ends the run with status 4.
# Usage: mpi_tools_test.sh COLLSIM COLLSIM_MPI MPIEXEC SOURCE_DIR
set -euo pipefail
collsim=$1 mpi=$2 mpiexec=$3 src=$4
run() { "$mpiexec" --oversubscribe --allow-run-as-root -np "$@"; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# Both write their provenance (version, command line, resolved input); the
# command lines differ.
unstamped() { grep -v -e '^# collsim [0-9]' -e '^<!-- collsim [0-9]' -e '^  "collsim_version"' -e '^  "command_line"' -e '^  "resolved_input"'; }
scenario="$src/scenarios/hierarchical-vs-flat.yaml"

"$collsim" run "$scenario" --format json | unstamped > "$tmp/run.json"
run 1 "$mpi" sweep "$scenario" --format json > "$tmp/sweep1.stamped.json"
grep -q '"command_line": "collsim-mpi sweep ' "$tmp/sweep1.stamped.json"
unstamped < "$tmp/sweep1.stamped.json" > "$tmp/sweep1.json"
run 4 "$mpi" sweep "$scenario" --format json | unstamped > "$tmp/sweep4.json"
cmp "$tmp/run.json" "$tmp/sweep1.json"
cmp "$tmp/run.json" "$tmp/sweep4.json"
echo "sweep: 1 and 4 ranks match collsim run"

# A collective study: its points' runs spread over the ranks.
axis=("--set" "sweep[cluster.servers]=[2,3]" "--set" "sizes=[64KiB,16MiB]")
"$collsim" run "$scenario" "${axis[@]}" --format csv | unstamped > "$tmp/study.csv"
run 3 "$mpi" sweep "$scenario" "${axis[@]}" --format csv | unstamped > "$tmp/study3.csv"
cmp "$tmp/study.csv" "$tmp/study3.csv"
echo "sweep of a collective study: 3 ranks match collsim run"

plan="$src/tests/data/training/plan-llama3-8b-2x8.yaml"
"$collsim" plan "$plan" --format json | unstamped > "$tmp/plan.json"
run 3 "$mpi" sweep "$plan" --format json | unstamped > "$tmp/plan3.json"
cmp "$tmp/plan.json" "$tmp/plan3.json"
echo "sweep of a plan: 3 ranks match collsim plan"

# A training study is not sweep's: a usage error (exit 2), not an internal one.
status=0
run 1 "$mpi" sweep "$src/tests/data/training/toy-study.yaml" > /dev/null 2> "$tmp/training.err" || status=$?
[ "$status" = 2 ] || { echo "sweep of a training study exited $status, not 2"; cat "$tmp/training.err"; exit 1; }
grep -q "collsim-mpi: error: .*run training studies" "$tmp/training.err"
if grep -q "internal error" "$tmp/training.err"; then cat "$tmp/training.err"; exit 1; fi
echo "sweep of a training study: exit 2, said as bad input"

run 2 "$mpi" calibrate --write-cluster "$tmp/cluster.yaml" --out "$tmp/calibrate.txt" > /dev/null
grep -q "^# intra-host: " "$tmp/calibrate.txt"
! grep -q "^devices:" "$tmp/calibrate.txt" # the YAML went to --write-cluster, not into the report
grep -q "^devices: 2" "$tmp/cluster.yaml"
# The old spelling: --out naming a .yaml file is still the cluster file, with a note.
run 2 "$mpi" calibrate --out "$tmp/old.yaml" > /dev/null 2> "$tmp/old.err"
grep -q "^devices: 2" "$tmp/old.yaml"
grep -q "is taken as --write-cluster" "$tmp/old.err"
echo "calibrate: --write-cluster the YAML, --out the report, --out FILE.yaml as before"

# A peer that does not answer within --timeout (here 1 ms for 256 MiB): every
# rank stops with the documented status 4. The rank that waited says why; on a
# loaded machine mpirun may end before it forwards that line, so its own
# notice of the abort (with the status) is accepted in its place.
status=0
run 2 "$mpi" perf --timeout 0.001 -b 256MiB -e 256MiB > /dev/null 2> "$tmp/timeout.err" || status=$?
[ "$status" = 4 ] || { echo "a peer's timeout exited $status, not 4"; cat "$tmp/timeout.err"; exit 1; }
grep -q -e "collsim-mpi: rank [01]: MPI requests still open after 1 ms (a peer never answered); every rank stops (exit 4)" \
  -e "with errorcode 4" "$tmp/timeout.err" || { echo "no reason given for the exit"; cat "$tmp/timeout.err"; exit 1; }
status=0
run 2 "$mpi" compare --cluster "$tmp/cluster.yaml" --algo ring -b 256MiB -e 256MiB -n 1 -w 0 --timeout 0.001 \
  > /dev/null 2> "$tmp/timeout.err" || status=$?
[ "$status" = 4 ] || { echo "compare past its --timeout exited $status, not 4"; cat "$tmp/timeout.err"; exit 1; }
echo "a peer past --timeout: exit 4 on every rank, with the reason (perf and compare)"
"$collsim" perf --cluster "$tmp/cluster.yaml" -b 1KiB -e 1MiB -f 32 > /dev/null
run 2 "$mpi" compare --cluster "$tmp/cluster.yaml" --algo ring -b 1KiB -e 64KiB -f 8 -n 2 -w 1 > "$tmp/compare.txt"
grep -q "median" "$tmp/compare.txt"
# collsim's spellings and --format sets: --min-bytes, and compare as JSON,
# a row per size with the table's median.
run 2 "$mpi" compare --cluster "$tmp/cluster.yaml" --algo ring --min-bytes 1KiB --max-bytes 64KiB --step-factor 8 \
  -n 2 -w 1 --format json > "$tmp/compare.json"
/usr/bin/python3 - "$tmp/compare.json" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
assert [r["bytes"] for r in doc["rows"]] == [1024, 8192, 65536], doc
errors = sorted(abs(r["error"]) for r in doc["rows"])
assert doc["median_abs_error"] == errors[len(errors) // 2] and doc["results_correct"], doc
PY
set +e
run 1 "$mpi" perf --minbyte 1KiB > /dev/null 2> "$tmp/typo.err"
status=$?
set -e
[ "$status" -eq 2 ] || { echo "a mistyped option: exit $status, expected 2"; exit 1; }
grep -q "collsim-mpi: did you mean --min-bytes (not --minbyte)?" "$tmp/typo.err"
echo "calibrate and compare: ok"

# perf: avg, min and max per size, nccl-tests' closing lines, --out.
run 2 "$mpi" perf -b 1KiB -e 64KiB -f 8 -n 3 -w 1 > "$tmp/perf.txt"
grep -q "# Avg bus bandwidth    : " "$tmp/perf.txt"
grep -q "# Out of bounds values : 0 OK" "$tmp/perf.txt"
run 2 "$mpi" perf -b 1KiB -e 64KiB -f 8 -n 3 -w 1 --format json --out "$tmp/perf.json" > "$tmp/perf.stdout"
[ ! -s "$tmp/perf.stdout" ] || { echo "perf --out also printed its results"; exit 1; }
/usr/bin/python3 - "$tmp/perf.json" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
assert len(doc["results"]) == 3, doc
for r in doc["results"]:
    assert 0 < r["min_us"] <= r["time_us"] <= r["max_us"], r
mean = sum(r["busbw_GBps"] for r in doc["results"]) / 3
assert abs(doc["avg_busbw_GBps"]["ring"] - mean) <= 1e-9 * mean, doc["avg_busbw_GBps"]
PY
# More ranks than cores: perf and compare say that the times mean little.
cores=$(nproc)
if [ "$cores" -le 8 ]; then
  run $((cores + 1)) "$mpi" perf -b 1KiB -e 1KiB -n 1 -w 0 > /dev/null 2> "$tmp/crowded.err"
  grep -q "ranks share a host with $cores cores" "$tmp/crowded.err"
fi
echo "perf: min/avg/max, average bus bandwidth, --out, crowding warning: ok"

# Ranks started with different arguments fail fast with exit 2, naming them.
set +e
"$mpiexec" --oversubscribe --allow-run-as-root -np 1 "$mpi" perf -e 2KiB : -np 1 "$mpi" perf -e 1KiB \
  > /dev/null 2> "$tmp/mismatch.err"
status=$?
set -e
[ "$status" -eq 2 ] || { echo "mismatched arguments: exit $status, expected 2"; exit 1; }
grep -q "started with other arguments than rank 0: 1;" "$tmp/mismatch.err"
echo "mismatched arguments: refused"

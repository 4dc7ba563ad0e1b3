# Shared by tests/golden_test.sh and scripts/update_goldens.sh (sourced).

# NAME ARGS lines of tests/golden/commands.txt.
golden_commands() { grep -v '^[[:space:]]*#' tests/golden/commands.txt | grep -v '^[[:space:]]*$'; }

# The output of `collsim ARGS` as a golden holds it: standard output and
# error together, then "[exit N]" when the status is not 0.
golden_output() {
  local collsim=$1 args=$2 status=0
  eval "set -- $args"
  "$collsim" "$@" 2>&1 || status=$?
  if [ "$status" -ne 0 ]; then echo "[exit $status]"; fi
}


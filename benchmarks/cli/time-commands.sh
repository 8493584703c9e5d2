# Sourced by the start-up benchmarks of this folder: `time_commands HOME LABEL B...` times `status --help`, `status`
# and `ask` on the bundled sample (indexed into HOME as collection `sample`) with farm-bench, 11 runs each: A through
# the entry point (apps/cli/bin/deepnote.mjs), B the command line given after LABEL with the same arguments, A and B
# alternating. Prints the CPU, wall and peak-memory lines under one heading per command. Uses `$node`.
time_commands() {
  local home=$1 label=$2
  shift 2
  local other
  other=$(printf '%q ' "$@")
  local question="Which magazine was started first, Arthur's Magazine or First for Women?"
  for command in "status --help" "status" "ask"; do
    case "$command" in
      ask) set -- ask "$question" --collection sample --home "$home" ;;
      status) set -- status --home "$home" ;;
      *) set -- $command ;;
    esac
    echo "## deepnote $command: $label"
    farm-bench -n 11 --timeout 300 --vs "$other $(printf '%q ' "$@")" \
      -- "$node" apps/cli/bin/deepnote.mjs "$@" 2>&1 | grep -E "^(A|B|A/B) (cpu|wall|peak)"
  done
}

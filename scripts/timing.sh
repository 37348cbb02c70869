# Sourced by setup.sh and test.sh: `timed LABEL COMMAND…` runs COMMAND and then prints
# `[time] LABEL: wall W s, cpu C s` (CPU = user + system of COMMAND and every process it waited
# for), so each run shows where its time goes; `timing_total` prints the same since the script
# started. The shell's `times` builtin reads the counters (written to a file: a `$(times)`
# subshell would count only itself).
timing_start=$(date +%s.%N)
timing_file=$(mktemp)

# Sets timing_cpu_now to the CPU seconds used so far by this shell and its waited-for
# children. Not a function to call in `$(…)`: a subshell's `times` counts only the subshell.
timing_cpu() {
  times >"$timing_file"
  timing_cpu_now=$(awk '{ for (i = 1; i <= NF; i++) { split($i, t, /[ms]/); s += t[1] * 60 + t[2] } }
    END { printf "%.1f", s }' "$timing_file")
}

timed() {
  local label=$1 wall0 cpu0 status=0
  shift
  printf '\n== %s\n' "$label"
  wall0=$(date +%s.%N)
  timing_cpu
  cpu0=$timing_cpu_now
  "$@" || status=$?
  timing_cpu
  awk -v l="$label" -v w="$(date +%s.%N)" -v w0="$wall0" -v c="$timing_cpu_now" -v c0="$cpu0" \
    'BEGIN { printf "[time] %s: wall %.0f s, cpu %.0f s\n", l, w - w0, c - c0 }'
  return "$status"
}

timing_total() {
  timing_cpu
  awk -v l="$1" -v w="$(date +%s.%N)" -v w0="$timing_start" -v c="$timing_cpu_now" \
    'BEGIN { printf "[time] %s: wall %.0f s (%.1f min), cpu %.0f s\n", l, w - w0, (w - w0) / 60, c }'
  rm -f "$timing_file"
}

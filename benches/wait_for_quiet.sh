# Sourced by the benchmark scripts from the repository root: when BENCH_MAX_LOAD is set, waits
# (up to BENCH_WAIT_S [900] s, checking every 30 s) until the 1-minute load average is below
# it, then times anyway with a message on stderr.
if [ -n "${BENCH_MAX_LOAD:-}" ]; then
  waited=0
  until awk -v max="$BENCH_MAX_LOAD" '{ exit !($1 < max) }' /proc/loadavg; do
    if [ "$waited" -ge "${BENCH_WAIT_S:-900}" ]; then
      echo "load still ≥ $BENCH_MAX_LOAD after ${waited} s: timing anyway" >&2
      break
    fi
    sleep 30
    waited=$((waited + 30))
  done
fi

# Sourced by .ci/run and scripts/test (bash). Each stage ends with a line of
# its wall time and the CPU time (user+sys) its commands spent, from the
# kernel's count of this shell's waited-for children (/proc/PID/stat), so a
# slow CI run shows where the time went. The count survives exec (.ci/run
# execs scripts/test), so totals start from first_ticks.
tick=$(getconf CLK_TCK 2>/dev/null || echo 100)
child_ticks() { # sets ticks; called without $( ): a subshell would count its own children
  local f
  ticks=0
  if read -ra f <"/proc/$BASHPID/stat" 2>/dev/null; then ticks=$((f[15] + f[16])); fi
}
child_ticks
first_ticks=$ticks stage_ticks=$ticks stage_name='' stage_started=$SECONDS
stage() { # ends the running stage (if any) and starts the one named
  child_ticks
  [ -z "$stage_name" ] || echo "== $stage_name took $((SECONDS - stage_started)) s wall, $(((ticks - stage_ticks) / tick)) s CPU"
  stage_name=$1 stage_started=$SECONDS stage_ticks=$ticks
  [ -z "$1" ] || echo "== $1"
}
timed() { # runs "$@" and ends with its own wall and CPU time (for a lane run in the background)
  local started=$SECONDS before rc
  child_ticks
  before=$ticks
  # Not "$@" || rc=$?: bash ignores set -e inside a command run under ||.
  set +e
  (
    set -e
    # The lane's own stages: a subshell counts its children from zero.
    child_ticks
    stage_name='' stage_ticks=$ticks stage_started=$SECONDS
    "$@"
  )
  rc=$?
  set -e
  child_ticks
  echo "== took $((SECONDS - started)) s wall, $(((ticks - before) / tick)) s CPU (exit $rc)"
  return "$rc"
}

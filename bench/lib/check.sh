# The bench self-tests' checks. Sourced.
#
#   check WHAT COMMAND...   runs COMMAND with its output kept aside; prints "ok   WHAT", or "FAIL WHAT"
#                           followed by that output, and counts the failure
#   checks_done NAME        prints NAME's summary; returns 1 when a check failed

CHECK_FAILURES=0

check() {
  local what=$1 log
  shift
  log=$(mktemp)
  if "$@" >"$log" 2>&1; then
    echo "ok   $what"
  else
    echo "FAIL $what"
    sed 's/^/     /' "$log"
    CHECK_FAILURES=$((CHECK_FAILURES + 1))
  fi
  rm -f "$log"
}

checks_done() {
  if [ "$CHECK_FAILURES" -gt 0 ]; then
    echo "$1: $CHECK_FAILURES check(s) failed"
    return 1
  fi
  echo "$1: all checks passed"
}

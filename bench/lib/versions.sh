# The versions a bench records in its results' meta (bench_report ... --version NAME=TEXT), each as
# the program prints it, so a reader can tell which nginx or JDK a figure came from. Sourced.
#
#   version_of TOOL [PROGRAM]    one line: TOOL is java, nginx, haproxy, wrk or openssl; PROGRAM
#                                the binary to ask (default: TOOL on the PATH)
#   version_args TOOL=PROGRAM... --version TOOL=TEXT pairs, one word per line (mapfile -t them)

version_of() {
  local tool=$1 program=${2:-$1}
  case $tool in
    java) "$program" -version 2>&1 | head -n 1 ;;
    nginx) "$program" -v 2>&1 | sed 's/^nginx version: //' ;;
    haproxy) "$program" -v 2>/dev/null | head -n 1 ;;
    wrk) "$program" -v 2>&1 | head -n 1 ;;
    openssl) "$program" version ;;
    *) echo "version_of: unknown tool $tool" >&2; return 2 ;;
  esac || true   # a program that prints its version and exits non-zero (wrk -v) still told us
}

version_args() {
  local pair
  for pair in "$@"; do
    printf -- '--version\n%s=%s\n' "${pair%%=*}" "$(version_of "${pair%%=*}" "${pair#*=}")"
  done
}

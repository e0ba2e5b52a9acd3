# Installs the Debian packages that benchmarks and checks need, only when missing. Sourced, not executed.
# A fresh machine has none of nginx, haproxy, wrk or chromium; the project's own scripts install them,
# so nothing has to be installed by hand (and nothing prompts: CI has no terminal).

# ensure_packages WHO NAME...: each NAME is both a command and the Debian package that provides it
# (wrk, curl, nginx, haproxy, chromium). Returns 0 when every command is present or was installed;
# otherwise prints why (naming the exact apt-get command when not root) to stderr and returns 1.
ensure_packages() {
  local who=$1 name missing=()
  shift
  for name in "$@"; do
    command -v "$name" >/dev/null 2>&1 || [ -x "/usr/sbin/$name" ] || missing+=("$name")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  if [ "$(id -u)" != 0 ]; then
    echo "$who: ${missing[*]} not installed, and installing needs root: apt-get install ${missing[*]}" >&2
    return 1
  fi
  echo "$who: installing ${missing[*]} from Debian…" >&2
  if ! { apt-get update -q >/dev/null &&
         DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null; }; then
    echo "$who: apt-get install ${missing[*]} failed" >&2
    return 1
  fi
}

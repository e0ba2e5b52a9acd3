# A starter for bench/lib/targets.sh that runs any command as a service, for programs the other starters do
# not fit (HAProxy in master-worker mode, a compiled Java server with its own arguments). Sourced after
# targets.sh.
#
#   start_command NAME PORT MARKER COMMAND...   COMMAND detached, its output in the service's
#                                   logs/console.log; returns once it accepts connections on
#                                   127.0.0.1:PORT (60 s at most). MARKER is a string of its command line,
#                                   so that it is stopped by pid only while that pid is still this program.

start_command() {
  local name=$1 port=$2 marker=$3 dir=$TARGETS_DIR/$1
  shift 3
  _target_record "$name" daemon "$dir/daemon.pid" "$marker"
  daemon_start "$name" "$dir/daemon.pid" "$dir/logs/console.log" "$marker" 127.0.0.1 "$port" 60 -- "$@"
}

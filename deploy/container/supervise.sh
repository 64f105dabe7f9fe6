#!/usr/bin/env bash
# Process supervision for this project's HBase and Kafka images, sourced by their entrypoints.
#
# An entrypoint defines start_<name> functions (each ends in `exec java …`), then calls
#   sv_run NAME…
# which starts every NAME, and supervises them: when one exits on its own, the others are stopped and
# the container exits 1; on SIGTERM/SIGINT all are stopped and the container exits 0.
#
# Outage tests and drills control a process from outside with `docker exec <container> tsi-ctl …`
# (deploy/container/tsi-ctl): `kill` marks NAME as held and SIGKILLs it, so the supervisor waits
# instead of failing; `start` lifts the hold and the supervisor starts NAME again; `freeze`/`thaw`
# send SIGSTOP/SIGCONT. Pids and hold markers live in TSI_RUN_DIR.
: "${TSI_RUN_DIR:=/tmp/tsi-run}"
export TSI_RUN_DIR

sv_log() { printf '%s supervise: %s\n' "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$*" >&2; }

# True when pid runs and is not a zombie (a zombie still answers kill -0).
sv_alive() {
  local stat
  [[ -r "/proc/$1/stat" ]] || return 1
  stat="$(<"/proc/$1/stat")" || return 1
  stat="${stat##*) }"
  [[ "${stat:0:1}" != "Z" ]]
}

sv_start() {
  local name="$1"
  "start_${name}" &
  echo "$!" >"${TSI_RUN_DIR}/${name}.pid"
  sv_log "started ${name} (pid $!)"
}

sv_stopping=0
sv_names=()

sv_stop_all() {
  local name pid i
  for ((i = ${#sv_names[@]} - 1; i >= 0; i--)); do
    name="${sv_names[i]}"
    pid="$(cat "${TSI_RUN_DIR}/${name}.pid" 2>/dev/null || true)"
    [[ -n "$pid" ]] || continue
    kill -CONT "$pid" 2>/dev/null || true
    kill -TERM "$pid" 2>/dev/null || true
  done
  for name in "${sv_names[@]}"; do
    pid="$(cat "${TSI_RUN_DIR}/${name}.pid" 2>/dev/null || true)"
    [[ -n "$pid" ]] && wait "$pid" 2>/dev/null || true
  done
}

# shellcheck disable=SC2317 # invoked by the trap
sv_on_signal() { sv_stopping=1; }

sv_run() {
  sv_names=("$@")
  mkdir -p "$TSI_RUN_DIR"
  rm -f "${TSI_RUN_DIR}"/*.hold
  trap sv_on_signal TERM INT
  local name pid
  for name in "${sv_names[@]}"; do
    sv_start "$name"
    if declare -F "after_start_${name}" >/dev/null; then "after_start_${name}" || { sv_stop_all; exit 1; }; fi
  done
  while ((sv_stopping == 0)); do
    for name in "${sv_names[@]}"; do
      pid="$(<"${TSI_RUN_DIR}/${name}.pid")"
      sv_alive "$pid" && continue
      wait "$pid" 2>/dev/null || true
      ((sv_stopping == 0)) || break
      if [[ -e "${TSI_RUN_DIR}/${name}.hold" ]]; then
        continue # stopped on purpose by tsi-ctl kill: wait for tsi-ctl start
      fi
      if [[ -e "${TSI_RUN_DIR}/${name}.held" ]]; then
        rm -f "${TSI_RUN_DIR}/${name}.held"
        sv_start "$name"
        continue
      fi
      sv_log "${name} (pid ${pid}) exited on its own; stopping the container"
      sv_stop_all
      exit 1
    done
    sleep 0.3 &
    wait $! 2>/dev/null || true
  done
  sv_log "signal received; stopping ${sv_names[*]}"
  sv_stop_all
  sv_log "stopped"
  exit 0
}

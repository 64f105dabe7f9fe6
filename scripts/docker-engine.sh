#!/usr/bin/env bash
# scripts/docker-engine.sh start|stop|status — a Docker engine for the container suite and the
# compose smoke test, from Debian's packages.
#   start   reuse an engine that already answers (and leave it alone at stop); otherwise install
#           docker.io, debootstrap and docker-compose with apt when missing (needs root) and start
#           dockerd with its own data root (TSI_DOCKER_ROOT, default /var/lib/tsingest-docker),
#           waiting until it answers. Records that it started it.
#   stop    stop the engine only if `start` started it.
set -Eeuo pipefail
ROOT="${TSI_DOCKER_ROOT:-/var/lib/tsingest-docker}"
EXEC_ROOT="${TSI_DOCKER_EXEC_ROOT:-/run/tsingest-docker}"
MARK="${EXEC_ROOT}/started-by-tsingest"
PIDFILE="${EXEC_ROOT}/dockerd.pid"
LOG="${TSI_DOCKER_LOG:-/tmp/tsingest-dockerd.log}"

log() { printf '[docker-engine] %s\n' "$*" >&2; }
answers() { timeout 10 docker info >/dev/null 2>&1; }

install_missing() {
  local pkgs=()
  command -v dockerd >/dev/null || pkgs+=(docker.io)
  command -v debootstrap >/dev/null || pkgs+=(debootstrap)
  command -v docker-compose >/dev/null || pkgs+=(docker-compose)
  ((${#pkgs[@]} == 0)) && return 0
  [[ "$(id -u)" == 0 ]] || { log "missing ${pkgs[*]} and not root: install them (apt-get install ${pkgs[*]})"; exit 1; }
  log "installing ${pkgs[*]} from Debian"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${pkgs[@]}" >/dev/null \
    || { apt-get update -q >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${pkgs[@]}" >/dev/null; }
}

case "${1:-}" in
  start)
    install_missing
    if answers; then log "an engine already answers: reusing it (left running at stop)"; exit 0; fi
    [[ "$(id -u)" == 0 ]] || { log "no engine answers and starting dockerd needs root"; exit 1; }
    mkdir -p "$ROOT" "$EXEC_ROOT"
    log "starting dockerd (data root ${ROOT}, log ${LOG})"
    nohup dockerd --data-root "$ROOT" --exec-root "$EXEC_ROOT" --pidfile "$PIDFILE" >"$LOG" 2>&1 &
    touch "$MARK"
    for _ in $(seq 1 60); do answers && { log "engine answers"; exit 0; }; sleep 1; done
    log "dockerd did not answer within 60 s; last log lines:"; tail -20 "$LOG" >&2; exit 1 ;;
  stop)
    if [[ ! -e "$MARK" ]]; then log "engine not started by this script: left alone"; exit 0; fi
    pid="$(cat "$PIDFILE" 2>/dev/null || true)"
    if [[ -n "$pid" ]] && kill -0 "$pid" 2>/dev/null; then
      log "stopping dockerd (pid ${pid})"
      kill -TERM "$pid"
      for _ in $(seq 1 30); do kill -0 "$pid" 2>/dev/null || break; sleep 1; done
      kill -0 "$pid" 2>/dev/null && kill -KILL "$pid"
    fi
    rm -f "$MARK" ;;
  status) if answers; then echo "answers"; else echo "no engine"; exit 1; fi ;;
  *) echo "usage: $0 start|stop|status" >&2; exit 2 ;;
esac

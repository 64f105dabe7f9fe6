#!/usr/bin/env bash
# Entry point of the tsingest HBase image (deploy/hbase/Dockerfile). Two roles, chosen by the name
# it is called under (busybox style):
#
#   hbase-entrypoint [stack]   render hbase-site.xml, start HBase standalone (master + region server
#                              + ZooKeeper in one JVM) in the background, wait for ZooKeeper, then
#                              start the REST gateway; supervise both and exit when either exits.
#   table-admin [args]         (symlink /usr/local/bin/table-admin, or `hbase-entrypoint table-admin`)
#                              run deploy/admin's TableAdmin with HBase's classpath: one JSON request
#                              on stdin, one JSON line on stdout, logs on stderr.
#
# Addresses (the template deploy/hbase/hbase-site.xml.tmpl has one @BIND_HOST@ for all of them):
#   - master and region server RPC bind 0.0.0.0; each registers itself in ZooKeeper under the
#     container's hostname, which resolves to the container's own address inside the container (and,
#     on a compose network, from the other containers), so clients reach the address it registered.
#   - the REST gateway binds 0.0.0.0 so the published port works.
#   - hbase.zookeeper.quorum is rendered as 127.0.0.1, NOT 0.0.0.0 or the hostname: standalone HBase's
#     in-process ZooKeeper (MiniZooKeeperCluster) always binds the loopback address, whatever the
#     configuration says, so the only quorum address that reaches it is loopback. Every ZooKeeper
#     client (master, region server, REST, table-admin) runs inside this container, so that is enough;
#     ZooKeeper is consequently not reachable from outside the container, even if port 2181 were
#     published.
set -Eeuo pipefail

: "${HBASE_HOME:=/opt/hbase}"
: "${HBASE_CONF_DIR:=${HBASE_HOME}/conf}"
: "${HBASE_DATA_DIR:=/var/lib/hbase}"
: "${HBASE_BIND_HOST:=0.0.0.0}"
: "${HBASE_ZK_QUORUM:=127.0.0.1}"
: "${HBASE_ZK_PORT:=2181}"
: "${HBASE_MASTER_PORT:=16000}"
: "${HBASE_RS_PORT:=16020}"
: "${HBASE_REST_PORT:=8080}"
: "${HBASE_MASTER_HEAP:=1g}"
: "${HBASE_REST_HEAP:=512m}"
: "${HBASE_START_TIMEOUT_S:=180}"
: "${TABLE_ADMIN_HOME:=/opt/table-admin}"
export HBASE_HOME HBASE_CONF_DIR

# JDK 17 module flags: HBase 2.6's bin/hbase adds its own JDK 11+ set to the servers it starts; these
# are the same flags plus the JDK 17 ones HBase's own test runs use, for the table-admin JVM (and
# harmlessly repeated for the servers). Kept identical to the local stack's list
# (scripts/lib/artifacts.ts JDK17_OPENS).
JDK17_FLAGS=(
  -XX:+IgnoreUnrecognizedVMOptions
  --add-modules jdk.unsupported
  --add-opens java.base/java.lang=ALL-UNNAMED
  --add-opens java.base/java.lang.reflect=ALL-UNNAMED
  --add-opens java.base/java.io=ALL-UNNAMED
  --add-opens java.base/java.net=ALL-UNNAMED
  --add-opens java.base/java.nio=ALL-UNNAMED
  --add-opens java.base/sun.nio.ch=ALL-UNNAMED
  --add-opens java.base/java.util=ALL-UNNAMED
  --add-opens java.base/java.util.concurrent=ALL-UNNAMED
  --add-opens java.base/java.util.concurrent.atomic=ALL-UNNAMED
  --add-opens java.base/jdk.internal.misc=ALL-UNNAMED
  --add-opens java.base/jdk.internal.ref=ALL-UNNAMED
  --add-exports java.base/jdk.internal.misc=ALL-UNNAMED
  --add-exports java.security.jgss/sun.security.krb5=ALL-UNNAMED
  --add-exports java.base/sun.net.dns=ALL-UNNAMED
  --add-exports java.base/sun.net.util=ALL-UNNAMED
  -Dorg.apache.hbase.thirdparty.io.netty.tryReflectionSetAccessible=true
  -Dio.netty.tryReflectionSetAccessible=true
)
COMMON_OPTS=(
  -Djava.net.preferIPv4Stack=true
  "-Dlog4j2.configurationFile=${HBASE_CONF_DIR}/log4j2.properties"
)

log() { printf '%s hbase-entrypoint: %s\n' "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }

# ---------------------------------------------------------------------------------------------
# table-admin
# ---------------------------------------------------------------------------------------------
run_table_admin() {
  local main cp
  [[ -r "${TABLE_ADMIN_HOME}/main-class" ]] || die "table-admin is not built into this image (${TABLE_ADMIN_HOME}/main-class missing)"
  [[ -r "${HBASE_CONF_DIR}/hbase-site.xml" ]] || die "${HBASE_CONF_DIR}/hbase-site.xml is missing: is the HBase stack of this container running?"
  main="$(<"${TABLE_ADMIN_HOME}/main-class")"
  # Quiet by default (stderr only either way); TABLE_ADMIN_LOG_LEVEL=INFO|DEBUG for more.
  export HBASE_LOG_LEVEL="${TABLE_ADMIN_LOG_LEVEL:-WARN}"
  # --internal-classpath: the full server-side lib/ (what TableAdmin is compiled against: it uses
  # hbase-server classes and hbase-thirdparty's shaded gson), not the shaded client jar that a plain
  # `hbase classpath` prints. The conf dir comes first, so hbase-site.xml names the quorum.
  cp="$("${HBASE_HOME}/bin/hbase" --internal-classpath classpath)" || die "hbase classpath failed"
  exec "${JAVA_HOME}/bin/java" \
    -XX:TieredStopAtLevel=1 -XX:+UseSerialGC -Xss512k "-Xmx${TABLE_ADMIN_HEAP:-256m}" \
    "${JDK17_FLAGS[@]}" "${COMMON_OPTS[@]}" \
    -cp "${TABLE_ADMIN_HOME}/classes:${cp}" \
    "${main}" "$@"
}

case "$(basename "$0")" in
  table-admin) run_table_admin "$@" ;;
esac
if [[ "${1:-}" == "table-admin" ]]; then
  shift
  run_table_admin "$@"
fi
if [[ $# -gt 0 && "$1" != "stack" ]]; then
  # Anything else is run as given (e.g. `docker run … hbase version`, `bash`).
  exec "$@"
fi

# ---------------------------------------------------------------------------------------------
# stack
# ---------------------------------------------------------------------------------------------
check_value() { # name value: values go into sed replacements and XML text
  [[ "$2" =~ ^[A-Za-z0-9._:/-]+$ ]] || die "$1='$2' has characters this script does not accept"
}

render_site() {
  local tmpl="${HBASE_CONF_DIR}/hbase-site.xml.tmpl" out="${HBASE_CONF_DIR}/hbase-site.xml"
  [[ -r "$tmpl" ]] || die "missing template $tmpl"
  check_value HBASE_DATA_DIR "$HBASE_DATA_DIR"
  check_value HBASE_BIND_HOST "$HBASE_BIND_HOST"
  check_value HBASE_ZK_QUORUM "$HBASE_ZK_QUORUM"
  local p
  for p in HBASE_ZK_PORT HBASE_MASTER_PORT HBASE_RS_PORT HBASE_REST_PORT; do
    [[ "${!p}" =~ ^[0-9]+$ ]] || die "$p='${!p}' is not a port number"
  done
  # The quorum line first (it must stay loopback, see the header), then every other placeholder.
  sed \
    -e "s|<name>hbase.zookeeper.quorum</name><value>@BIND_HOST@</value>|<name>hbase.zookeeper.quorum</name><value>${HBASE_ZK_QUORUM}</value>|" \
    -e "s|@DATA_DIR@|${HBASE_DATA_DIR}|g" \
    -e "s|@BIND_HOST@|${HBASE_BIND_HOST}|g" \
    -e "s|@ZK_PORT@|${HBASE_ZK_PORT}|g" \
    -e "s|@MASTER_PORT@|${HBASE_MASTER_PORT}|g" \
    -e "s|@RS_PORT@|${HBASE_RS_PORT}|g" \
    -e "s|@REST_PORT@|${HBASE_REST_PORT}|g" \
    "$tmpl" >"${out}.tmp"
  # Unfilled placeholders outside XML comments (the template's header comment names @NAME@).
  local left
  left="$(sed -e '/<!--/,/-->/d' "${out}.tmp" | grep -Eo '@[A-Z_]+@' | sort -u | tr '\n' ' ' || true)"
  [[ -z "$left" ]] || die "hbase-site.xml.tmpl has a placeholder this script does not fill: ${left}"
  grep -q "<name>hbase.zookeeper.quorum</name><value>${HBASE_ZK_QUORUM}</value>" "${out}.tmp" \
    || die "could not set hbase.zookeeper.quorum to ${HBASE_ZK_QUORUM}: did the template's quorum line change shape?"
  mv "${out}.tmp" "$out"
}

zk_ok() { # ZooKeeper's four-letter "ruok" over bash's /dev/tcp, bounded in a child shell
  local reply=""
  # shellcheck disable=SC2016 # $1 expands in the child shell
  reply="$(timeout 3 bash -c 'exec 3<>"/dev/tcp/127.0.0.1/$1" && printf ruok >&3 && cat <&3' _ "${HBASE_ZK_PORT}" 2>/dev/null)" || true
  [[ "$reply" == imok* ]]
}

master_pid=""
rest_pid=""
stopping=0

stop_all() {
  stopping=1
  if [[ -n "$rest_pid" ]]; then kill -TERM "$rest_pid" 2>/dev/null || true; fi
  if [[ -n "$master_pid" ]]; then kill -TERM "$master_pid" 2>/dev/null || true; fi
}
# shellcheck disable=SC2317 # invoked by the trap below
on_signal() { log "signal received; stopping REST and HBase"; stop_all; }
trap on_signal TERM INT

mkdir -p "${HBASE_DATA_DIR}/hbase" "${HBASE_DATA_DIR}/tmp" "${HBASE_DATA_DIR}/zookeeper" "${HBASE_DATA_DIR}/logs"
[[ -w "${HBASE_DATA_DIR}" ]] || die "${HBASE_DATA_DIR} is not writable by uid $(id -u)"
export HBASE_LOG_DIR="${HBASE_DATA_DIR}/logs"
render_site
log "rendered ${HBASE_CONF_DIR}/hbase-site.xml (data ${HBASE_DATA_DIR}, bind ${HBASE_BIND_HOST}, zk ${HBASE_ZK_QUORUM}:${HBASE_ZK_PORT}, rest :${HBASE_REST_PORT}, host $(hostname))"

base_opts="${HBASE_OPTS:-} ${JDK17_FLAGS[*]} ${COMMON_OPTS[*]}"

log "starting HBase standalone (master + region server + ZooKeeper), heap ${HBASE_MASTER_HEAP}"
HBASE_HEAPSIZE="${HBASE_MASTER_HEAP}" HBASE_OPTS="${base_opts}" "${HBASE_HOME}/bin/hbase" master start &
master_pid=$!

deadline=$((SECONDS + HBASE_START_TIMEOUT_S))
until zk_ok; do
  if ! kill -0 "$master_pid" 2>/dev/null; then
    wait "$master_pid" && rc=0 || rc=$?
    die "HBase exited (status ${rc}) before ZooKeeper answered"
  fi
  ((stopping == 0)) || { wait "$master_pid" || true; exit 143; }
  ((SECONDS < deadline)) || { kill -TERM "$master_pid" 2>/dev/null || true; die "ZooKeeper did not answer on 127.0.0.1:${HBASE_ZK_PORT} within ${HBASE_START_TIMEOUT_S}s"; }
  sleep 1
done
log "ZooKeeper answers on 127.0.0.1:${HBASE_ZK_PORT}; starting the REST gateway on ${HBASE_BIND_HOST}:${HBASE_REST_PORT}, heap ${HBASE_REST_HEAP}"

HBASE_HEAPSIZE="${HBASE_REST_HEAP}" HBASE_OPTS="${base_opts}" "${HBASE_HOME}/bin/hbase" rest start &
rest_pid=$!

# Supervise: the first of the two to exit ends the container (a signal also lands here).
rc=0
while :; do
  wait -n "$master_pid" "$rest_pid" && rc=0 || rc=$?
  if ! kill -0 "$master_pid" 2>/dev/null || ! kill -0 "$rest_pid" 2>/dev/null; then break; fi
  # wait -n returned because a trapped signal interrupted it; both still run: keep supervising.
done
if ((stopping == 0)); then
  if ! kill -0 "$master_pid" 2>/dev/null; then log "HBase (master) exited with status ${rc}; stopping REST"; fi
  if ! kill -0 "$rest_pid" 2>/dev/null; then log "REST gateway exited with status ${rc}; stopping HBase"; fi
  stop_all
  ((rc != 0)) || rc=1 # an unasked-for exit is a failure even if the JVM said 0
fi
wait "$rest_pid" 2>/dev/null || true
wait "$master_pid" 2>/dev/null || true
log "stopped"
exit "$rc"

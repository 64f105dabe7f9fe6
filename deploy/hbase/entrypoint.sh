#!/usr/bin/env bash
# Entry point of the tsingest HBase image (deploy/hbase/Dockerfile). Two roles, chosen by the name
# it is called under (busybox style):
#
#   hbase-entrypoint [stack]   render hbase-site.xml, start HBase standalone (master + region server
#                              + ZooKeeper in one JVM), wait for ZooKeeper, then start the REST
#                              gateway; supervise both (deploy/container/supervise.sh: the container
#                              exits when either exits on its own; `tsi-ctl hbase|rest kill|start|
#                              freeze|thaw` controls them for outage tests).
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
# The image holds HBase as the same Maven Central jar set the local stack runs (scripts/lib/stack/artifacts.ts
# resolveJars of deploy/local/hbase/pom.xml), in /opt/hbase/lib, so there is no bin/hbase: the JVMs
# are started here with the classpath conf + every jar (sorted, as the local stack does).

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
# (scripts/lib/stack/artifacts.ts JDK17_OPENS).
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
classpath() { # conf dir first, then the jars in sorted order (bash globs sort)
  local jars=("${HBASE_HOME}"/lib/*.jar)
  local IFS=:
  printf '%s:%s' "${HBASE_CONF_DIR}" "${jars[*]}"
}

log() { printf '%s hbase-entrypoint: %s\n' "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }

# ---------------------------------------------------------------------------------------------
# table-admin
# ---------------------------------------------------------------------------------------------
run_table_admin() {
  local main
  [[ -r "${TABLE_ADMIN_HOME}/main-class" ]] || die "table-admin is not built into this image (${TABLE_ADMIN_HOME}/main-class missing)"
  [[ -r "${HBASE_CONF_DIR}/hbase-site.xml" ]] || die "${HBASE_CONF_DIR}/hbase-site.xml is missing: is the HBase stack of this container running?"
  main="$(<"${TABLE_ADMIN_HOME}/main-class")"
  # Quiet by default (stderr only either way); TABLE_ADMIN_LOG_LEVEL=INFO|DEBUG for more.
  export HBASE_LOG_LEVEL="${TABLE_ADMIN_LOG_LEVEL:-WARN}"
  exec java \
    -XX:TieredStopAtLevel=1 -XX:+UseSerialGC -Xss512k "-Xmx${TABLE_ADMIN_HEAP:-256m}" \
    "${JDK17_FLAGS[@]}" "${COMMON_OPTS[@]}" \
    -cp "${TABLE_ADMIN_HOME}/classes:$(classpath)" \
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
  local tmpl="${HBASE_HOME}/conf-template/hbase-site.xml.tmpl" out="${HBASE_CONF_DIR}/hbase-site.xml"
  [[ -r "$tmpl" ]] || die "missing template $tmpl"
  check_value HBASE_DATA_DIR "$HBASE_DATA_DIR"
  check_value HBASE_BIND_HOST "$HBASE_BIND_HOST"
  check_value HBASE_ZK_QUORUM "$HBASE_ZK_QUORUM"
  local p
  for p in HBASE_ZK_PORT HBASE_MASTER_PORT HBASE_RS_PORT HBASE_REST_PORT; do
    [[ "${!p}" =~ ^[0-9]+$ ]] || die "$p='${!p}' is not a port number"
  done
  mkdir -p "${HBASE_CONF_DIR}"
  cp "${HBASE_HOME}/conf-template/log4j2.properties" "${HBASE_CONF_DIR}/log4j2.properties"
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

hbase_java() { # heap main-class log-name
  # shellcheck disable=SC2086 # HBASE_OPTS is a list of flags
  exec java "-Xmx$1" ${HBASE_OPTS:-} "${JDK17_FLAGS[@]}" "${COMMON_OPTS[@]}" \
    "-Dhbase.log.dir=${HBASE_DATA_DIR}/logs" "-Dhbase.log.file=$3" \
    -cp "$(classpath)" "$2" start
}
# shellcheck disable=SC2317 # called by supervise.sh
start_hbase() { hbase_java "${HBASE_MASTER_HEAP}" org.apache.hadoop.hbase.master.HMaster hbase.log; }
# shellcheck disable=SC2317
start_rest() { hbase_java "${HBASE_REST_HEAP}" org.apache.hadoop.hbase.rest.RESTServer rest.log; }
# shellcheck disable=SC2317
after_start_hbase() { # the REST gateway needs ZooKeeper
  local deadline=$((SECONDS + HBASE_START_TIMEOUT_S)) pid
  pid="$(<"${TSI_RUN_DIR}/hbase.pid")"
  until zk_ok; do
    sv_alive "$pid" || { log "ERROR: HBase exited before ZooKeeper answered"; return 1; }
    ((SECONDS < deadline)) || { log "ERROR: ZooKeeper did not answer on 127.0.0.1:${HBASE_ZK_PORT} within ${HBASE_START_TIMEOUT_S}s"; return 1; }
    sleep 1
  done
  log "ZooKeeper answers on 127.0.0.1:${HBASE_ZK_PORT}; starting the REST gateway on ${HBASE_BIND_HOST}:${HBASE_REST_PORT}"
}

mkdir -p "${HBASE_DATA_DIR}/hbase" "${HBASE_DATA_DIR}/logs"
[[ -w "${HBASE_DATA_DIR}" ]] || die "${HBASE_DATA_DIR} is not writable by uid $(id -u)"
render_site
log "rendered ${HBASE_CONF_DIR}/hbase-site.xml (data ${HBASE_DATA_DIR}, bind ${HBASE_BIND_HOST}, zk ${HBASE_ZK_QUORUM}:${HBASE_ZK_PORT}, rest :${HBASE_REST_PORT}, host $(hostname))"
# shellcheck source=../container/supervise.sh
source /usr/local/lib/tsi/supervise.sh
sv_run hbase rest

#!/usr/bin/env bash
# Entry point of the tsingest Kafka image (deploy/kafka/Dockerfile): one single-node KRaft broker
# (broker + controller), configured like the official apache/kafka image, so the same environment
# works with either image:
#   every KAFKA_<NAME> variable becomes the server property <name> (lower case, "_" → ".",
#   "__" → "_", "___" → "-"), except KAFKA_HEAP_OPTS and KAFKA_OPTS, which are JVM flags;
#   CLUSTER_ID formats the log directory on first start.
# The broker runs under deploy/container/supervise.sh: `tsi-ctl kafka kill|start|freeze|thaw`.
#
#   kafka-entrypoint            start the broker (default)
#   kafka-topics …              Apache Kafka's own topic tool (org.apache.kafka.tools.TopicCommand)
#   anything else               run as given
set -Eeuo pipefail
: "${KAFKA_HOME:=/opt/kafka}"
: "${KAFKA_CONFIG_DIR:=/tmp/kafka-config}"
: "${KAFKA_HEAP_OPTS:=-Xmx512m}"

log() { printf '%s kafka-entrypoint: %s\n' "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }

classpath() { local jars=("${KAFKA_HOME}"/libs/*.jar); local IFS=:; printf '%s' "${jars[*]}"; }
kafka_java() { # main-class args…
  local main="$1" log4j="${KAFKA_LOG4J:-${KAFKA_HOME}/config/log4j.properties}"; shift
  # shellcheck disable=SC2086 # heap and opts are lists of flags
  exec java ${KAFKA_HEAP_OPTS} ${KAFKA_OPTS:-} -Djava.net.preferIPv4Stack=true \
    "-Dlog4j.configuration=file:${log4j}" \
    -cp "$(classpath)" "$main" "$@"
}

case "$(basename "$0")" in
  kafka-topics) KAFKA_HEAP_OPTS=-Xmx256m KAFKA_LOG4J="${KAFKA_HOME}/config/tools-log4j.properties" kafka_java org.apache.kafka.tools.TopicCommand "$@" ;;
esac
if [[ $# -gt 0 ]]; then exec "$@"; fi

render_properties() {
  local out="${KAFKA_CONFIG_DIR}/server.properties" var name value
  mkdir -p "${KAFKA_CONFIG_DIR}"
  : >"${out}.tmp"
  while IFS='=' read -r var value; do
    case "$var" in KAFKA_HEAP_OPTS | KAFKA_OPTS | KAFKA_HOME | KAFKA_CONFIG_DIR | KAFKA_LOG4J) continue ;; esac
    name="${var#KAFKA_}"
    name="${name,,}"
    name="${name//___/-}"
    name="${name//__/@}"
    name="${name//_/.}"
    name="${name//@/_}"
    printf '%s=%s\n' "$name" "${!var}" >>"${out}.tmp"
  done < <(env | grep -E '^KAFKA_[A-Z0-9_]+=' | sort)
  grep -q '^process.roles=' "${out}.tmp" || die "no KAFKA_PROCESS_ROLES: this image runs a KRaft broker configured from KAFKA_* variables"
  grep -q '^log.dirs=' "${out}.tmp" || die "no KAFKA_LOG_DIRS"
  mv "${out}.tmp" "$out"
}

render_properties
log_dir="$(sed -n 's/^log\.dirs=//p' "${KAFKA_CONFIG_DIR}/server.properties" | cut -d, -f1)"
if [[ ! -f "${log_dir}/meta.properties" ]]; then
  [[ -n "${CLUSTER_ID:-}" ]] || die "${log_dir} is not formatted and CLUSTER_ID is not set"
  mkdir -p "$log_dir"
  log "formatting ${log_dir} for cluster ${CLUSTER_ID}"
  (KAFKA_HEAP_OPTS=-Xmx256m kafka_java kafka.tools.StorageTool format -t "${CLUSTER_ID}" -c "${KAFKA_CONFIG_DIR}/server.properties" --ignore-formatted) >&2
fi

# shellcheck disable=SC2317 # called by supervise.sh
start_kafka() { kafka_java kafka.Kafka "${KAFKA_CONFIG_DIR}/server.properties"; }
# shellcheck source=../container/supervise.sh
source /usr/local/lib/tsi/supervise.sh
sv_run kafka

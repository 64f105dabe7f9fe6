/**
 * V8 heap flags the service is run with (Dockerfile, deploy/k8s, docker-compose, the benchmark):
 * a small young generation and an old-space cap keep the RSS under 300 MB.
 * Design notes: docs/DECISIONS.md#heap-flags
 */
export const SERVICE_NODE_OPTIONS = '--max-semi-space-size=12 --max-old-space-size=160';

/**
 * The query role's heap flags (docker-compose.yml, deploy/k8s): the read side holds what ingest never
 * does, the series API's window cache (series.windowCache.maxBytes, 64 MB by default) and the answer
 * being built; a site's day read raw peaked at 514–594 MiB RSS in the series benchmark, which ran
 * without caps (BENCHMARKS.md). Sized from that, not measured with these flags: the same young
 * generation as ingest, a 512 MB old space, in a 1 GiB memory limit.
 */
export const QUERY_NODE_OPTIONS = '--max-semi-space-size=12 --max-old-space-size=512';

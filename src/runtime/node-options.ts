/**
 * V8 heap flags the service is run with (Dockerfile, deploy/k8s, docker-compose, the benchmark):
 * a small young generation and an old-space cap keep the RSS under 300 MB.
 * Design notes: docs/DECISIONS.md#heap-flags
 */
export const SERVICE_NODE_OPTIONS = '--max-semi-space-size=12 --max-old-space-size=160';

/**
 * The query role's heap flags (docker-compose.yml, deploy/k8s): the read side holds what ingest never
 * does (the window, tail and answer caches, the answers being built) and makes far more short-lived
 * garbage (decoded scanner pages). Measured in the live dashboard benchmark (BENCHMARKS.md): with
 * ingest's 12 MB semi-space and a 512 MB old space the site-wide panels took 2.3–2.7× as long as
 * with V8's defaults (p50 12.2 s against 4.1 s), at 564 MiB RSS against 1,178. So V8's own young
 * generation and a 1,536 MB old space, in a 2 GiB memory limit.
 */
export const QUERY_NODE_OPTIONS = '--max-old-space-size=1536';

/**
 * V8 heap flags the service is run with (Dockerfile ENV, deploy/k8s, docker-compose, the benchmark).
 * The live heap while draining is about 60–90 MB (heap snapshot mid-drain, queue full at 16,000
 * records); without caps V8 let the heap grow past 370 MiB, 300+ MiB of it garbage, and the process
 * to 557–712 MiB RSS. A small young generation (semi-space 12 MiB) and an old-space cap kept the RSS
 * peaks of the benchmark's drains and stalls at 236–289 MiB (target 300 MB) at the same throughput
 * order (BENCHMARKS.md, "Memory"). 12 rather than 8: fewer scavenges and promotions cut the
 * p99 at 50 % load (172–199 ms against 198–376 ms with 8, RSS 270–274 against 255–263 MiB;
 * BENCHMARKS.md, round 4); 16 was about as fast but peaked at 294 MiB.
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

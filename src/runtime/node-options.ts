/**
 * V8 heap flags the service is run with (Dockerfile ENV, deploy/k8s, docker-compose, the benchmark).
 * The live heap while draining is about 60–90 MB (heap snapshot mid-drain, queue full at 16,000
 * records); without caps V8 let the heap grow to 400+ MiB of garbage and the process to 600+ MiB RSS.
 * A small young generation (semi-space 8 MiB) and an old-space cap keep RSS under 300 MB at the same
 * throughput order (BENCHMARKS.md, "Memory").
 */
export const SERVICE_NODE_OPTIONS = '--max-semi-space-size=8 --max-old-space-size=160';

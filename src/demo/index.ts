// The public door of src/demo/ (docs/ARCHITECTURE.md, "Public doors"): the seeded synthetic events of
// the demo, the benchmarks and the compatibility suite.
export { generateEvents, prng, zipfSampler, type GeneratedEvent } from './generate.ts';

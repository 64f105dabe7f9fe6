// The public door of src/runtime/ (docs/ARCHITECTURE.md, "Public doors"): the configuration (schema,
// loader, environment keys), the logger, the Node flags the service ships with, the signal handlers.
export { POINT_IN_TIME_FORMAT, configSchema } from './config-schema.ts';
export { ConfigError, ENV_KEYS, loadConfig, type Config } from './config.ts';
export { createLogger, type Logger } from './logger.ts';
export { QUERY_NODE_OPTIONS, SERVICE_NODE_OPTIONS } from './node-options.ts';
export { installSignalHandlers } from './signals.ts';

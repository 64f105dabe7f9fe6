// The `kafka` section of the configuration schema (src/runtime/config-schema.ts): brokers, the group,
// the DLQ, fetching and TLS/SASL.
import { z } from 'zod';

export const kafkaSchema = z
  .object({
    brokers: z
      .array(z.string().regex(/^[^\s:]+:\d+$/, 'host:port'))
      .min(1)
      .default(['127.0.0.1:9092'])
      .describe('Kafka bootstrap brokers, host:port each (the env variable takes a comma-separated list)'),
    clientId: z.string().min(1).default('tsingest').describe('Kafka client id of the consumer and the DLQ producer'),
    topic: z.string().min(1).default('ts-events').describe('Topic of the incoming JSON events'),
    groupId: z.string().min(1).default('tsingest').describe('Consumer group; offsets are committed only after the HBase writes are acknowledged'),
    dlqTopic: z
      .string()
      .min(1)
      .default('ts-events-dlq')
      .describe('Dead-letter topic: rejected records with their original key and bytes and tsingest-* reason headers'),
    fromBeginning: z.boolean().default(true).describe('A group without committed offsets starts at the earliest record (false: at the latest)'),
    partitionsConsumedConcurrently: z
      .number()
      .int()
      .min(1)
      .max(64)
      .default(16)
      .describe(
        'Partitions whose batches are processed at the same time; at least the partitions one instance owns, so a fetch is handled in one wave (kafkajs fetches again only after its last batch)',
      ),
    sessionTimeoutMs: z.number().int().min(6000).default(30_000).describe('Consumer group session timeout (ms)'),
    heartbeatIntervalMs: z.number().int().min(500).default(3000).describe('Consumer heartbeat interval (ms), kept up while a flush unit is being written'),
    maxBytesPerPartition: z
      .number()
      .int()
      .min(1024)
      .default(524_288)
      .describe('Most bytes fetched per partition; times the partitions an instance owns, it bounds a fetch response (one per broker at a time)'),
    maxWaitTimeMs: z
      .number()
      .int()
      .min(10)
      .default(500)
      .describe('Longest a fetch waits for more records (ms); each fetched batch is flushed whole, so this is the time-based flush'),
    tls: z
      .object({
        enabled: z
          .boolean()
          .default(false)
          .describe("Connect to the brokers over TLS (SSL or SASL_SSL listeners); the brokers' certificates are always verified"),
        caFile: z
          .string()
          .min(1)
          .nullable()
          .default(null)
          .describe("PEM file of the CA(s) that signed the brokers' certificates, instead of the system trust store"),
        certFile: z.string().min(1).nullable().default(null).describe('PEM client certificate for mutual TLS (with keyFile)'),
        keyFile: z.string().min(1).nullable().default(null).describe('PEM private key of certFile'),
        keyPassphraseFile: z.string().min(1).nullable().default(null).describe('File holding the passphrase of an encrypted keyFile'),
        serverName: z
          .string()
          .min(1)
          .nullable()
          .default(null)
          .describe("Name the brokers' certificates must carry (and SNI), when they are reached by IP or another name"),
      })
      .strict()
      .prefault({})
      .describe('TLS to the Kafka brokers; docs/SECURITY.md'),
    sasl: z
      .object({
        mechanism: z
          .enum(['none', 'plain', 'scram-sha-256', 'scram-sha-512', 'oauthbearer'])
          .default('none')
          .describe('SASL mechanism of the consumer, the DLQ producer, the lag monitor and every CLI command that talks to Kafka'),
        username: z.string().min(1).nullable().default(null).describe('SASL user (plain, scram-*)'),
        password: z
          .string()
          .min(1)
          .nullable()
          .default(null)
          .describe('SASL password; prefer passwordFile or the environment (TSI_KAFKA_PASSWORD) to a config file. Never logged'),
        passwordFile: z.string().min(1).nullable().default(null).describe('File holding the SASL password (a Kubernetes secret); read at start'),
        oauthTokenFile: z.string().min(1).nullable().default(null).describe('OAUTHBEARER: file holding the token, read at every (re)authentication'),
        oauthTokenCommand: z
          .array(z.string().min(1))
          .min(1)
          .nullable()
          .default(null)
          .describe('OAUTHBEARER: argv of a command that prints a token on stdout, run at every (re)authentication (10 s deadline)'),
      })
      .strict()
      .prefault({})
      .describe('SASL authentication to the Kafka brokers; docs/SECURITY.md'),
  })
  .strict()
  .prefault({})
  .describe('Kafka consumer and dead-letter producer');

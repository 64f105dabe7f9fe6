// Deleting a run's Kafka topics: the ones it created, and the rollup ownership topic a service it
// started creates beside its event topic (`<topic>.rollup-owners`, rollup.owners.topic's default).
import type { Admin } from 'kafkajs';

/** Deletes `topics` and their ownership companions; one call each, so a missing one stops nothing. */
export async function deleteRunTopics(admin: Admin, topics: readonly string[], onError: (err: unknown) => void = () => undefined): Promise<void> {
  await admin.deleteTopics({ topics: [...topics] }).catch(onError);
  const owners = topics.filter((t) => !t.endsWith('-dlq') && !t.endsWith('.rollup-owners')).map((t) => `${t}.rollup-owners`);
  const existing = new Set(await admin.listTopics().catch(() => []));
  const present = owners.filter((t) => existing.has(t));
  if (present.length > 0) await admin.deleteTopics({ topics: present }).catch(onError);
}

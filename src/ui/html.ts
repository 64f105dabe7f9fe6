// Pure helpers of the /ui renderers (ui-render.ts, doctor-section.ts): escaping and the formats of times
// and numbers the page shows.

const ENTITIES: Readonly<Record<string, string>> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Escapes text for HTML content and attribute values; C0 controls and DEL become visible `\xNN`. */
export function esc(text: string): string {
  let out = '';
  for (const c of text) {
    const code = c.charCodeAt(0);
    if (code < 0x20 || code === 0x7f) out += `\\x${code.toString(16).toUpperCase().padStart(2, '0')}`;
    else out += ENTITIES[c] ?? c;
  }
  return out;
}

/** hh:mm:ss of an epoch-ms time, UTC. */
export const hhmmss = (t: number): string => new Date(t).toISOString().slice(11, 19);
/** A number as the page prints it: integers whole, else one or two decimals. */
export const fmt = (n: number): string => (Number.isInteger(n) ? String(n) : Math.abs(n) >= 10 ? n.toFixed(1) : String(Number(n.toFixed(2))));

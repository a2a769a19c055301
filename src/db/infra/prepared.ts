// Named statements: PostgreSQL parses and plans each once per connection and then only binds
// and executes it. On the tracking and intake paths planning took as long as executing
// (pg_stat_statements with track_planning, `npm run bench:webhooks`).
import { createHash } from 'node:crypto';

const names = new Map<string, string>();

/** node-pg's query config for a named statement; the name is derived from the text, so one text is one statement. */
export function prepared(text: string, values: unknown[]): { name: string; text: string; values: unknown[] } {
  let name = names.get(text);
  if (name === undefined) {
    name = `affix_${createHash('sha1').update(text).digest('base64url').slice(0, 22)}`;
    names.set(text, name);
  }
  return { name, text, values };
}

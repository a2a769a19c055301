// Writes the API reference into the docs: docs/openapi.json (the document the service serves at
// /api/v1/openapi.json) and docs/api-reference.md (its operations as a table). The test checks
// both are current: run `npm run docs:openapi` after changing a route or its schema.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { openApiDocument } from '../src/http/openapi.js';

export const DOCS_SERVER = 'https://affix.example.com';

export function referenceMarkdown(doc: ReturnType<typeof openApiDocument>): string {
  const lines = [
    '# API reference',
    '',
    'Generated from the zod schemas the routes validate with (`npm run docs:openapi`); the service serves the',
    'same document at `/api/v1/openapi.json` (OpenAPI 3.1). Prose, examples and error bodies: [api.md](api.md).',
    '',
  ];
  for (const tag of doc.tags) {
    lines.push(`## ${tag.name}`, '', '| Method | Path | What it does | Auth | Body |', '|---|---|---|---|---|');
    for (const [path, methods] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(methods) as [string, any][]) {
        if (op.tags[0] !== tag.name) continue;
        const auth = op.security.length ? Object.keys(op.security[0])[0] : 'none';
        const fields = Object.keys(op.requestBody?.content['application/json'].schema.properties ?? {}).map((name: string) => `\`${name}\``).join(', ');
        const body = [fields, op.requestBody?.description ?? ''].filter(Boolean).join('. ');
        lines.push(`| ${method.toUpperCase()} | \`${path}\` | ${op.summary} | ${auth} | ${body.replaceAll('|', '\\|')} |`);
      }
    }
    lines.push('');
  }
  return lines.join('\n');
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split('/').at(-1)!)) {
  const doc = openApiDocument(DOCS_SERVER);
  const docs = join(import.meta.dirname, '..', 'docs');
  writeFileSync(join(docs, 'openapi.json'), `${JSON.stringify(doc, null, 2)}\n`);
  writeFileSync(join(docs, 'api-reference.md'), referenceMarkdown(doc));
  console.log('wrote docs/openapi.json and docs/api-reference.md');
}

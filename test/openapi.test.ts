// The API reference: an OpenAPI 3.1 document that a maintained validator accepts, served at
// /api/v1/openapi.json, naming every /api route the app registers (and no route it does not),
// with the docs' copies current.
import { readFileSync } from 'node:fs';
import { Validator } from '@seriousme/openapi-schema-validator';
import { describe, expect, it } from 'vitest';
import { DOCS_SERVER, referenceMarkdown } from '../scripts/openapi-docs.js';
import { documentedRoutes, openApiDocument } from '../src/http/openapi.js';
import { type TestApi, type TestDatabase } from './support/harness.js';
import { useSeededApi } from './support/seeded-api.js';

let db: TestDatabase;
let api: TestApi;
useSeededApi({}, (t) => ({ db, api } = t));

/** Every route of an express app: "METHOD /path", through mounted routers. */
function registeredRoutes(app: TestApi['app']): string[] {
  const found: string[] = [];
  const walk = (stack: any[]) => {
    for (const layer of stack) {
      if (layer.route) {
        const paths: string[] = Array.isArray(layer.route.path) ? layer.route.path : [layer.route.path];
        for (const path of paths) for (const method of Object.keys(layer.route.methods)) found.push(`${method.toUpperCase()} ${path}`);
      } else if (layer.handle?.stack) walk(layer.handle.stack);
    }
  };
  walk((app as any).router.stack);
  return [...new Set(found)];
}

describe('GET /api/v1/openapi.json', () => {
  it('is a valid OpenAPI 3.1 document, served by the API', async () => {
    const reply = await api.request('GET', '/api/v1/openapi.json');
    expect(reply.status).toBe(200);
    expect(reply.body.openapi).toBe('3.1.0');
    expect(reply.body.servers).toEqual([{ url: api.url }]);
    const validator = new Validator();
    const result = await validator.validate(reply.body);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
  });

  it('documents every /api route the app registers, and only those', () => {
    // CORS preflights (OPTIONS) answer for the operation beside them; they are not operations.
    const registered = registeredRoutes(api.app).filter((route) => route.split(' ')[1]!.startsWith('/api/') && !route.startsWith('OPTIONS ') && route !== 'GET /api/v1/openapi.json');
    expect(registered.length).toBeGreaterThan(70);
    expect(registered.filter((route) => !documentedRoutes().includes(route))).toEqual([]);
    expect(documentedRoutes().filter((route) => !registered.includes(route))).toEqual([]);
  });

  it("the request bodies are the zod schemas' own: a field the route refuses is in the schema's terms", async () => {
    const doc = openApiDocument(DOCS_SERVER) as any;
    const sale = doc.paths['/api/v1/track/sale'].post.requestBody.content['application/json'].schema;
    expect(sale.properties.amount_cents).toEqual({ type: 'integer', exclusiveMinimum: 0, maximum: 1_000_000_000_000 });
    expect(sale.required).toEqual(expect.arrayContaining(['amount_cents']));
    const group = doc.paths['/api/v1/admin/programs/{id}/groups'].post.requestBody;
    expect(Object.keys(group.content['application/json'].schema.properties)).toEqual(expect.arrayContaining(['name', 'slug', 'hold_days', 'payout_minimums_cents']));
    expect(group.description).toContain('commission_type, commission_rate and duration_months');
  });

  it('the docs carry the current document and its table (npm run docs:openapi)', () => {
    const doc = openApiDocument(DOCS_SERVER);
    expect(JSON.parse(readFileSync('docs/openapi.json', 'utf8'))).toEqual(JSON.parse(JSON.stringify(doc)));
    expect(readFileSync('docs/api-reference.md', 'utf8')).toBe(referenceMarkdown(doc));
  });
});

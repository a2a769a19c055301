// Stripe event fixtures (fixtures/stripe): {{name}} placeholders filled at use, `created` set to now.
import { readFile, readdir, stat } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const STRIPE_FIXTURES_DIR = fileURLToPath(new URL('../../fixtures/stripe/', import.meta.url));

export type FixtureVars = Record<string, string | number>;

/** Fills placeholders; `"{{created}}"` becomes a number (default: now). Unknown placeholders stay. */
export function fillFixture(template: string, vars: FixtureVars): string {
  const created = vars.created ?? Math.floor(Date.now() / 1000);
  return template
    .replaceAll('"{{created}}"', String(created))
    .replace(/\{\{(\w+)\}\}/g, (whole, name: string) =>
      name in vars ? JSON.stringify(String(vars[name])).slice(1, -1) : whole,
    );
}

export async function loadFixture(name: string, vars: FixtureVars): Promise<Record<string, any>> {
  const file = name.endsWith('.json') ? name : join(STRIPE_FIXTURES_DIR, `${name}.json`);
  return JSON.parse(fillFixture(await readFile(file, 'utf8'), vars));
}

/** A file, or every .json file of a folder in name order. */
export async function fixtureFiles(path: string): Promise<string[]> {
  if (!(await stat(path)).isDirectory()) return [path];
  return (await readdir(path)).filter((name) => name.endsWith('.json')).sort().map((name) => join(path, name));
}

export const fixtureName = (file: string) => basename(file, '.json');

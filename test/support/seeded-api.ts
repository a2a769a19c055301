// The set-up most API test files share: their own database and API, opened before the file's
// tests with the programs they need seeded, and closed after. A file keeps its own variables:
//
//   let db: TestDatabase; let api: TestApi; let shop: SeededProgram;
//   useSeededApi({ programs: [{ commission_rate: 20 }] }, (t) => ({ db, api, programs: [shop] } = t));
//
// A file's own beforeAll, registered after this call, runs after the programs are seeded.
import { afterAll, beforeAll } from 'vitest';
import { type SeededProgram, type TestApi, type TestApiOptions, type TestDatabase, closeTestApi, openTestApi, seedProgram } from './harness.js';

type ProgramBodies = readonly Record<string, unknown>[];

export interface SeededApi<P extends ProgramBodies> {
  db: TestDatabase;
  api: TestApi;
  /** One per entry of `programs`, in that order (each with an account, a partner, a link and a key). */
  programs: { -readonly [K in keyof P]: SeededProgram };
}

export interface SeededApiSetUp<P extends ProgramBodies> {
  env?: Record<string, string>;
  options?: TestApiOptions;
  /** The body of each program to create (`{}` for the defaults); none when absent. */
  programs?: P;
}

export function useSeededApi<const P extends ProgramBodies = []>(setUp: SeededApiSetUp<P>, take: (opened: SeededApi<P>) => void): void {
  let opened: { db?: TestDatabase; api?: TestApi } = {};
  beforeAll(async () => {
    const { db, api } = await openTestApi(setUp.env, setUp.options);
    opened = { db, api };
    const programs: SeededProgram[] = [];
    for (const body of setUp.programs ?? []) programs.push(await seedProgram(api, body));
    take({ db, api, programs: programs as SeededApi<P>['programs'] });
  });
  afterAll(() => closeTestApi(opened));
}

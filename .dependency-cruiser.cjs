// The layers' arrows, checked by `npm test` (scripts/check-layers.mjs). Arrows point down only:
//   start, cli  ->  http, jobs, mcp  ->  app  ->  db, platform  ->  core
// (http, mcp and the CLI reach db only through app; jobs may touch the inbox rows they process)
// core decides (pure); app orchestrates management (the one place its rules live); db remembers
// (all SQL); http, jobs, mcp and the CLI translate.
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'core-is-pure',
      comment: 'src/core holds rules only: no I/O, no other layer, no package but hashing.',
      severity: 'error',
      from: { path: '^src/core/' },
      to: { pathNot: ['^src/core/', '^(node:)?crypto$'] },
    },
    {
      name: 'db-only-below',
      comment: 'src/db remembers: it may use the core, nothing above it.',
      severity: 'error',
      from: { path: '^src/db/' },
      to: { path: '^src/(app|http|jobs|mcp|cli|start|platform)/' },
    },
    {
      name: 'platform-only-below',
      comment: 'config, logger, queue, secrets: they serve the layers above, never call them.',
      severity: 'error',
      from: { path: '^src/platform/' },
      to: { path: '^src/(app|http|jobs|mcp|cli|start)/' },
    },
    {
      name: 'app-only-below',
      comment: 'use cases never know how they are called (HTTP, jobs, CLI).',
      severity: 'error',
      from: { path: '^src/app/' },
      to: { path: '^src/(http|jobs|mcp|cli|start)/' },
    },
    {
      name: 'doors-do-not-call-each-other',
      comment: 'HTTP, jobs and the assistant translate side by side; none imports another (the app mounts the assistant route).',
      severity: 'error',
      from: { path: '^src/(jobs|mcp)/' },
      to: { path: '^src/(http|cli|start|jobs|mcp)/', pathNot: '^src/$1/' },
    },
    {
      name: 'http-not-into-jobs-cli-start',
      severity: 'error',
      from: { path: '^src/http/' },
      to: { path: '^src/(jobs|cli|start)/' },
    },
    {
      name: 'doors-through-app',
      comment:
        'HTTP routes, the dashboard, the assistant and the CLI reach the database only through src/app use cases (one rule, one place). ' +
        'Types may be shared; db/infra/errors.ts classifies PostgreSQL errors for the error answer. Jobs process the inbox rows they own directly.',
      severity: 'error',
      from: { path: '^src/(http|mcp|cli)/' },
      to: { path: '^src/db/', pathNot: '^src/db/infra/errors\\.ts$', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'nothing-imports-start',
      comment: 'src/start wires the process; only the CLI entry point may start it.',
      severity: 'error',
      from: { pathNot: '^src/(start|cli)/' },
      to: { path: '^src/start/' },
    },
    {
      name: 'src-stays-in-src',
      comment: 'The build type-checks src alone (tsconfig.build.json, rootDir src): src imports nothing from scripts/, test/ or the other folders.',
      severity: 'error',
      from: { path: '^src/' },
      to: { pathNot: '^src/', dependencyTypes: ['local'] },
    },
    {
      name: 'no-circular',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    exclude: { path: '\\.test\\.ts$' },
  },
};

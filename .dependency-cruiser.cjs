/**
 * The layers of src/, checked by `npm run layers` (dependency-cruiser) in CI. docs/architecture.md draws them.
 *
 *   core ← config.ts, keys.ts ← db ← access ← http ← each resource (repository ← service ← routes)
 *        ← app.ts, api.ts ← server.ts, cluster.ts, control.ts, seed/, cli/
 *
 * A lower layer never imports a higher one. A resource folder reaches another resource only through that
 * resource's service (`service.ts`, `*.service.ts`) or its schema (`schema.ts`: types and TypeBox schemas);
 * its repositories and routes are its own. Nothing imports `cli/`; only app.ts registers the console.
 */
const RESOURCES =
  '(applications|approvals|audit|bills|events|health|invitations|locations|lookups|mail|oauth|procurement-settings|purchase-orders|receipts|requests|roles|scim|sessions|sso|tenants|users|vendors|webhooks)'
/** What one resource may import of another: its services and its schema. */
const PUBLIC_FACE = `^src/${RESOURCES}/[a-z.-]*(service|schema|cache)\\.ts$`
/** What src/documents.ts lists: each document's approval handler and its attachable (the document's face to the engines). */
const DOCUMENT_FACE = `^src/${RESOURCES}/attachable\\.ts$`
const ENTRY_POINTS = '^src/(app|api|server|cluster|control|control-client|documents)\\.ts$|^src/(seed|cli|console)/'

/** A rule that keeps `layer` (a path pattern) from importing anything but `allowed` (path patterns) in src/. */
const onlyImports = (name, layer, allowed, comment) => ({
  name,
  comment,
  severity: 'error',
  from: { path: layer },
  to: { path: '^src/', pathNot: allowed },
})

module.exports = {
  forbidden: [
    onlyImports(
      'core-is-independent',
      '^src/core/',
      ['^src/core/'],
      'core/ is framework-free and imports nothing of ours.',
    ),
    onlyImports(
      'config-below-db',
      '^src/(config|keys)\\.ts$',
      ['^src/core/', '^src/(config|keys)\\.ts$'],
      'Settings and keys import only core/.',
    ),
    onlyImports(
      'db-below-resources',
      '^src/db/',
      ['^src/(core|db)/', '^src/config\\.ts$'],
      'db/ (Kysely, migrations, table types, paging) imports only core/ and the settings.',
    ),
    onlyImports(
      'access-below-http',
      '^src/access/',
      ['^src/(core|db|access)/', '^src/(config|keys)\\.ts$'],
      'access/ (who acts, with which permissions) sits under the HTTP edges and the resources.',
    ),
    onlyImports(
      'http-below-resources',
      '^src/http/',
      ['^src/(core|db|access|http)/', '^src/(config|keys)\\.ts$'],
      'http/ holds the shared edges every resource uses; it never reaches into a resource.',
    ),
    {
      name: 'resource-through-its-service',
      comment: "A resource reaches another resource only through that resource's service or schema.",
      severity: 'error',
      from: { path: `^src/([^/]+)/` },
      to: { path: `^src/${RESOURCES}/`, pathNot: ['^src/$1/', PUBLIC_FACE] },
    },
    {
      name: 'entry-points-through-services',
      comment:
        "app.ts, api.ts, server.ts and cluster.ts use a resource's routes and plugins (`*.plugin.ts`), services and schema.",
      severity: 'error',
      from: { path: '^src/[^/]+\\.ts$' },
      to: {
        path: `^src/${RESOURCES}/`,
        pathNot: [PUBLIC_FACE, DOCUMENT_FACE, `^src/${RESOURCES}/[a-z.-]*(routes|plugin)\\.ts$`],
      },
    },
    {
      name: 'resources-below-entry-points',
      comment: 'Resources, http/, db/ and the rest never import the app, the server, the seed, the CLI or the console.',
      severity: 'error',
      from: { path: '^src/', pathNot: ENTRY_POINTS },
      to: { path: ENTRY_POINTS },
    },
    {
      name: 'repository-below-service',
      comment: 'A repository holds SQL and nothing else: it imports no service and no routes.',
      severity: 'error',
      from: { path: '^src/[^/]+/[a-z.-]*repository\\.ts$' },
      to: { path: '(service|routes)\\.ts$' },
    },
    {
      name: 'service-below-routes',
      comment: 'Services hold the rules and know nothing of routes.',
      severity: 'error',
      from: { path: '^src/[^/]+/[a-z.-]*service\\.ts$' },
      to: { path: '(^|/)routes\\.ts$' },
    },
    {
      name: 'nothing-imports-the-cli',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/cli/' },
      to: { path: '^src/cli/' },
    },
    {
      name: 'only-app-registers-the-console',
      severity: 'error',
      from: { path: '^src/', pathNot: ['^src/console/', '^src/app\\.ts$'] },
      to: { path: '^src/console/' },
    },
    {
      name: 'seed-for-entry-points',
      comment: 'The demo seed is run by `serve` and the CLI, nothing else.',
      severity: 'error',
      from: { path: '^src/', pathNot: ['^src/seed/', '^src/(server|cluster)\\.ts$', '^src/cli/'] },
      to: { path: '^src/seed/' },
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
    includeOnly: '^src/',
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default'] },
  },
}

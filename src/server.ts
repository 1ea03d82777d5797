/**
 * `procurement serve`: open and prepare the database, listen, and shut down gracefully on SIGTERM/SIGINT
 * (stop accepting, let in-flight requests finish, close the database and release the data directory).
 */
import net from 'node:net'
import type { FastifyInstance } from 'fastify'
import { buildApp } from './app.ts'
import { ConfigError, type Config } from './config.ts'
import { publicBase } from './http/public-url.ts'
import { setupPath } from './invitations/service.ts'
import { openDatabase, type Database } from './db/database.ts'
import { startMaintenance } from './db/maintenance.ts'
import { migrateToLatest } from './db/migrate.ts'
import { serverKeys } from './keys.ts'
import { smtpTransport, startMailer } from './mail/mailer.ts'
import { demoCredentialsToShow, markDemoCredentialsShown } from './seed/demo-credentials.ts'
import { DEMO_DOMAIN, seedDemo } from './seed/demo.ts'
import { countTenants } from './tenants/repository.ts'

const SHUTDOWN_GRACE_MS = 10_000

/** Migrates; on a database with no tenant at all, seeds the demo tenant when configured to (config.demoSeed). */
export async function prepareDatabase(database: Database, config: Readonly<Config>): Promise<void> {
  await migrateToLatest(database.db)
  if (!config.demoSeed) return
  if ((await countTenants(database.db)) === 0) await seedDemo(database.db)
}

/** Fails with advice when HOST:PORT cannot be listened on (taken, or not an address of this machine). */
async function checkPortFree(config: Readonly<Config>): Promise<void> {
  if (config.PORT === 0) return
  await new Promise<void>((resolve, reject) => {
    const probe = net.createServer()
    probe.once('error', (error: NodeJS.ErrnoException) => {
      const what =
        error.code === 'EADDRINUSE'
          ? `Port ${config.PORT} on ${config.HOST} is in use by another process: stop it, or set PORT to a free port.`
          : error.code === 'EACCES'
            ? `Port ${config.PORT} needs privileges this process lacks: set PORT to 1024 or above.`
            : `Cannot listen on ${config.HOST}:${config.PORT} (${error.code ?? error.message}): check HOST and PORT.`
      reject(new ConfigError(what))
    })
    probe.listen({ port: config.PORT, host: config.HOST, exclusive: true }, () => probe.close(() => resolve()))
  })
}

/** Single-tenant mode names no tenant by host: with several tenants it could not tell whose a request is. */
async function checkTenancy(database: Database, config: Readonly<Config>): Promise<void> {
  if (config.BASE_DOMAIN !== undefined) return
  const tenants = await countTenants(database.db)
  if (tenants > 1) {
    throw new ConfigError(
      `This database has ${tenants} tenants, but BASE_DOMAIN is not set (single-tenant mode). Set BASE_DOMAIN (e.g. BASE_DOMAIN=procurement.example.com, so acme.procurement.example.com is tenant acme) and start again.`,
    )
  }
}

export async function serve(
  config: Readonly<Config>,
  out: (line: string) => void = console.log,
): Promise<FastifyInstance> {
  const keys = serverKeys(config)
  let app: FastifyInstance | undefined
  // Before any migration or first-start work: a taken port is said at once, not after the database is built.
  await checkPortFree(config)
  const database = await openDatabase(config, {
    command: 'serve',
    progress: (line) => console.error(line),
    prepare: (db) => prepareDatabase(db, config),
    onError: (error) => app?.log.error({ err: { message: error.message } }, 'database connection error'),
  })
  try {
    await checkTenancy(database, config)
    app = await buildApp({ config, database, keys })
    await app.listen({ port: config.PORT, host: config.HOST })
  } catch (error) {
    await app?.close()
    await database.close()
    throw error
  }
  const address = app.server.address()
  const port = typeof address === 'object' && address !== null ? address.port : config.PORT
  const host = ['0.0.0.0', '::'].includes(config.HOST) ? '127.0.0.1' : config.HOST
  // Signals are handled from the moment the port is open, so a stop right after start is a graceful one too.
  const stopMaintenance = startMaintenance(database, app.log)
  const stopMailer =
    config.SMTP_URL === undefined
      ? async () => {}
      : startMailer(database.db, smtpTransport(config.SMTP_URL), config.MAIL_FROM, app.log)

  let closing = false
  const shutdown = (signal: string) => {
    if (closing) {
      app.log.warn({ signal }, 'second signal: exiting now')
      process.exit(1)
    }
    closing = true
    app.log.info({ signal }, 'shutting down')
    const force = setTimeout(() => {
      app.log.error('shutdown took too long: exiting')
      process.exit(1)
    }, SHUTDOWN_GRACE_MS)
    force.unref()
    app
      .close()
      .then(() => Promise.all([stopMailer(), stopMaintenance()]))
      .then(() => database.close())
      .then(() => process.exit(0))
      .catch((error: unknown) => {
        app.log.error({ err: error }, 'shutdown failed')
        process.exit(1)
      })
  }
  process.once('SIGTERM', () => shutdown('SIGTERM'))
  process.once('SIGINT', () => shutdown('SIGINT'))

  // Everything the operator must see goes out in one write, the secret at most once.
  const demo = await demoCredentialsToShow(database.db, keys.pepper)
  const lines = [`Procurement service listening on http://${host.includes(':') ? `[${host}]` : host}:${port}`]
  if (demo !== undefined) {
    const base = publicBase(config, DEMO_DOMAIN) ?? `http://${host.includes(':') ? `[${host}]` : host}:${port}`
    lines.push(
      'Demo application for admin@example.com (domain "demo"). The secret is shown only this once:',
      `Client ID: ${demo.client_id}`,
      `Client Secret: ${demo.client_secret}`,
      `Console: set a password for admin@example.com within 24 hours at ${base}${setupPath(demo.setupToken)}`,
    )
  }
  out(lines.join('\n'))
  if (demo !== undefined) await markDemoCredentialsShown(database.db, demo.client_id)

  return app
}

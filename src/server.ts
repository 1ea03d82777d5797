/**
 * `procurement serve`: open and prepare the database, listen, and shut down gracefully on SIGTERM/SIGINT
 * (stop accepting, let in-flight requests finish, close the database and release the data directory).
 *
 * With WORKERS > 1 (PostgreSQL only) the process is a cluster primary: it does the once-only work (port
 * check, migrations, demo seed, tenancy check), listens and forks the workers (cluster.ts), and prints the
 * "listening" lines and any demo credentials once, when all of them are ready. Each worker opens its own pool
 * and serves the connections the primary hands it.
 */
import cluster from 'node:cluster'
import { randomUUID } from 'node:crypto'
import fs from 'node:fs'
import net from 'node:net'
import os from 'node:os'
import path from 'node:path'
import type { FastifyInstance } from 'fastify'
import pino from 'pino'
import { attemptsHost, shareAttemptsWithPrimary } from './access/attempts.ts'
import { buildApp } from './app.ts'
import {
  ClusterStartError,
  CONNECTION_MESSAGE,
  READY_MESSAGE,
  START_FAILED_MESSAGE,
  startCluster,
  STOP_MESSAGE,
  type Answer,
  type StartFailure,
} from './cluster.ts'
import { ConfigError, type Config } from './config.ts'
import { releaseMemoryWhenIdle } from './core/idle-memory.ts'
import { keepAllocatorThresholds } from './core/native-memory.ts'
import { serveControl } from './control.ts'
import { metricsHost } from './http/metrics.ts'
import { publicBase } from './http/public-url.ts'
import { setupPath } from './invitations/service.ts'
import { openDatabase, openDatabaseInBackground, ping, type Database } from './db/database.ts'
import { MAINTENANCE_INTERVAL_MS, startMaintenance } from './db/maintenance.ts'
import { serverKeys, type ServerKeys } from './keys.ts'
import { demoCredentialsPending, demoCredentialsToShow, markDemoCredentialsShown } from './seed/demo-credentials.ts'
import { DEMO_DOMAIN } from './seed/demo.ts'
import { prepareDatabase } from './seed/prepare.ts'
import { countTenants } from './tenants/service.ts'
import { CHANNEL as WEBHOOKS_CHANNEL, startWebhookWorker } from './webhooks/worker.service.ts'

const SHUTDOWN_GRACE_MS = 10_000
/**
 * How long after listening the work that can wait begins, so that it does not delay the first requests: the
 * webhook worker's first look for due deliveries (see `run`), the allocator's thresholds on PostgreSQL.
 */
const AFTER_LISTEN_MS = 1000
/** After this long without a request, the heap's garbage is collected once (core/idle-memory.ts). */
const IDLE_RELEASE_MS = 20_000

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
): Promise<FastifyInstance | undefined> {
  // Before the embedded database opens: its compilation frees large blocks (core/native-memory.ts). On
  // PostgreSQL nothing that large is freed while starting, so loading the allocator's library (about 5 ms)
  // waits until a moment after the server listens (serveOne).
  if (config.DATABASE_URL === undefined || config.WORKERS > 1) keepAllocatorThresholds()
  if (config.WORKERS > 1) {
    if (config.DATABASE_URL === undefined) {
      throw new ConfigError(
        `WORKERS=${config.WORKERS} needs DATABASE_URL: the embedded database is served by one process. Unset WORKERS (or set it to 1), or set DATABASE_URL.`,
      )
    }
    return cluster.isPrimary ? servePrimary(config, out) : serveWorker(config)
  }
  return serveOne(config, out)
}

/** One process: the database, the app and the port, as `procurement serve` has always run. */
async function serveOne(config: Readonly<Config>, out: (line: string) => void): Promise<FastifyInstance> {
  const keys = serverKeys(config)
  const ref: { app?: FastifyInstance } = {}
  // Before any migration or first-start work: a taken port is said at once, not after the database is built.
  await checkPortFree(config)
  // The embedded engine opens in the background while the app is built (db/database.ts): nothing is served
  // before it is open, prepared and its tenancy checked.
  const { database, ready } = await openDatabaseInBackground(config, {
    command: 'serve',
    progress: (line) => console.error(line),
    prepare: (db) => prepareDatabase(db, config),
    seedsDemo: config.demoSeed,
    onError: (error) => ref.app?.log.error({ err: { message: error.message } }, 'database connection error'),
  })
  const prepared = ready.then(() => checkTenancy(database, config))
  // Awaited by `run` once the app is built; until then a failure is not an unhandled rejection.
  prepared.catch(() => undefined)
  // Asked while the app is built, so that a restart announces itself as soon as it listens (see `announce`).
  const demoPending = prepared.then(() => demoCredentialsPending(database.db))
  demoPending.catch(() => undefined)
  const { app, port } = await run(config, database, keys, ref, { prepared })
  if (config.DATABASE_URL !== undefined) setTimeout(keepAllocatorThresholds, AFTER_LISTEN_MS).unref()
  if (config.DATABASE_URL === undefined) {
    // The embedded database is this process's alone: the CLI asks through DATA_DIR/control.sock instead.
    await serveControl(config.dataDir, database.db, keys).catch((error: unknown) =>
      app.log.warn({ err: error }, 'control socket unavailable: CLI commands need the server stopped'),
    )
  }
  await announce(config, database, keys, port, out, '', demoPending)
  return app
}

/** A cluster worker's side of `run`: where it listens, and how it learns to stop. */
interface WorkerRole {
  /** The private socket its server listens on (nothing connects there: the primary hands it connections). */
  path: string
  stopWhen: (stop: () => void) => void
}

/**
 * Builds the app on `database`, waits for `prepared` (the database open and checked, which the app's build
 * overlaps), listens, starts the background jobs, and stops it all gracefully on SIGTERM/SIGINT — or, in a
 * cluster worker, when `worker.stopWhen` calls the function it is given (the primary said stop). Closes the
 * database if it cannot start.
 */
async function run(
  config: Readonly<Config>,
  database: Database,
  keys: ServerKeys,
  ref: { app?: FastifyInstance },
  { worker, prepared = Promise.resolve() }: { worker?: WorkerRole; prepared?: Promise<void> } = {},
): Promise<{ app: FastifyInstance; port: number }> {
  let app: FastifyInstance | undefined
  // Loaded only when mail is configured (a deployment without SMTP never pays for the mail library), and
  // before the port opens, so nothing is awaited between listening and handling signals.
  const mail = config.SMTP_URL === undefined ? undefined : await import('./mail/smtp.service.ts')
  // The webhook worker listens on the app's LISTEN connection (one per process); it logs through the app. It
  // first looks for due deliveries a moment after the server listens, not before the first requests.
  let listening!: () => void
  const listened = new Promise<void>((resolve) => (listening = resolve))
  const webhooks = startWebhookWorker(
    database,
    config,
    {
      error: (obj, msg) => ref.app?.log.error(obj, msg),
      warn: (obj, msg) => ref.app?.log.warn(obj, msg),
    },
    {
      listen: false,
      startAfter: listened.then(() => new Promise((resolve) => setTimeout(resolve, AFTER_LISTEN_MS).unref())),
    },
  )
  try {
    app = ref.app = await buildApp({
      config,
      database,
      keys,
      clusterWorker: worker !== undefined,
      subscribers: { [WEBHOOKS_CHANNEL]: webhooks.subscriber },
    })
    await prepared
    await app.listen(
      worker === undefined
        ? { port: config.PORT, host: config.HOST }
        : { path: worker.path, exclusive: true, listenTextResolver: () => 'worker ready' },
    )
  } catch (error) {
    // Each step runs whatever the one before says (the last releases the data directory); the failure to
    // report is the start's.
    await app?.close().catch(() => undefined)
    await webhooks.stop().catch(() => undefined)
    await database.close().catch(() => undefined)
    throw error
  }
  listening()
  const address = app.server.address()
  // A worker's own address is its private socket: the port is the primary's (config.PORT, set by it).
  const port = typeof address === 'object' && address !== null ? address.port : config.PORT
  // Signals are handled from the moment the port is open, so a stop right after start is a graceful one too.
  const idleRelease = releaseMemoryWhenIdle(app.server, IDLE_RELEASE_MS)
  const stopMaintenance = startMaintenance(database, app.log, MAINTENANCE_INTERVAL_MS, idleRelease.worked)
  const stopMailer =
    config.SMTP_URL === undefined
      ? async () => {}
      : mail!.startMailer(database.db, mail!.smtpTransport(config.SMTP_URL), config.MAIL_FROM, app.log)

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
      .then(() => {
        idleRelease.stop()
        return Promise.all([stopMailer(), stopMaintenance(), webhooks.stop()])
      })
      .then(() => database.close())
      .then(() => process.exit(0))
      .catch((error: unknown) => {
        app.log.error({ err: error }, 'shutdown failed')
        process.exit(1)
      })
  }
  process.once('SIGTERM', () => shutdown('SIGTERM'))
  process.once('SIGINT', () => shutdown('SIGINT'))
  // A request to stop is not a second signal: a worker may get SIGINT from the terminal and the primary's word.
  worker?.stopWhen(() => {
    if (!closing) shutdown('primary')
  })
  // The console and SCIM are built a moment after the port opens, or by their first requests if those come
  // sooner (http/mount.ts): the API is served without waiting for them.
  setTimeout(() => {
    if (!closing)
      app
        .prepareMounts()
        .catch((error: unknown) => app.log.error({ err: error }, 'the console or SCIM failed to start'))
  }, AFTER_LISTEN_MS).unref()
  return { app, port }
}

/**
 * Everything the operator must see goes out in one write, the secret at most once. `pending` is what
 * `demoCredentialsPending` said, if the caller asked it earlier: when it says there is nothing to show, the
 * locking transaction that would find that out is skipped (if it failed, that transaction decides, as it
 * always does).
 */
async function announce(
  config: Readonly<Config>,
  database: Database,
  keys: ServerKeys,
  port: number,
  out: (line: string) => void,
  suffix = '',
  pending: Promise<boolean> = Promise.resolve(true),
): Promise<void> {
  const host = ['0.0.0.0', '::'].includes(config.HOST) ? '127.0.0.1' : config.HOST
  const worthAsking = await pending.catch(() => true)
  const demo = worthAsking ? await demoCredentialsToShow(database.db, keys.pepper) : undefined
  const origin = `http://${host.includes(':') ? `[${host}]` : host}:${port}`
  const lines = [`Procurement service listening on ${origin}${suffix}`]
  if (demo !== undefined) {
    const base = publicBase(config, DEMO_DOMAIN) ?? origin
    lines.push(
      'Demo application for admin@example.com (domain "demo"). The secret is shown only this once:',
      `Client ID: ${demo.client_id}`,
      `Client Secret: ${demo.client_secret}`,
      `Console: set a password for admin@example.com within 24 hours at ${base}${setupPath(demo.setupToken)}`,
    )
  }
  out(lines.join('\n'))
  if (demo !== undefined) await markDemoCredentialsShown(database.db, demo.client_id)
}

/** The primary's answers to its workers: the first of `hosts` that knows the message answers it. */
function answerWorkers(...hosts: Answer[]): Answer {
  return (message, workers) => {
    for (const host of hosts) {
      const answer = host(message, workers)
      if (answer !== undefined) return answer
    }
    return undefined
  }
}

/** A known start-up error is one line for the operator; anything else is named as a worker's failure. */
function failureLine(failure: StartFailure): string {
  return ['ConfigError', 'DatabaseStartError', 'OperatorError'].includes(failure.name)
    ? failure.message
    : `A worker failed to start: ${failure.message}`
}

/**
 * The cluster's primary: the once-only work, then the workers; "listening" (and the demo credentials) once
 * all of them listen. Its own pool is closed after that: the workers have theirs.
 */
async function servePrimary(config: Readonly<Config>, out: (line: string) => void): Promise<undefined> {
  const keys = serverKeys(config)
  // Synchronous: its few lines stay in order with the "listening" lines and the exit codes.
  const log = pino({ level: config.LOG_LEVEL }, pino.destination({ dest: 1, sync: true }))
  await checkPortFree(config)
  const database = await openDatabase(config, {
    command: 'serve',
    prepare: (db) => prepareDatabase(db, config),
    onError: (error) => log.error({ err: { message: error.message } }, 'database connection error'),
  })
  const report = (failure: StartFailure) => {
    if (failure.stack !== undefined && failureLine(failure) !== failure.message)
      log.error({ err: { message: failure.message, stack: failure.stack } }, 'worker start failed')
    console.error(`procurement: ${failureLine(failure)}`)
  }
  let failure: StartFailure | undefined
  try {
    await checkTenancy(database, config)
    const { port } = await startCluster({
      workers: config.WORKERS,
      listen: { host: config.HOST, port: config.PORT },
      graceMs: SHUTDOWN_GRACE_MS,
      log,
      answer: answerWorkers(attemptsHost(config), metricsHost()),
      report,
    })
    await announce(config, database, keys, port, out, ` (${config.WORKERS} workers)`)
  } catch (error) {
    if (!(error instanceof ClusterStartError)) throw error
    failure = error.failure
  } finally {
    await database.close()
  }
  if (failure !== undefined) {
    report(failure)
    process.exit(1)
  }
  return undefined
}

/**
 * Where a worker's server listens: an abstract socket on Linux (no file to leave behind), else a socket in a
 * directory of its own. Private to the worker; it serves the connections the primary sends it.
 */
function privateSocketPath(): string {
  const name = `procurement-worker-${process.pid}-${randomUUID()}`
  if (process.platform === 'linux') return `\0${name}`
  return path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'procurement-')), `${name}.sock`)
}

/**
 * A cluster worker: its own pool (migrations are the primary's business; it only checks it can connect), the
 * connections the primary hands it, the token brake counted on the primary. A failure to start goes to the
 * primary, which prints it once for all workers, instead of to the terminal.
 */
async function serveWorker(config: Readonly<Config>): Promise<FastifyInstance> {
  let stop: (() => void) | undefined
  let stopAsked = false
  const askStop = () => {
    stopAsked = true
    stop?.()
  }
  process.on('message', (message: unknown) => {
    if ((message as { type?: unknown } | null)?.type === STOP_MESSAGE) askStop()
  })
  process.on('disconnect', askStop) // the primary is gone: nothing will hand this worker connections
  try {
    shareAttemptsWithPrimary()
    const keys = serverKeys(config)
    const ref: { app?: FastifyInstance } = {}
    const database = await openDatabase(config, {
      command: 'serve',
      prepare: async (db) => {
        await ping(db)
      },
      onError: (error) => ref.app?.log.error({ err: { message: error.message } }, 'database connection error'),
    })
    const { app } = await run(config, database, keys, ref, {
      worker: {
        path: privateSocketPath(),
        stopWhen: (s) => {
          stop = s
          if (stopAsked) s()
        },
      },
    })
    process.on('message', (message: unknown, handle: unknown) => {
      if ((message as { type?: unknown } | null)?.type !== CONNECTION_MESSAGE || !(handle instanceof net.Socket)) return
      if (stopAsked || !app.server.listening) return void handle.destroy()
      adopt(app.server, handle)
    })
    process.send?.({ type: READY_MESSAGE })
    return app
  } catch (error) {
    return reportStartFailure(error)
  }
}

/**
 * Serves a connection the primary handed over as if this server had accepted it — including the count that
 * makes a graceful close wait for it (an emitted 'connection' alone is not counted, and the worker would then
 * exit under a request still in flight). These are the two fields net.Server's own accept sets.
 */
function adopt(server: net.Server, socket: net.Socket): void {
  const connections: unknown = Reflect.get(server, '_connections')
  Reflect.set(server, '_connections', (typeof connections === 'number' ? connections : 0) + 1)
  Reflect.set(socket, '_server', server) // its close counts it off again
  server.emit('connection', socket)
}

async function reportStartFailure(error: unknown): Promise<never> {
  if (process.send === undefined || !process.connected) throw error
  const failure: StartFailure =
    error instanceof Error
      ? { name: error.name, message: error.message, ...(error.stack !== undefined ? { stack: error.stack } : {}) }
      : { name: 'Error', message: String(error) }
  await new Promise<void>((resolve) =>
    process.send!({ type: START_FAILED_MESSAGE, error: failure }, undefined, {}, () => resolve()),
  )
  process.exit(1)
}

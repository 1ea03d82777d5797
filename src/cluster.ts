/**
 * Cluster mode (WORKERS > 1, PostgreSQL only): the primary process listens on the port and hands each
 * connection to a worker, round-robin; each worker serves it with its own database pool. This file is the
 * primary's side — listen, start the workers, replace one that dies, stop them all on SIGTERM/SIGINT — and
 * the few messages both sides exchange. The primary has done the once-only work (port check, migrations, demo
 * seed) before it forks, and prints the "listening" lines itself once every worker is ready (see server.ts).
 *
 * Why not node:cluster's own round-robin: its primary keeps its copy of a connection until the worker
 * acknowledges it, so a worker killed (`kill -9`) between receiving and acknowledging leaves that client
 * waiting forever. Here the primary closes its copy as soon as the connection is written to the worker's
 * channel; a connection in flight to a worker that dies is then closed by the kernel with the worker, and
 * one still queued for it is closed by the primary — the client sees a closed connection, never a hang
 * (docs/security.md, "Cluster workers and kill -9"). Each worker listens on a private socket of its own
 * only so that its HTTP server runs (and enforces its header and body time limits); nothing connects there.
 *
 * - A worker that dies unexpectedly is replaced, with a log line.
 * - A worker that fails before it listens is tried again a second later; after as many start failures in a
 *   row as there are workers (at least 3), the primary stops the rest and fails with the first error, once.
 * - SIGTERM/SIGINT: every worker is told to stop (stop accepting, finish in-flight requests, close its
 *   pool; one still starting is just ended); the primary waits for all — a worker gives up after `graceMs`
 *   (exit 1), and 2 s later the primary kills what is left — and exits 0 if every serving worker stopped
 *   cleanly, else 1. A second signal exits at once.
 *
 * Questions between the processes (the plumbing; what is asked and answered is the business of the callers):
 * - A worker asks the primary (`askPrimary`): the primary's `answer` hook answers, at once or with a promise,
 *   and the answer goes back to that worker alone. No answer within the asker's time limit is undefined.
 * - The primary's `answer` hook may ask all serving workers at once (`workers.gather(topic)`): each worker
 *   answers with what it registered for that topic (`answerGathers`); the gather resolves with the answers
 *   that came within its time limit, so one worker that is stuck delays it but does not hang it.
 */
import cluster, { type Worker } from 'node:cluster'
import net from 'node:net'
import { ANSWER_MESSAGE, ASK_MESSAGE, GATHER_MESSAGE, GATHERED_MESSAGE, isNumbered, type Workers } from './core/ipc.ts'

export type { Workers } from './core/ipc.ts'

/** Primary → worker: stop gracefully (not a signal, so a worker that already got SIGINT from a terminal does
 * not take it for a second one). */
export const STOP_MESSAGE = 'procurement:stop'
/** Worker → primary, just before it exits: why it could not start (printed by the primary, once). */
export const START_FAILED_MESSAGE = 'procurement:start-failed'
/** Worker → primary: ready for connections (sent once its server listens). */
export const READY_MESSAGE = 'procurement:ready'
/** Primary → worker, with a connection's socket as the handle: serve it. */
export const CONNECTION_MESSAGE = 'procurement:connection'

export interface StartFailure {
  /** The error's class name (ConfigError and DatabaseStartError are one-line messages for the operator). */
  name: string
  message: string
  stack?: string
}

export interface Log {
  info(obj: object, msg: string): void
  warn(obj: object, msg: string): void
  error(obj: object, msg: string): void
}

export interface ClusterOptions {
  workers: number
  /** Where the primary listens (port 0: any free port; the workers get the port chosen as PORT). */
  listen: { host: string; port: number }
  /** How long a worker takes at most to stop (it exits 1 after that); the primary kills it 2 s later. */
  graceMs: number
  log: Log
  /** Answers the workers' messages and questions (e.g. the token brake's, the cluster's metrics). */
  answer?: Answer
  /** Told why the cluster gives up after it started (workers keep failing to start): print it, once. */
  report?: (failure: StartFailure) => void
}

/**
 * The primary's answer to a worker's message (e.g. the token brake's) or question (`askPrimary`, e.g. the
 * cluster's metrics), at once or with a promise; undefined for messages it does not know. `workers` lets it
 * ask them all.
 */
export type Answer = (message: unknown, workers: Workers) => object | Promise<object | undefined> | undefined

/** The workers failed to start: `failure` says why (the first worker's error). */
export class ClusterStartError extends Error {
  override name = 'ClusterStartError'
  constructor(readonly failure: StartFailure) {
    super(failure.message)
  }
}

const RETRY_START_AFTER_MS = 1000
/** Connections kept while no worker is ready (between a crash and its replacement); more are closed. */
const MAX_WAITING_CONNECTIONS = 1024

function isStartFailure(message: unknown): message is { type: string; error: StartFailure } {
  if (typeof message !== 'object' || message === null) return false
  const { type, error } = message as { type?: unknown; error?: unknown }
  if (type !== START_FAILED_MESSAGE || typeof error !== 'object' || error === null) return false
  const { name, message: text } = error as { name?: unknown; message?: unknown }
  return typeof name === 'string' && typeof text === 'string'
}

/**
 * Listens, forks `workers` workers (this must be the primary) and resolves with the port once all of them are
 * ready; rejects with a ClusterStartError if they keep failing to start (or the listen error, if it cannot
 * listen). Signal handlers are installed once it listens.
 */
export async function startCluster(options: ClusterOptions): Promise<{ port: number }> {
  const dispatcher = new Dispatcher()
  const server = net.createServer({ pauseOnConnect: true }, (socket) => dispatcher.dispatch(socket))
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen({ ...options.listen, exclusive: true }, () => {
      server.off('error', reject)
      resolve()
    })
  })
  server.on('error', (error) => options.log.error({ err: { message: error.message } }, 'accept failed'))
  const address = server.address()
  const port = typeof address === 'object' && address !== null ? address.port : options.listen.port
  const stopAccepting = () => {
    server.close()
    dispatcher.close()
  }
  return new Promise((resolve, reject) => {
    const primary = new Primary(options, port, dispatcher, stopAccepting, resolve, reject)
    process.on('SIGTERM', () => primary.shutdown('SIGTERM'))
    process.on('SIGINT', () => primary.shutdown('SIGINT'))
    cluster.on('message', (worker, message: unknown) => primary.received(worker, message))
    cluster.on('exit', (worker, code, signal) => primary.exited(worker, code, signal))
    for (let i = 0; i < options.workers; i++) primary.fork()
  })
}

/**
 * Hands connections to the ready workers in turn. The primary's copy of a socket is closed once it is written
 * to the worker's channel (`keepOpen`, then destroy in the callback) — not when the worker acknowledges it,
 * as node:cluster does — and the sockets still queued for a worker that exits are closed: a worker's death
 * never leaves a client waiting. Connections that come while no worker is ready wait (up to a limit).
 */
class Dispatcher {
  readonly #ready: Worker[] = []
  readonly #queued = new Map<Worker, Set<net.Socket>>()
  readonly #waiting: net.Socket[] = []
  #turn = 0
  #closed = false

  /** A worker is ready: it takes its turn, starting with the connections that waited. */
  add(worker: Worker): void {
    if (this.#closed || this.#queued.has(worker)) return
    this.#ready.push(worker)
    this.#queued.set(worker, new Set())
    for (const socket of this.#waiting.splice(0)) this.dispatch(socket)
  }

  /** A worker exited or is stopping: it gets nothing more, and what was queued for it is closed. */
  remove(worker: Worker): void {
    const at = this.#ready.indexOf(worker)
    if (at !== -1) this.#ready.splice(at, 1)
    for (const socket of this.#queued.get(worker) ?? []) socket.destroy()
    this.#queued.delete(worker)
  }

  dispatch(socket: net.Socket): void {
    socket.on('error', () => socket.destroy()) // reset by the client while it waited: nothing to do
    if (this.#closed) return void socket.destroy()
    const worker = this.#next()
    if (worker === undefined) {
      if (this.#waiting.length >= MAX_WAITING_CONNECTIONS) return void socket.destroy()
      return void this.#waiting.push(socket)
    }
    const queued = this.#queued.get(worker)!
    queued.add(socket)
    const done = () => {
      queued.delete(socket)
      socket.destroy() // sent (the worker has its own copy) or not (the worker is gone): either way, ours closes
    }
    try {
      worker.send({ type: CONNECTION_MESSAGE }, socket, { keepOpen: true }, done)
    } catch {
      done()
    }
  }

  /** Stops dispatching: the waiting connections are closed. */
  close(): void {
    this.#closed = true
    for (const socket of this.#waiting.splice(0)) socket.destroy()
  }

  #next(): Worker | undefined {
    while (this.#ready.length > 0) {
      const worker = this.#ready[this.#turn++ % this.#ready.length]!
      if (worker.isConnected()) return worker
      this.remove(worker)
    }
    return undefined
  }
}

/** Sends, unless the worker is gone (then `gone`, if given: a worker gone meanwhile answers nothing). */
function send(worker: Worker, message: object, gone?: () => void): void {
  if (!worker.isConnected()) return gone?.()
  try {
    worker.send(message, undefined, (error: Error | null) => {
      if (error !== null) gone?.()
    })
  } catch {
    gone?.()
  }
}

/** The primary's state: which workers serve, how starts go, whether it is closing. */
class Primary {
  readonly #listening = new Set<Worker>()
  readonly #failures = new WeakMap<Worker, StartFailure>()
  readonly #gathers = new Gathers(this.#listening)
  readonly #maxStartFailures: number
  #started = false
  #closing = false
  #startFailures = 0
  #firstFailure: StartFailure | undefined

  constructor(
    readonly options: ClusterOptions,
    readonly port: number,
    readonly dispatcher: Dispatcher,
    readonly stopAccepting: () => void,
    readonly resolve: (value: { port: number }) => void,
    readonly reject: (error: Error) => void,
  ) {
    this.#maxStartFailures = Math.max(3, options.workers)
  }

  fork(): void {
    if (this.#closing) return
    const worker = cluster.fork({ PORT: String(this.port) })
    worker.on('error', (error: Error) => this.options.log.error({ err: { message: error.message } }, 'worker error'))
  }

  /** A worker is ready for connections. */
  ready(worker: Worker): void {
    if (this.#closing || this.#listening.has(worker)) return
    this.#listening.add(worker)
    this.dispatcher.add(worker)
    this.#startFailures = 0
    this.#firstFailure = undefined
    this.options.log.info({ worker_pid: worker.process.pid, workers: this.#listening.size }, 'worker listening')
    if (!this.#started && this.#listening.size === this.options.workers) {
      this.#started = true
      this.resolve({ port: this.port })
    }
  }

  /** A worker's message: why it failed to start, its reply to a gather, or something for the `answer` hook. */
  received(worker: Worker, message: unknown): void {
    if (isStartFailure(message)) return void this.#failures.set(worker, message.error)
    if ((message as { type?: unknown } | null)?.type === READY_MESSAGE) return this.ready(worker)
    if (isNumbered(message, GATHERED_MESSAGE)) return this.#gathers.replied(worker, message)
    const question = isNumbered(message, ASK_MESSAGE) ? message : undefined
    const workers: Workers = {
      count: this.options.workers,
      gather: (topic, within) => this.#gathers.ask(topic, within),
    }
    // An answer that cannot be sent is dropped: the worker is gone, or it does without (see askPrimary).
    Promise.resolve()
      .then(() => this.options.answer?.(question === undefined ? message : question.question, workers))
      .then(
        (answer) => {
          if (question !== undefined)
            send(worker, { type: ANSWER_MESSAGE, id: question.id, ...(answer === undefined ? {} : { answer }) })
          else if (answer !== undefined) send(worker, answer)
        },
        (error: unknown) => {
          const text = error instanceof Error ? error.message : String(error)
          this.options.log.error({ err: { message: text } }, 'answer failed')
          if (question !== undefined) send(worker, { type: ANSWER_MESSAGE, id: question.id })
        },
      )
  }

  /** A worker exited: a serving one is replaced; one that failed to start is tried again, up to a limit. */
  exited(worker: Worker, code: number, signal: string | null): void {
    this.#gathers.gone(worker)
    this.dispatcher.remove(worker)
    const wasListening = this.#listening.delete(worker)
    if (this.#closing) return
    const how = signal !== null ? { signal } : { code }
    const { log } = this.options
    if (wasListening) {
      log.error({ worker_pid: worker.process.pid, ...how }, 'worker exited unexpectedly: starting a replacement')
      return this.fork()
    }
    this.#startFailures += 1
    const failure = this.#failures.get(worker) ?? {
      name: 'Error',
      message: `it exited (${signal ?? `code ${code}`}) before it was listening.`,
    }
    this.#firstFailure ??= failure
    if (this.#startFailures >= this.#maxStartFailures) return this.#giveUp(this.#firstFailure)
    log.warn(
      {
        worker_pid: worker.process.pid,
        ...how,
        start_failures: this.#startFailures,
        give_up_at: this.#maxStartFailures,
      },
      'worker failed to start: trying again',
    )
    setTimeout(() => this.fork(), RETRY_START_AFTER_MS)
  }

  /** SIGTERM/SIGINT: stop every worker gracefully; a second signal exits at once. */
  shutdown(signal: NodeJS.Signals): void {
    if (this.#closing) {
      this.options.log.warn({ signal }, 'second signal: exiting now')
      for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill('SIGKILL')
      process.exit(1)
    }
    this.#closing = true
    this.stopAccepting()
    this.options.log.info({ signal, workers: this.#listening.size }, 'shutting down')
    void this.#stopAll().then((clean) => process.exit(clean ? 0 : 1))
  }

  #giveUp(failure: StartFailure): void {
    this.#closing = true
    this.stopAccepting()
    this.options.log.error({ start_failures: this.#startFailures }, 'workers keep failing to start: stopping')
    void this.#stopAll().then(() => {
      if (!this.#started) return this.reject(new ClusterStartError(failure))
      this.options.report?.(failure)
      process.exit(1)
    })
  }

  /** Stops every worker; says whether each one that was serving stopped cleanly (exit code 0). */
  #stopAll(): Promise<boolean> {
    const live = Object.values(cluster.workers ?? {}).filter((w): w is Worker => w !== undefined && !w.isDead())
    let clean = true
    const exits = live.map((worker) => {
      const serving = this.#listening.has(worker)
      const exited = new Promise<void>((done) =>
        worker.once('exit', (code, signal) => {
          if (serving && (code !== 0 || signal !== null)) clean = false
          done()
        }),
      )
      // One still starting has no requests to finish (and may not listen for messages yet): SIGTERM ends it.
      if (!serving) worker.process.kill('SIGTERM')
      else if (worker.isConnected()) worker.send({ type: STOP_MESSAGE }, undefined, () => {}) // if gone, it is exiting
      return exited
    })
    // A worker gives up on its own after graceMs (exit 1); this is the backstop for one that cannot.
    const force = setTimeout(() => {
      const left = live.filter((w) => !w.isDead())
      this.options.log.error({ workers: left.map((w) => w.process.pid) }, 'workers took too long to stop: killing them')
      for (const worker of left) worker.process.kill('SIGKILL')
    }, this.options.graceMs + 2000)
    return Promise.all(exits).then(() => {
      clearTimeout(force)
      return clean
    })
  }
}

/** The primary's gathers under way: each asks every serving worker and waits for their replies, within a limit. */
class Gathers {
  readonly #pending = new Map<number, (worker: Worker, reply: Record<string, unknown>) => void>()
  #last = 0

  constructor(readonly listening: ReadonlySet<Worker>) {}

  ask(topic: string, withinMs: number): Promise<unknown[]> {
    const asked = new Set([...this.listening].filter((w) => w.isConnected()))
    const id = ++this.#last
    const answers: unknown[] = []
    return new Promise((resolve) => {
      const finish = () => {
        clearTimeout(timer)
        this.#pending.delete(id)
        resolve(answers)
      }
      const timer = setTimeout(finish, withinMs)
      const settled = (worker: Worker) => {
        if (asked.delete(worker) && asked.size === 0) finish()
      }
      this.#pending.set(id, (worker, reply) => {
        if (asked.has(worker) && 'answer' in reply) answers.push(reply.answer)
        settled(worker)
      })
      if (asked.size === 0) return finish()
      for (const worker of asked) send(worker, { type: GATHER_MESSAGE, id, topic }, () => settled(worker))
    })
  }

  /** One worker's reply; one that came too late is dropped. */
  replied(worker: Worker, reply: Record<string, unknown> & { id: number }): void {
    this.#pending.get(reply.id)?.(worker, reply)
  }

  /** A worker exited: it will not answer, so no gather waits for it. */
  gone(worker: Worker): void {
    for (const replied of this.#pending.values()) replied(worker, {})
  }
}

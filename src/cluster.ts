/**
 * Cluster mode (WORKERS > 1, PostgreSQL only): the primary process forks the workers, each of which serves
 * the one port (node:cluster hands connections out round-robin) with its own database pool. This file is the
 * primary's side — start the workers, replace one that dies, stop them all on SIGTERM/SIGINT — and the few
 * messages both sides exchange. The primary has done the once-only work (port check, migrations, demo seed)
 * before it forks, and prints the "listening" lines itself once every worker listens (see server.ts).
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
import { ANSWER_MESSAGE, ASK_MESSAGE, GATHER_MESSAGE, GATHERED_MESSAGE, isNumbered, type Workers } from './core/ipc.ts'

export type { Workers } from './core/ipc.ts'

/** Primary → worker: stop gracefully (not a signal, so a worker that already got SIGINT from a terminal does
 * not take it for a second one). */
export const STOP_MESSAGE = 'procurement:stop'
/** Worker → primary, just before it exits: why it could not start (printed by the primary, once). */
export const START_FAILED_MESSAGE = 'procurement:start-failed'

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

function isStartFailure(message: unknown): message is { type: string; error: StartFailure } {
  if (typeof message !== 'object' || message === null) return false
  const { type, error } = message as { type?: unknown; error?: unknown }
  if (type !== START_FAILED_MESSAGE || typeof error !== 'object' || error === null) return false
  const { name, message: text } = error as { name?: unknown; message?: unknown }
  return typeof name === 'string' && typeof text === 'string'
}

/**
 * Forks `workers` workers (this must be the primary) and resolves with the port once all of them listen;
 * rejects with a ClusterStartError if they keep failing to start. Signal handlers are installed at once.
 */
export function startCluster(options: ClusterOptions): Promise<{ port: number }> {
  const { log, workers } = options
  const maxStartFailures = Math.max(3, workers)
  const listening = new Set<Worker>()
  const failures = new WeakMap<Worker, StartFailure>()
  let started = false
  let closing = false
  let startFailures = 0
  let firstFailure: StartFailure | undefined

  return new Promise((resolve, reject) => {
    const fork = () => {
      if (closing) return
      const worker = cluster.fork()
      worker.on('error', (error: Error) => log.error({ err: { message: error.message } }, 'worker error'))
    }

    /** Stops every worker; says whether each one that was serving stopped cleanly (exit code 0). */
    const stopAll = (): Promise<boolean> => {
      const live = Object.values(cluster.workers ?? {}).filter((w): w is Worker => w !== undefined && !w.isDead())
      let clean = true
      const exits = live.map((worker) => {
        const serving = listening.has(worker)
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
        log.error(
          { workers: live.filter((w) => !w.isDead()).map((w) => w.process.pid) },
          'workers took too long to stop: killing them',
        )
        for (const worker of live) if (!worker.isDead()) worker.process.kill('SIGKILL')
      }, options.graceMs + 2000)
      return Promise.all(exits).then(() => {
        clearTimeout(force)
        return clean
      })
    }

    const giveUp = (failure: StartFailure) => {
      closing = true
      log.error({ start_failures: startFailures }, 'workers keep failing to start: stopping')
      void stopAll().then(() => {
        if (!started) return reject(new ClusterStartError(failure))
        options.report?.(failure)
        process.exit(1)
      })
    }

    const shutdown = (signal: NodeJS.Signals) => {
      if (closing) {
        log.warn({ signal }, 'second signal: exiting now')
        for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill('SIGKILL')
        process.exit(1)
      }
      closing = true
      log.info({ signal, workers: listening.size }, 'shutting down')
      void stopAll().then((clean) => process.exit(clean ? 0 : 1))
    }
    process.on('SIGTERM', () => shutdown('SIGTERM'))
    process.on('SIGINT', () => shutdown('SIGINT'))

    cluster.on('listening', (worker, address) => {
      if (listening.has(worker)) return
      listening.add(worker)
      startFailures = 0
      firstFailure = undefined
      log.info({ worker_pid: worker.process.pid, workers: listening.size }, 'worker listening')
      if (!started && listening.size === workers) {
        started = true
        resolve({ port: address.port })
      }
    })

    /** Sends, unless the worker is gone (then `gone`, if given: a worker gone meanwhile answers nothing). */
    const send = (worker: Worker, message: object, gone?: () => void) => {
      if (!worker.isConnected()) return gone?.()
      try {
        worker.send(message, undefined, (error: Error | null) => {
          if (error !== null) gone?.()
        })
      } catch {
        gone?.()
      }
    }

    // Gathers under way: id → what to do with one worker's reply.
    const gathers = new Map<number, (worker: Worker, reply: Record<string, unknown>) => void>()
    let lastGather = 0
    const gather = (topic: string, withinMs: number): Promise<unknown[]> => {
      const asked = new Set([...listening].filter((w) => w.isConnected()))
      const id = ++lastGather
      const answers: unknown[] = []
      return new Promise((resolve) => {
        const finish = () => {
          clearTimeout(timer)
          gathers.delete(id)
          resolve(answers)
        }
        const timer = setTimeout(finish, withinMs)
        const settled = (worker: Worker) => {
          if (asked.delete(worker) && asked.size === 0) finish()
        }
        gathers.set(id, (worker, reply) => {
          if (asked.has(worker) && 'answer' in reply) answers.push(reply.answer)
          settled(worker)
        })
        if (asked.size === 0) return finish()
        for (const worker of asked) send(worker, { type: GATHER_MESSAGE, id, topic }, () => settled(worker))
      })
    }
    const workersView: Workers = { count: workers, gather }

    cluster.on('message', (worker, message: unknown) => {
      if (isStartFailure(message)) {
        failures.set(worker, message.error)
        return
      }
      if (isNumbered(message, GATHERED_MESSAGE)) {
        gathers.get(message.id)?.(worker, message) // one that came too late is dropped
        return
      }
      const question = isNumbered(message, ASK_MESSAGE) ? message : undefined
      // An answer that cannot be sent is dropped: the worker is gone, or it does without (see askPrimary).
      Promise.resolve()
        .then(() => options.answer?.(question === undefined ? message : question.question, workersView))
        .then(
          (answer) => {
            if (question !== undefined)
              send(worker, { type: ANSWER_MESSAGE, id: question.id, ...(answer === undefined ? {} : { answer }) })
            else if (answer !== undefined) send(worker, answer)
          },
          (error: unknown) => {
            log.error({ err: { message: error instanceof Error ? error.message : String(error) } }, 'answer failed')
            if (question !== undefined) send(worker, { type: ANSWER_MESSAGE, id: question.id })
          },
        )
    })

    cluster.on('exit', (worker, code, signal) => {
      for (const replied of gathers.values()) replied(worker, {}) // it will not answer: no need to wait for it
      const wasListening = listening.delete(worker)
      if (closing) return
      const how = signal !== null ? { signal } : { code }
      if (wasListening) {
        log.error({ worker_pid: worker.process.pid, ...how }, 'worker exited unexpectedly: starting a replacement')
        fork()
        return
      }
      startFailures += 1
      const failure = failures.get(worker) ?? {
        name: 'Error',
        message: `it exited (${signal ?? `code ${code}`}) before it was listening.`,
      }
      firstFailure ??= failure
      if (startFailures >= maxStartFailures) return giveUp(firstFailure)
      log.warn(
        { worker_pid: worker.process.pid, ...how, start_failures: startFailures, give_up_at: maxStartFailures },
        'worker failed to start: trying again',
      )
      setTimeout(fork, RETRY_START_AFTER_MS)
    })

    for (let i = 0; i < workers; i++) fork()
  })
}

/**
 * LISTEN on some channels of PostgreSQL over one connection of its own, kept alive: lost connections are
 * reconnected, and a heartbeat finds a connection that died silently. Each channel has its subscriber,
 * told when the subscription is up (every notification from then on arrives) and when it is down
 * (notifications may be missed until it is up again), so it can stop trusting whatever it derived from them.
 *
 * A fence is a notification this process sends itself on the first channel: PostgreSQL delivers the
 * notifications of different transactions to a session in the order the transactions committed, whatever
 * their channels, so when the fence arrives, everything committed before it was sent has arrived too.
 * Fences are shared: callers that ask while one is on its way wait for the next one, so there is at most
 * one in flight.
 */
import { randomBytes } from 'node:crypto'
import pg from 'pg'

export interface Subscriber {
  notify(payload: string): void
  up(): void
  down(): void
}

export interface Subscription {
  /**
   * Resolves once every notification of a transaction that committed before the call has reached the
   * subscriber (or the subscription went down, which the subscriber has been told). A process that has just
   * committed a change awaits this before answering, so its own next request sees the change.
   */
  fence(): Promise<void>
  close(): Promise<void>
}

export interface ListenOptions {
  /** How often the connection is checked; an answer later than this counts as a lost connection. */
  heartbeatMs?: number
  /** How long to wait before reconnecting. */
  retryMs?: number
  connectTimeoutMs?: number
  onError?: (error: Error) => void
}

/** Which subscriber hears each channel. */
export type Subscribers = Readonly<Record<string, Subscriber>>

/** Tells every subscriber the same thing. */
export const everyone = (subscribers: Subscribers, event: 'up' | 'down'): void => {
  for (const subscriber of Object.values(subscribers)) subscriber[event]()
}

export function listenPostgres(url: string, subscribers: Subscribers, options: ListenOptions = {}): Subscription {
  const channels = Object.keys(subscribers)
  const channel = channels[0]
  if (channel === undefined) throw new Error('listenPostgres needs at least one channel')
  const heartbeatMs = options.heartbeatMs ?? 1000
  const retryMs = options.retryMs ?? 1000
  let closed = false
  let client: pg.Client | undefined
  /** LISTEN is in force on `client`. */
  let listening = false
  let heartbeat: NodeJS.Timeout | undefined
  let retry: NodeJS.Timeout | undefined
  const fencePrefix = `fence:${randomBytes(9).toString('base64url')}:`
  let fences = 0
  /** Callers waiting for the fence in flight, and those waiting for the next one. */
  let sent: { id: string; at: number; done: Array<() => void> } | undefined
  let queued: Array<() => void> = []
  const releaseFences = () => {
    for (const done of [...(sent?.done ?? []), ...queued]) done()
    sent = undefined
    queued = []
  }
  const sendFence = () => {
    const c = client
    if (sent !== undefined || queued.length === 0) return
    if (c === undefined) return releaseFences()
    sent = { id: `${fencePrefix}${++fences}`, at: Date.now(), done: queued }
    queued = []
    c.query('SELECT pg_notify($1, $2)', [channel, sent.id]).catch((error: Error) => lost(c, error))
  }

  const lost = (from: pg.Client, error?: Error) => {
    if (client !== from) return
    client = undefined
    listening = false
    clearInterval(heartbeat)
    everyone(subscribers, 'down')
    releaseFences()
    if (error !== undefined) options.onError?.(error)
    from.end().catch(() => undefined)
    if (!closed) retry = setTimeout(connect, retryMs).unref()
  }

  function connect(): void {
    const c = new pg.Client({
      connectionString: url,
      application_name: 'procurement-listen',
      connectionTimeoutMillis: options.connectTimeoutMs ?? 5000,
      keepAlive: true,
    })
    client = c
    c.on('error', (error) => lost(c, error))
    c.on('end', () => lost(c))
    c.on('notification', (message) => {
      if (client !== c || !Object.hasOwn(subscribers, message.channel)) return
      const payload = message.payload ?? ''
      if (message.channel !== channel || !payload.startsWith('fence:')) {
        return subscribers[message.channel]!.notify(payload)
      }
      if (payload !== sent?.id) return
      for (const done of sent.done) done()
      sent = undefined
      sendFence()
    })
    let pending = false
    const check = () => {
      if (pending || (sent !== undefined && Date.now() - sent.at > heartbeatMs))
        return lost(c, new Error(`no answer on the ${channel} listener within ${heartbeatMs} ms`))
      pending = true
      c.query('SELECT 1').then(
        () => (pending = false),
        (error: Error) => lost(c, error),
      )
    }
    c.connect()
      .then(() => c.query(channels.map((name) => `LISTEN ${pg.escapeIdentifier(name)}`).join('; ')))
      .then(() => {
        if (client !== c) return
        listening = true
        everyone(subscribers, 'up')
        heartbeat = setInterval(check, heartbeatMs).unref()
      })
      .catch((error: Error) => lost(c, error))
  }

  connect()
  return {
    fence() {
      // Not listening: the subscriber was told it is down and trusts nothing, so there is nothing to wait for.
      if (!listening) return Promise.resolve()
      return new Promise<void>((resolve) => {
        queued.push(resolve)
        sendFence()
      })
    },
    async close() {
      closed = true
      listening = false
      clearTimeout(retry)
      clearInterval(heartbeat)
      const c = client
      client = undefined
      releaseFences()
      await c?.end().catch(() => undefined)
    },
  }
}

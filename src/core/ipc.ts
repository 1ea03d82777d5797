/**
 * Questions between the processes of a cluster (see src/cluster.ts): the worker's side, and the message names
 * both sides use. A worker asks the primary (`askPrimary`) and answers the primary's gathers
 * (`answerGathers`); outside a cluster worker both are harmless no-ops. Plain node:cluster IPC, nothing of ours.
 */

/** Worker → primary `{ type, id, question }`; primary → that worker `{ type: ANSWER_MESSAGE, id, answer? }`. */
export const ASK_MESSAGE = 'procurement:ask'
export const ANSWER_MESSAGE = 'procurement:answer'
/** Primary → every serving worker `{ type, id, topic }`; each → primary `{ type: GATHERED_MESSAGE, id, answer? }`. */
export const GATHER_MESSAGE = 'procurement:gather'
export const GATHERED_MESSAGE = 'procurement:gathered'

/** What the primary's `answer` hook may ask of the workers. */
export interface Workers {
  /** How many workers the cluster runs (WORKERS), serving or not. */
  readonly count: number
  /**
   * Asks every serving worker for `topic` (see `answerGathers`) and resolves with the answers that came within
   * `withinMs`, one per worker that answered (a worker with nothing registered for the topic answers nothing).
   */
  gather(topic: string, withinMs: number): Promise<unknown[]>
}

export const isRecord = (message: unknown): message is Record<string, unknown> =>
  typeof message === 'object' && message !== null

/** A message `{ type, id: number, …}` of this type. */
export const isNumbered = (message: unknown, type: string): message is Record<string, unknown> & { id: number } =>
  isRecord(message) && message.type === type && typeof message.id === 'number'

const gatherReplies = new Map<string, () => unknown>()
const asking = new Map<number, (answer: unknown) => void>()
let lastAsk = 0
let listeningToPrimary = false

function sendToPrimary(message: object, failed?: () => void): void {
  if (process.send === undefined || !process.connected) return failed?.()
  try {
    process.send(message, undefined, {}, (error: Error | null) => {
      if (error !== null) failed?.()
    })
  } catch {
    failed?.()
  }
}

async function answerGather(id: number, topic: string): Promise<void> {
  const reply = gatherReplies.get(topic)
  let answer: { answer?: unknown } = {}
  try {
    if (reply !== undefined) answer = { answer: await reply() }
  } catch {
    // counted as no answer
  }
  sendToPrimary({ type: GATHERED_MESSAGE, id, ...answer })
}

function listenToPrimary(): void {
  if (listeningToPrimary) return
  listeningToPrimary = true
  process.on('message', (message: unknown) => {
    if (isNumbered(message, ANSWER_MESSAGE)) asking.get(message.id)?.(message.answer)
    else if (isNumbered(message, GATHER_MESSAGE) && typeof message.topic === 'string')
      void answerGather(message.id, message.topic)
  })
}

/**
 * In a cluster worker: asks the primary `question`, which its `answer` hook answers. Resolves with the
 * answer, or undefined if there is none within `withinMs` (no primary, or it does not know the question).
 */
export function askPrimary(question: object, withinMs: number): Promise<unknown> {
  if (process.send === undefined || !process.connected) return Promise.resolve(undefined)
  listenToPrimary()
  const id = ++lastAsk
  return new Promise((resolve) => {
    const done = (answer: unknown) => {
      clearTimeout(timer)
      asking.delete(id)
      resolve(answer)
    }
    const timer = setTimeout(() => done(undefined), withinMs)
    asking.set(id, done)
    sendToPrimary({ type: ASK_MESSAGE, id, question }, () => done(undefined))
  })
}

/**
 * In a cluster worker: answers the primary's gathers of `topic` with what `reply` returns (or resolves to).
 * Returns the function that stops answering (then this worker answers that topic's gathers with nothing).
 */
export function answerGathers(topic: string, reply: () => unknown): () => void {
  listenToPrimary()
  gatherReplies.set(topic, reply)
  return () => {
    if (gatherReplies.get(topic) === reply) gatherReplies.delete(topic)
  }
}

/** An idle server gives back the garbage of its last burst (core/idle-memory.ts). */
import assert from 'node:assert/strict'
import http from 'node:http'
import { test } from 'node:test'
import { releaseMemoryWhenIdle } from '../src/core/idle-memory.ts'

test('after the idle time without a request, a full collection runs', async () => {
  const server = http.createServer((_request, response) => response.end('ok'))
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as { port: number }
  const { stop } = releaseMemoryWhenIdle(server, 300)
  try {
    let collected = false
    const registry = new FinalizationRegistry(() => (collected = true))
    let kept: object | undefined = { payload: new Array(1000).fill('x') }
    registry.register(kept, 'gone')
    await fetch(`http://127.0.0.1:${port}/`).then((r) => r.text())
    // Garbage from now on. V8's own memory reducer would find it only about 8 s later, past the deadline.
    kept = undefined
    const deadline = Date.now() + 5000
    while (!collected && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100))
    assert.equal(collected, true, 'the dropped object was collected once the server went idle')
  } finally {
    stop()
    await new Promise((resolve) => server.close(resolve))
  }
})

test('background work counts as a request: once it is over, the release runs again', async () => {
  const server = http.createServer((_request, response) => response.end('ok'))
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as { port: number }
  const release = releaseMemoryWhenIdle(server, 300)
  try {
    await fetch(`http://127.0.0.1:${port}/`).then((r) => r.text())
    // The release after that request: its six rounds, a second apart, and then nothing until work comes.
    await new Promise((resolve) => setTimeout(resolve, 7000))
    let collected = false
    const registry = new FinalizationRegistry(() => (collected = true))
    let kept: object | undefined = { payload: new Array(1000).fill('y') }
    registry.register(kept, 'gone')
    kept = undefined
    release.worked()
    const deadline = Date.now() + 5000
    while (!collected && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100))
    assert.equal(collected, true, 'the garbage of the work was collected once the process was idle again')
  } finally {
    release.stop()
    await new Promise((resolve) => server.close(resolve))
  }
})

/**
 * `npm test`'s runner (helpers/runner.ts, helpers/shared-process.ts) on files made for it
 * (test/fixtures/runner/): files share a process one after another, each file's hooks around its own tests
 * only; a failing file, and one that ends its process, are reported as failed and the rest go on; a file
 * that asks for a process of its own gets one.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { runFiles } from './helpers/runner.ts'

const fixture = (name: string) => `test/fixtures/runner/${name}.fixture.ts`

test('shared processes, one file after another; failures and a process that ends are reported', async () => {
  let output = ''
  const run = await runFiles(['a', 'b', 'c-exit', 'd-fails', 'e-alone'].map(fixture), {
    runId: 'runner-test',
    nodeOptions: [],
    concurrency: 1,
    write: (text) => (output += text),
    keepTimings: false,
  })
  const code = Object.fromEntries(run.files.map((r) => [r.file, r.code]))
  assert.deepEqual(
    code,
    {
      [fixture('a')]: 0,
      [fixture('b')]: 0,
      [fixture('c-exit')]: 1,
      [fixture('d-fails')]: 1,
      [fixture('e-alone')]: 0,
    },
    output,
  )
  const pid = (name: string) => Number(new RegExp(`fixture ${name}: pid (\\d+)`).exec(output)?.[1])
  assert.equal(pid('a'), pid('b'), 'a and b ran in one process')
  assert.notEqual(pid('d'), pid('a'), 'after the process ended, the next file ran in a new one')
  assert.ok(![pid('a'), pid('d')].includes(pid('e')), 'the file that asked for a process of its own had one')
  assert.ok(
    output.indexOf('fixture a: after') < output.indexOf('fixture b: imported'),
    'b was imported only after a’s after hook',
  )
  assert.match(
    output,
    /── test\/fixtures\/runner\/c-exit\.fixture\.ts .*exit 1\)\n[^]*ended, exit 3, before this file finished/,
  )
  assert.match(output, /── test\/fixtures\/runner\/d-fails\.fixture\.ts .*exit 1\)\n[^]*2 !== 3/)
  assert.ok(run.counts.fail! >= 1 && run.counts.pass! >= 1, JSON.stringify(run.counts))
})

/**
 * The read a start makes while it builds the app (src/seed/demo-credentials.ts, `demoCredentialsPending`):
 * it must say "pending" whenever the locking transaction would print something, so that skipping that
 * transaction on "not pending" never hides credentials that were not shown yet. Checked against the
 * transaction itself at each step of the demo's life.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import {
  demoCredentialsPending,
  demoCredentialsToShow,
  markDemoCredentialsShown,
} from '../src/seed/demo-credentials.ts'
import { markBuiltDemo } from '../src/seed/demo-template.ts'
import { seedDemo } from '../src/seed/demo.ts'
import { useTestApp } from './helpers/app.ts'

const ctx = useTestApp()

test('pending exactly while the demo credentials are still to be shown', async () => {
  const db = ctx.database.db
  assert.equal(await demoCredentialsPending(db), false, 'no demo tenant: nothing to show')
  assert.equal(await demoCredentialsToShow(db, ctx.keys.pepper), undefined)

  await seedDemo(db)
  await markBuiltDemo(db)
  assert.equal(await demoCredentialsPending(db), true, 'a copy of the build’s demo, never started')
  const first = await demoCredentialsToShow(db, ctx.keys.pepper)
  assert.ok(first?.client_secret)
  // A start that died before saying it printed them: the next one must print new ones.
  assert.equal(await demoCredentialsPending(db), true, 'made but not marked shown')
  const again = await demoCredentialsToShow(db, ctx.keys.pepper)
  assert.equal(again?.client_id, first.client_id)
  assert.notEqual(again?.client_secret, first.client_secret, 'the lost secret is replaced')

  await markDemoCredentialsShown(db, first.client_id)
  assert.equal(await demoCredentialsPending(db), false, 'shown: a restart has nothing to print')
  assert.equal(await demoCredentialsToShow(db, ctx.keys.pepper), undefined, 'and the transaction agrees')
})

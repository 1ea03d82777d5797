/**
 * SCIM under concurrent identical writes (DECISIONS: one 201, the others 409 `uniqueness`, never a 500), in
 * process (app.inject) and on a listening server over real connections, and SCIM's e-mail comparison (ASCII
 * case only: U+212A KELVIN SIGN is not `k`).
 */
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { signedIn, useTestApp } from './helpers/app.ts'

const ctx = useTestApp()
const SCIM = 'application/scim+json'
const USER = 'urn:ietf:params:scim:schemas:core:2.0:User'
const GROUP = 'urn:ietf:params:scim:schemas:core:2.0:Group'
const ERROR = 'urn:ietf:params:scim:api:messages:2.0:Error'
const COPIES = 12

let token: string
let tenantId: number
let base: string

interface Answer {
  status: number
  body: { schemas?: string[]; scimType?: string; detail?: string; id?: string; totalResults?: number }
}

const injected = async (method: 'GET' | 'POST', url: string, payload?: object): Promise<Answer> => {
  const response = await ctx.app.inject({
    method,
    url: `/scim/v2${url}`,
    headers: { authorization: `Bearer ${token}`, ...(payload === undefined ? {} : { 'content-type': SCIM }) },
    ...(payload === undefined ? {} : { payload: JSON.stringify(payload) }),
  })
  return { status: response.statusCode, body: response.json() }
}

const overTheWire = async (method: 'POST', url: string, payload: object): Promise<Answer> => {
  const response = await fetch(`${base}/scim/v2${url}`, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': SCIM },
    body: JSON.stringify(payload),
  })
  return { status: response.status, body: (await response.json()) as Answer['body'] }
}

/** Exactly one 201; every other answer a 409 with scimType uniqueness in the SCIM error schema. */
function oneCreatedRestUniqueness(answers: Answer[]): void {
  const statuses = answers.map((a) => a.status).sort()
  assert.deepEqual(statuses, [201, ...Array<number>(COPIES - 1).fill(409)], JSON.stringify(answers.map((a) => a.body)))
  for (const refused of answers.filter((a) => a.status === 409)) {
    assert.deepEqual(refused.body.schemas, [ERROR])
    assert.equal(refused.body.scimType, 'uniqueness')
    assert.match(refused.body.detail ?? '', /already exists/)
  }
}

const usersWithEmail = async (email: string) =>
  (
    await ctx.database.db
      .selectFrom('users')
      .select('id')
      .where('tenant_id', '=', tenantId)
      .where('email', '=', email)
      .execute()
  ).length

const groupsNamed = async (name: string) =>
  (
    await ctx.database.db
      .selectFrom('scim_groups')
      .select('id')
      .where('tenant_id', '=', tenantId)
      .where('display_name', '=', name)
      .execute()
  ).length

describe('SCIM: identical creates at the same moment', () => {
  before(async () => {
    const session = await signedIn(ctx)
    tenantId = session.tenant.tenantId
    const made = await session.api({ method: 'POST', url: '/api/v3/scim-tokens/', payload: { description: 'IdP' } })
    assert.equal(made.statusCode, 201, made.body)
    token = made.json().data.token
    await ctx.app.listen({ port: 0, host: '127.0.0.1' })
    base = `http://127.0.0.1:${(ctx.app.server.address() as { port: number }).port}`
  })
  after(() => assert.ok(!ctx.logs.join('').includes('SCIM request failed'), 'no request failed with a 500'))

  const person = (email: string) => ({
    schemas: [USER],
    userName: email,
    name: { givenName: 'Race', familyName: 'Condition' },
    emails: [{ value: email, primary: true }],
    active: true,
  })

  test(`${COPIES} identical POST /Users in process: one 201, the others 409 uniqueness`, async () => {
    const body = person('race-inject@example.com')
    oneCreatedRestUniqueness(await Promise.all(Array.from({ length: COPIES }, () => injected('POST', '/Users', body))))
    assert.equal(await usersWithEmail('race-inject@example.com'), 1)
  })

  test(`${COPIES} identical POST /Users to a listening server: one 201, the others 409 uniqueness`, async () => {
    const body = person('race-wire@example.com')
    oneCreatedRestUniqueness(
      await Promise.all(Array.from({ length: COPIES }, () => overTheWire('POST', '/Users', body))),
    )
    assert.equal(await usersWithEmail('race-wire@example.com'), 1)
  })

  test(`${COPIES} identical POST /Groups, in process and to a listening server: one 201 each, the others 409`, async () => {
    const group = (name: string) => ({ schemas: [GROUP], displayName: name })
    oneCreatedRestUniqueness(
      await Promise.all(Array.from({ length: COPIES }, () => injected('POST', '/Groups', group('Race inject')))),
    )
    assert.equal(await groupsNamed('Race inject'), 1)
    oneCreatedRestUniqueness(
      await Promise.all(Array.from({ length: COPIES }, () => overTheWire('POST', '/Groups', group('Race wire')))),
    )
    assert.equal(await groupsNamed('Race wire'), 1)
  })

  test('userNames differing only in ASCII case are one; U+212A KELVIN SIGN is not k', async () => {
    const kim = await injected('POST', '/Users', person('kim.scim@example.com'))
    assert.equal(kim.status, 201, JSON.stringify(kim.body))
    const upper = await injected('POST', '/Users', person('KIM.SCIM@example.com'))
    assert.equal(upper.status, 409)
    assert.equal(upper.body.scimType, 'uniqueness')
    const kelvin = await injected('POST', '/Users', person('\u212Aim.scim@example.com'))
    assert.equal(kelvin.status, 400, JSON.stringify(kelvin.body))
    assert.equal(kelvin.body.scimType, 'invalidValue')
    assert.match(kelvin.body.detail ?? '', /userName must be an e-mail address/)
    const filter = async (value: string) =>
      (await injected('GET', `/Users?filter=${encodeURIComponent(`userName eq "${value}"`)}`)).body.totalResults
    assert.equal(await filter('KIM.scim@EXAMPLE.com'), 1)
    assert.equal(await filter('\u212Aim.scim@example.com'), 0)
    assert.equal(
      (await injected('GET', `/Users?filter=${encodeURIComponent('emails.value eq "\u212Aim.scim@example.com"')}`)).body
        .totalResults,
      0,
    )
  })
})

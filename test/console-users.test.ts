/**
 * Users administered in the console over HTTP: states in words, one user's page, edit (errors at their
 * fields, values kept, other fields untouched), roles at locations, deactivate and reactivate, re-send an
 * invitation and a new set-password link without SMTP — every write through the user services, so the
 * containment rule refuses in the console as in the API, and every write answers with a redirect.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { useTestApp } from './helpers/app.ts'
import {
  BASE_DOMAIN,
  adminBrowser,
  apiAs,
  browser,
  createUser,
  newTenant,
  roleId,
  roleWith,
  userBrowser,
  userRow,
  type Tenant,
} from './helpers/security.ts'

const ctx = useTestApp({ BASE_DOMAIN, LOG_LEVEL: 'warn' })
const db = () => ctx.database.db

/** A new tenant, its administrator in the console and through the API, and its roles by name. */
async function setUp() {
  const tenant = await newTenant(ctx)
  const admin = await apiAs(ctx, tenant, tenant.adminUserId)
  const b = await adminBrowser(ctx, tenant)
  const roles = {
    Administrator: await roleId(ctx, tenant, 'Administrator'),
    Buyer: await roleId(ctx, tenant, 'Buyer'),
    Requester: await roleId(ctx, tenant, 'Requester'),
  }
  const hq = (await admin({ method: 'GET', url: '/api/v2/locations/' })).json().data[0].id as number
  const adminProfile = (await admin({ method: 'GET', url: `/api/v3/users/?search=${tenant.email}` })).json().data[0]
    .id as number
  return { tenant, admin, b, roles, hq, adminProfile }
}

const profileOf = async (admin: Awaited<ReturnType<typeof apiAs>>, id: number) =>
  (await admin({ method: 'GET', url: `/api/v3/users/${id}/` })).json().data
const outboxCount = async (tenant: Tenant) =>
  Number(
    (
      await db()
        .selectFrom('email_outbox')
        .select((eb) => eb.fn.countAll().as('n'))
        .where('tenant_id', '=', tenant.tenantId)
        .executeTakeFirstOrThrow()
    ).n,
  )
const auditCount = async (tenant: Tenant, action: string) =>
  Number(
    (
      await db()
        .selectFrom('audit_log')
        .select((eb) => eb.fn.countAll().as('n'))
        .where('tenant_id', '=', tenant.tenantId)
        .where('action', '=', action)
        .executeTakeFirstOrThrow()
    ).n,
  )
const shownLink = (body: string) =>
  /<code class="secret" id="invite-link">\s*(https?:\/\/\S+?)\s*<\/code>/.exec(body)?.[1]

test('the list names each state in words and each row leads to the user', async () => {
  const { tenant, admin, b, roles } = await setUp()
  const active = await createUser(admin, 'active@list.test', roles.Requester)
  const leaver = await createUser(admin, 'leaver@list.test', roles.Requester)
  assert.equal((await admin({ method: 'DELETE', url: `/api/v3/users/${leaver.profileId}/` })).statusCode, 204)
  const invited = await b.submit('/console/users', '/console/users/invite', { email: 'invited@list.test' })
  assert.equal(invited.statusCode, 303)

  const list = (await b.get('/console/users')).body
  const stateOf = (email: string) =>
    new RegExp(`${email.replace('.', '\\.')}</td>[\\s\\S]*?<td>(Invited|Active|Deactivated)</td>`).exec(list)?.[1]
  assert.equal(stateOf('active@list.test'), 'Active')
  assert.equal(stateOf('leaver@list.test'), 'Deactivated')
  assert.equal(stateOf('invited@list.test'), 'Invited')
  assert.match(list, new RegExp(`<tr data-href="/console/users/${active.profileId}">`), 'the row opens the user')
  assert.match(list, new RegExp(`<a href="/console/users/${active.profileId}">`), 'and so does its first link')
  assert.doesNotMatch((await b.get('/console/users?search=nobody-at-all')).body, /<table/)
  assert.match((await b.get('/console/users?search=nobody-at-all')).body, /No user matches/)
  assert.ok(tenant)
})

test('edit a user: errors at their fields with the values kept, then saved once; other fields untouched', async () => {
  const { tenant, admin, b, roles, hq, adminProfile } = await setUp()
  const { profileId } = await createUser(admin, 'edit-me@edit.test', roles.Requester)
  const page = await b.get(`/console/users/${profileId}`)
  assert.equal(page.statusCode, 200)
  assert.match(page.body, /<dd>\s*Active\s*<\/dd>/)
  assert.match(page.body, /Requester\s*<span class="muted">\(Request\)<\/span>/, 'the role with its permission names')
  const form = await b.get(`/console/users/${profileId}/edit`)
  assert.match(form.body, /<label for="f-firstName"\s*>First name<\/label/)
  assert.match(form.body, /<label for="f-role-id"\s*>Role<\/label/)
  assert.match(form.body, /<label for="f-department"\s*>Department/)
  const csrf = b.csrfOf(form.body)!

  const bad = await b.post(`/console/users/${profileId}/edit`, {
    _csrf: csrf,
    firstName: '',
    lastName: 'Okafor',
    role_id: String(roles.Buyer),
    location: '',
    department: '',
    phone: '+44 20 7946 0000',
  })
  assert.equal(bad.statusCode, 400)
  assert.match(bad.body, /There is a problem/)
  assert.match(bad.body, /id="f-firstName-error"/, 'the error stands next to its field')
  assert.match(bad.body, /value="Okafor"/, 'what was typed is kept')
  assert.match(bad.body, new RegExp(`<option value="${roles.Buyer}"\\s+selected`), 'the chosen role is kept')
  assert.equal((await profileOf(admin, profileId)).lastName, '', 'nothing was written')

  const good = await b.post(`/console/users/${profileId}/edit`, {
    _csrf: csrf,
    firstName: 'Nia',
    lastName: 'Okafor',
    role_id: String(roles.Buyer),
    location: String(hq),
    department: '',
    phone: '+44 20 7946 0000',
    position: 'Buyer',
  })
  assert.equal(good.statusCode, 303, good.body)
  assert.equal(good.headers.location, `/console/users/${profileId}?done=saved`)
  for (let i = 0; i < 2; i++) {
    const shown = await b.get(good.headers.location)
    assert.match(shown.body, /Your changes are saved/)
    assert.match(shown.body, /<h1>Nia Okafor<\/h1>/)
  }
  assert.equal(await auditCount(tenant, 'user.replace'), 1, 'reloading the page wrote nothing more')
  const saved = await profileOf(admin, profileId)
  assert.deepEqual(
    [saved.firstName, saved.role.name, saved.location.id, saved.phone, saved.email],
    ['Nia', 'Buyer', hq, '+44 20 7946 0000', 'edit-me@edit.test'],
  )

  // The administrator edits their own phone: their legal entity, e-mail and role stay as they were.
  const entities = () =>
    db().selectFrom('user_legal_entities').select('legal_entity_id').where('user_id', '=', tenant.adminUserId).execute()
  const before = await entities()
  assert.equal(before.length, 1)
  const own = await b.get(`/console/users/${adminProfile}/edit`)
  const values = Object.fromEntries(
    [...own.body.matchAll(/<input\s+type="\w+"\s+id="f-(\w+)"[^>]*value="([^"]*)"/g)].map((m) => [m[1]!, m[2]!]),
  )
  const selected = (name: string) =>
    new RegExp(`id="f-${name}"[\\s\\S]*?<option value="(\\d*)"\\s+selected`).exec(own.body)?.[1] ?? ''
  const mine = await b.post(`/console/users/${adminProfile}/edit`, {
    _csrf: csrf,
    ...values,
    role_id: selected('role-id'),
    location: selected('location'),
    department: selected('department'),
    // The API's single form requires a last name; the administrator was made without one.
    lastName: 'Lovelace',
    phone: '+1 555 0199',
  })
  assert.equal(mine.statusCode, 303, mine.body)
  assert.deepEqual(await entities(), before)
  const me = await profileOf(admin, adminProfile)
  assert.deepEqual(
    [me.phone, me.role.id, me.email, me.position],
    ['+1 555 0199', roles.Administrator, tenant.email, 'Administrator'],
  )
})

test('roles at locations: granted, shown, refused for junk, and removed', async () => {
  const { admin, b, roles, hq } = await setUp()
  const { profileId } = await createUser(admin, 'site@grants.test', roles.Requester)
  const page = await b.get(`/console/users/${profileId}`)
  assert.match(page.body, /Roles at locations/)
  assert.match(page.body, new RegExp(`<label for="f-grant-${hq}-0"\\s*>Role at `))
  const csrf = b.csrfOf(page.body)!
  const grants = async () =>
    (await admin({ method: 'GET', url: `/api/v3/users/${profileId}/location-roles/` })).json().data

  const saved = await b.post(`/console/users/${profileId}/location-roles`, {
    _csrf: csrf,
    [`grant.${hq}.0`]: String(roles.Buyer),
  })
  assert.equal(saved.statusCode, 303, saved.body)
  assert.deepEqual(await grants(), [{ location: hq, role: roles.Buyer }])
  const shown = await b.get(saved.headers.location!)
  assert.match(shown.body, /Their roles at locations are saved/)
  assert.match(shown.body, new RegExp(`id="f-grant-${hq}-0"[\\s\\S]*?<option value="${roles.Buyer}"\\s+selected`))

  for (const junk of [
    { [`grant.${hq}.0`]: 'Buyer' },
    { [`grant.${hq}.0`]: '99999999999999' },
    { [`grant.${hq}.0`]: '999999' },
    { 'grant.999999.0': String(roles.Buyer) },
  ]) {
    const refused = await b.post(`/console/users/${profileId}/location-roles`, { _csrf: csrf, ...junk })
    assert.equal(refused.statusCode, 400, `${JSON.stringify(junk)}: ${refused.body.slice(0, 200)}`)
    assert.match(refused.body, /There is a problem/)
    assert.deepEqual(await grants(), [{ location: hq, role: roles.Buyer }], 'nothing changed')
  }

  const cleared = await b.post(`/console/users/${profileId}/location-roles`, { _csrf: csrf, [`grant.${hq}.0`]: '' })
  assert.equal(cleared.statusCode, 303)
  assert.deepEqual(await grants(), [])
})

test('deactivate and reactivate a user from their page', async () => {
  const { admin, b, roles } = await setUp()
  const { profileId, userId } = await createUser(admin, 'away@state.test', roles.Requester)
  const confirm = await b.get(`/console/users/${profileId}/deactivate`)
  const csrf = b.csrfOf(confirm.body)!
  assert.equal((await b.post(`/console/users/${profileId}/deactivate`, { _csrf: csrf })).statusCode, 303)
  const off = await b.get(`/console/users/${profileId}`)
  assert.match(off.body, /<dd>\s*Deactivated\s*<\/dd>/)
  assert.match(off.body, /Reactivate<\/button>/)
  const on = await b.post(`/console/users/${profileId}/activate`, { _csrf: csrf })
  assert.equal(on.statusCode, 303)
  assert.match((await b.get(on.headers.location!)).body, /The user is active again/)
  assert.equal((await userRow(ctx, userId)).is_active, true)
})

test('without a mail server: re-send an invitation and send a set-password link, each shown to copy', async () => {
  const { tenant, admin, b, roles } = await setUp()
  await b.submit('/console/users', '/console/users/invite', { email: 'late@links.test', first_name: 'Lee' })
  const invitee = (await admin({ method: 'GET', url: '/api/v3/users/?search=late%40links.test' })).json().data[0]
  const page = await b.get(`/console/users/${invitee.id}`)
  assert.match(page.body, /<dd>\s*Invited/)
  assert.match(page.body, /Re-send invitation<\/button>/)
  assert.doesNotMatch(page.body, /New set-password link<\/button>/)
  const csrf = b.csrfOf(page.body)!
  const first = /(https?:\/\/\S+\/console\/setup\/[A-Za-z0-9_-]+)/.exec(
    (
      await db()
        .selectFrom('email_outbox')
        .select('body_text')
        .where('to_address', '=', 'late@links.test')
        .executeTakeFirstOrThrow()
    ).body_text,
  )![1]!

  const resent = await b.post(`/console/users/${invitee.id}/invitation`, { _csrf: csrf })
  assert.equal(resent.statusCode, 303)
  const count = await outboxCount(tenant)
  const shown = await b.get(resent.headers.location!)
  assert.match(shown.body, /No e-mail was sent/)
  const link = shownLink(shown.body)
  assert.ok(link && link !== first, 'a new link is shown')
  assert.equal(await outboxCount(tenant), count, 'showing the page again sends nothing')
  assert.ok((await b.get('/console/outbox')).body.includes(link), 'the outbox has it too')
  const open = (url: string) => browser(ctx, new URL(url).host).get(new URL(url).pathname)
  assert.equal((await open(first)).statusCode, 404, 'the earlier invitation link stopped working')
  assert.ok((await open(link)).body.includes('late@links.test'), 'the new one opens their set-password page')
  assert.equal((await b.post(`/console/users/${invitee.id}/set-password-link`, { _csrf: csrf })).statusCode, 409)

  const { profileId } = await createUser(admin, 'forgot@links.test', roles.Requester)
  const active = await b.get(`/console/users/${profileId}`)
  assert.match(active.body, /New set-password link<\/button>/)
  const sent = await b.post(`/console/users/${profileId}/set-password-link`, { _csrf: csrf })
  assert.equal(sent.statusCode, 303)
  const linkPage = await b.get(sent.headers.location!)
  assert.match(linkPage.body, /A new set-password link for forgot@links\.test is ready/)
  const reset = shownLink(linkPage.body)
  assert.ok(reset)
  const opened = await open(reset)
  assert.equal(opened.statusCode, 200)
  assert.ok(opened.body.includes('forgot@links.test'))
  assert.equal((await b.post(`/console/users/${profileId}/invitation`, { _csrf: csrf })).statusCode, 409)
})

test('containment in the console: a user manager touches no superuser and grants nothing they lack', async () => {
  const { tenant, admin, b: a, roles, hq, adminProfile } = await setUp()
  const managerRole = await roleWith(ctx, tenant, 'User manager', ['nav_setting', 'nav_request'])
  await createUser(admin, 'manager@contain.test', managerRole)
  const requester = await createUser(admin, 'req@contain.test', roles.Requester)
  const buyer = await createUser(admin, 'buyer@contain.test', roles.Buyer)
  const m = await userBrowser(ctx, tenant, 'manager@contain.test')
  const page = await m.get(`/console/users/${requester.profileId}`)
  assert.equal(page.statusCode, 200)
  const csrf = m.csrfOf(page.body)!
  const mails = await outboxCount(tenant)

  const promote = await m.post(`/console/users/${requester.profileId}/edit`, {
    _csrf: csrf,
    firstName: 'Rae',
    lastName: 'Quinn',
    role_id: String(roles.Buyer),
  })
  assert.equal(promote.statusCode, 403, promote.body.slice(0, 300))
  assert.match(promote.body, /Purchase|nav_purchase/)
  assert.match(promote.body, /value="Rae"/, 'the form comes back with what was typed')
  assert.equal((await profileOf(admin, requester.profileId)).role.id, roles.Requester)

  const renameAdmin = await m.post(`/console/users/${adminProfile}/edit`, {
    _csrf: csrf,
    firstName: 'Mallory',
    lastName: 'X',
    role_id: String(roles.Administrator),
  })
  assert.equal(renameAdmin.statusCode, 403)
  assert.match(renameAdmin.body, /superuser/)
  assert.notEqual((await profileOf(admin, adminProfile)).firstName, 'Mallory')

  const grant = await m.post(`/console/users/${requester.profileId}/location-roles`, {
    _csrf: csrf,
    [`grant.${hq}.0`]: String(roles.Administrator),
  })
  assert.equal(grant.statusCode, 403)
  assert.match(grant.body, /superuser/)
  const held = await admin({ method: 'GET', url: `/api/v3/users/${requester.profileId}/location-roles/` })
  assert.deepEqual(held.json().data, [])

  for (const path of ['set-password-link', 'deactivate']) {
    const refused = await m.post(`/console/users/${adminProfile}/${path}`, { _csrf: csrf })
    assert.equal(refused.statusCode, 403, `${path}: ${refused.body.slice(0, 200)}`)
  }
  assert.equal(await outboxCount(tenant), mails, 'no set-password link for the superuser was made')

  // A superuser who was deactivated stays so: only a superuser re-activates one.
  const other = await createUser(admin, 'root2@contain.test', roles.Administrator)
  assert.equal((await admin({ method: 'DELETE', url: `/api/v3/users/${other.profileId}/` })).statusCode, 204)
  assert.equal((await m.post(`/console/users/${other.profileId}/activate`, { _csrf: csrf })).statusCode, 403)
  assert.equal((await userRow(ctx, other.userId)).is_active, false)

  // A superuser's set-password link, made by the administrator, is not readable by the manager.
  const root3 = await createUser(admin, 'root3@contain.test', roles.Administrator)
  const made = await a.submit(
    `/console/users/${root3.profileId}`,
    `/console/users/${root3.profileId}/set-password-link`,
    {},
  )
  assert.equal(made.statusCode, 303)
  const rootLink = shownLink((await a.get(made.headers.location!)).body)
  assert.ok(rootLink, 'the superuser who made it sees it')
  assert.ok((await a.get('/console/outbox')).body.includes(rootLink))
  assert.ok(!(await m.get('/console/outbox')).body.includes(rootLink), 'the outbox hides it from the manager')
  assert.ok(!(await m.get(made.headers.location!)).body.includes(rootLink), 'and so does the user page')

  // Renaming a Buyer grants nothing: the manager may, though they lack Purchase.
  const rename = await m.post(`/console/users/${buyer.profileId}/edit`, {
    _csrf: csrf,
    firstName: 'Bo',
    lastName: 'Byers',
    role_id: String(roles.Buyer),
  })
  assert.equal(rename.statusCode, 303, rename.body.slice(0, 300))
  assert.equal((await profileOf(admin, buyer.profileId)).firstName, 'Bo')
})

test('someone without Settings reads a user but sees no actions, and the edit form is refused', async () => {
  const { tenant, admin, roles } = await setUp()
  await createUser(admin, 'reader@read.test', roles.Requester)
  const other = await createUser(admin, 'other@read.test', roles.Requester)
  const r = await userBrowser(ctx, tenant, 'reader@read.test')
  const page = await r.get(`/console/users/${other.profileId}`)
  assert.equal(page.statusCode, 200)
  assert.doesNotMatch(page.body, /\/edit"|Roles at locations|set-password-link|Deactivate/)
  assert.equal((await r.get(`/console/users/${other.profileId}/edit`)).statusCode, 403)
  const csrf = r.csrfOf(page.body)!
  for (const path of ['edit', 'location-roles', 'set-password-link', 'deactivate'])
    assert.equal((await r.post(`/console/users/${other.profileId}/${path}`, { _csrf: csrf })).statusCode, 403, path)
})

test('hostile addresses and forms get a 4xx page, never a 5xx, and write nothing', async () => {
  const { tenant, admin, b, roles } = await setUp()
  const { profileId } = await createUser(admin, 'target@hostile.test', roles.Requester)
  const csrf = b.csrfOf((await b.get(`/console/users/${profileId}`)).body)!
  for (const url of [
    '/console/users/abc',
    '/console/users/0',
    '/console/users/99999999999',
    '/console/users/999999',
    '/console/users/-1/edit',
    `/console/users/${profileId}?done=${'x'.repeat(500)}`,
  ]) {
    const response = await b.get(url)
    assert.ok(response.statusCode >= 400 && response.statusCode < 500, `${url}: ${response.statusCode}`)
  }
  const other = await newTenant(ctx)
  const stranger = await createUser(
    await apiAs(ctx, other, other.adminUserId),
    'x@other.test',
    await roleId(ctx, other, 'Requester'),
  )
  assert.equal((await b.get(`/console/users/${stranger.profileId}`)).statusCode, 404, "another tenant's user")
  assert.equal(
    (await b.post(`/console/users/${stranger.profileId}/activate`, { _csrf: csrf })).statusCode,
    404,
    "another tenant's user cannot be touched",
  )

  const before = await profileOf(admin, profileId)
  for (const form of [
    { firstName: 'a\u202Eb', lastName: 'x', role_id: String(roles.Requester) },
    { firstName: 'a', lastName: 'b', role_id: 'admin' },
    { firstName: 'a', lastName: 'b', role_id: '99999999999999999999' },
    { firstName: 'a', lastName: 'b', role_id: String(roles.Requester), location: '-5' },
    { firstName: 'a', lastName: 'b', role_id: String(roles.Requester), location: '999999' },
    { firstName: 'a', lastName: 'b', role_id: String(roles.Requester), department: '999999' },
    { firstName: 'x'.repeat(101), lastName: 'b', role_id: String(roles.Requester) },
    { firstName: 'x'.repeat(10_001), lastName: 'b' },
    { firstName: '<script>alert(1)</script>', lastName: '"><img src=x>', role_id: '"><b>' },
  ]) {
    const response = await b.post(`/console/users/${profileId}/edit`, { _csrf: csrf, ...form })
    assert.ok(
      response.statusCode >= 400 && response.statusCode < 500,
      `${JSON.stringify(form).slice(0, 80)}: ${response.statusCode}`,
    )
    assert.doesNotMatch(response.body, /<script>alert/)
  }
  const many = Object.fromEntries(Array.from({ length: 300 }, (_, i) => [`grant.${i}.0`, '1']))
  assert.equal((await b.post(`/console/users/${profileId}/location-roles`, { _csrf: csrf, ...many })).statusCode, 400)
  assert.deepEqual(await profileOf(admin, profileId), before, 'nothing was written')
  for (const path of ['invitation', 'set-password-link', 'activate', 'edit', 'location-roles'])
    assert.equal((await b.post(`/console/users/${profileId}/${path}`, {})).statusCode, 403, `${path} without CSRF`)
  assert.ok(tenant)
})

/**
 * The whole onboarding journey in a real browser (Debian's Chromium driven by playwright-core), against the
 * real `procurement` command on an embedded database: the operator runs `tenants create`, the administrator
 * opens the printed link, sets a password, signs in, creates an application in Settings → Applications,
 * reads the Client ID and Secret off the page, gets a token with them and lists vendors; rotates (the old
 * secret fails) and revokes (the token is refused). A Requester is not allowed on the page; a forged CSRF
 * token is refused; axe-core finds no serious or critical violation on any page.
 * Screenshots for the README: UPDATE_SCREENSHOTS=1 npm run test:browser
 */
import assert from 'node:assert/strict'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { after, before, test } from 'node:test'
import type { Browser, Page } from 'playwright-core'
import { accessible, freePort, launchChromium, noChromium } from '../helpers/browser.ts'
import { run, runToEnd, type Running } from '../helpers/process.ts'

const skip = noChromium
const root = path.resolve(import.meta.dirname, '../..')
const shots =
  process.env.UPDATE_SCREENSHOTS === '1'
    ? path.join(root, 'docs/images')
    : fs.mkdtempSync(path.join(os.tmpdir(), 'shots-'))
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'procurement-browser-'))
const PASSWORD = 'a long and private passphrase'
const AUDIENCE = 'procurement-api'

let port = 0
let base = ''
let server: Running | undefined
let browser: Browser | undefined
const env = () => ({ DATA_DIR: dataDir, DEMO_SEED: 'false', PORT: String(port), LOG_LEVEL: 'warn' })

async function startServer(): Promise<void> {
  server = run(['serve'], env())
  await server.waitFor(/listening on http:\/\/\S+/, 60_000)
}
async function stopServer(): Promise<void> {
  server?.child.kill('SIGTERM')
  await server?.exited
  server = undefined
}

before(async () => {
  if (skip) return
  port = await freePort()
  base = `http://127.0.0.1:${port}`
  browser = await launchChromium()
})
after(async () => {
  await browser?.close()
  await stopServer()
  fs.rmSync(dataDir, { recursive: true, force: true })
})

const token = (creds: { client_id: string; client_secret: string }) =>
  fetch(`${base}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ ...creds, audience: AUDIENCE, grant_type: 'client_credentials' }),
  })
const vendors = (accessToken: string) =>
  fetch(`${base}/api/v3/vendors/`, { headers: { authorization: `Bearer ${accessToken}`, 'x-service-client': 'api' } })

async function setPassword(page: Page, link: string): Promise<void> {
  await page.goto(link)
  await page.getByLabel('New password').fill(PASSWORD)
  await page.getByLabel('Repeat the password').fill(PASSWORD)
  await page.getByRole('button', { name: 'Set password' }).click()
  await page.waitForURL(/\/console\/account/)
}

test(
  'operator → tenant → administrator → console → credentials → token, then rotate and revoke',
  { skip, timeout: 300_000 },
  async () => {
    const created = await runToEnd(
      [
        'tenants',
        'create',
        '--domain',
        'acme',
        '--name',
        'Acme Manufacturing',
        '--admin-email',
        'admin@acme.test',
        '--admin-first-name',
        'Ada',
        '--json',
      ],
      env(),
    )
    assert.equal(created.code, 0, created.output)
    const { setup_url } = JSON.parse(created.output.trim().split('\n').at(-1)!) as { setup_url: string }
    assert.ok(setup_url.startsWith(`${base}/console/setup/`), setup_url)
    await startServer()

    const context = await browser!.newContext()
    const page = await context.newPage()
    await accessible(context, setup_url)
    await setPassword(page, setup_url)
    await page.getByRole('button', { name: 'Sign out' }).click()
    await page.waitForURL(/\/console\/sign-in/)

    // Signing in as a person does: the labelled fields and the button.
    await page.goto(`${base}/console/sign-in`)
    await accessible(context, `${base}/console/sign-in`)
    await page.screenshot({ path: path.join(shots, 'console-sign-in.png'), fullPage: true })
    await page.getByLabel('Email').fill('admin@acme.test')
    await page.getByLabel('Password').fill(PASSWORD)
    await page.getByRole('button', { name: 'Sign in' }).click()
    await page.waitForURL(/\/console\/account/)
    for (const view of ['account', 'users', 'locations', 'vendors', 'settings/applications'])
      await accessible(context, `${base}/console/${view}`)

    await page.getByRole('link', { name: 'Applications', exact: true }).click()
    await page.getByLabel('Description').fill('ERP integration')
    await page.getByRole('button', { name: 'Create application' }).click()
    const clientId = (await page.getByTestId('client-id').textContent())!.trim()
    const clientSecret = (await page.getByTestId('client-secret').textContent())!.trim()
    await page.screenshot({ path: path.join(shots, 'console-applications.png'), fullPage: true })

    const issued = await token({ client_id: clientId, client_secret: clientSecret })
    assert.equal(issued.status, 200, await issued.clone().text())
    const listed = await vendors(((await issued.json()) as { access_token: string }).access_token)
    assert.equal(listed.status, 200)

    await page.goto(`${base}/console/settings/applications`)
    assert.ok(!(await page.content()).includes(clientSecret), 'the secret is never shown again')
    await page.getByRole('button', { name: `Rotate the secret of ${clientId}` }).click()
    const rotatedSecret = (await page.getByTestId('client-secret').textContent())!.trim()
    assert.notEqual(rotatedSecret, clientSecret)
    assert.equal(
      (await token({ client_id: clientId, client_secret: clientSecret })).status,
      401,
      'the old secret fails',
    )
    const fresh = (
      (await (await token({ client_id: clientId, client_secret: rotatedSecret })).json()) as { access_token: string }
    ).access_token
    assert.equal((await vendors(fresh)).status, 200)

    await page.getByRole('link', { name: `Revoke ${clientId}` }).click()
    await accessible(context, page.url())
    await page.getByRole('button', { name: 'Revoke application' }).click()
    await page.waitForURL(/revoked=/)
    assert.equal((await vendors(fresh)).status, 401, 'the token is refused once revoked')

    // A forged or missing CSRF token is refused, and nothing is created.
    for (const form of [{ description: 'forged', _csrf: 'not-the-token' }, { description: 'missing' }]) {
      const forged = await page.request.post(`${base}/console/settings/applications`, { form, maxRedirects: 0 })
      assert.equal(forged.status(), 403)
    }
    await page.goto(`${base}/console/settings/applications`)
    assert.ok(!(await page.content()).includes('forged') && !(await page.content()).includes('>missing<'))

    // A Requester, invited from the console, is not allowed on the applications page.
    await page.getByRole('link', { name: 'Users' }).click()
    await page.getByLabel('Email').fill('requester@acme.test')
    await page.getByLabel('Role').selectOption({ label: 'Requester' })
    await page.getByRole('button', { name: 'Send invitation' }).click()
    await page.waitForURL(/invited=/)
    await context.close()
    await stopServer()
    const reset = await runToEnd(
      ['users', 'reset-password', '--domain', 'acme', '--email', 'requester@acme.test', '--json'],
      env(),
    )
    assert.equal(reset.code, 0, reset.output)
    await startServer()
    const requester = await (await browser!.newContext()).newPage()
    await setPassword(
      requester,
      (JSON.parse(reset.output.trim().split('\n').at(-1)!) as { setup_url: string }).setup_url,
    )
    const refused = await requester.goto(`${base}/console/settings/applications`)
    assert.equal(refused?.status(), 403)
    assert.match(
      await requester.locator('main').innerText(),
      /not allowed|needs the superuser or nav_setting permission/i,
    )
    await accessible(requester.context(), `${base}/console/settings/applications`)
  },
)

/**
 * A purchase request from draft to approved, in a real browser, on a server of its own: the administrator
 * (a superuser, so a requester anywhere) makes a request with two lines in the lines editor and submits it;
 * the approver (invited through the API with the Approver role at every location, named by an approval rule)
 * sets a password, finds it in the Approvals inbox and approves it. axe-core on every page on the way;
 * 390 px screenshots of the request and of the inbox for docs/approvals.md.
 */
test('a request with two lines: create, submit, approve from the inbox', { skip, timeout: 300_000 }, async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'procurement-requests-'))
  const own = await freePort()
  const site = `http://127.0.0.1:${own}`
  const ownEnv = { DATA_DIR: dir, DEMO_SEED: 'false', PORT: String(own), LOG_LEVEL: 'warn' }
  let serving: Running | undefined
  try {
    const created = await runToEnd(
      ['tenants', 'create', '--domain', 'shop', '--name', 'Shop', '--admin-email', 'admin@shop.test', '--json'],
      ownEnv,
    )
    assert.equal(created.code, 0, created.output)
    const { setup_url } = JSON.parse(created.output.trim().split('\n').at(-1)!) as { setup_url: string }
    serving = run(['serve'], ownEnv)
    await serving.waitFor(/listening on http:\/\/\S+/, 60_000)

    // The administrator's set-up through the API: an approver, a rule naming them, a vendor.
    const client = await runToEnd(
      ['clients', 'create', '--domain', 'shop', '--email', 'admin@shop.test', '--json'],
      ownEnv,
    )
    assert.equal(client.code, 0, client.output)
    const creds = JSON.parse(client.output.trim().split('\n').at(-1)!) as { client_id: string; client_secret: string }
    const issued = await fetch(`${site}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ...creds, audience: AUDIENCE, grant_type: 'client_credentials' }),
    })
    assert.equal(issued.status, 200, await issued.clone().text())
    const { access_token } = (await issued.json()) as { access_token: string }
    const api = async (method: string, url: string, body?: unknown) => {
      const response = await fetch(`${site}${url}`, {
        method,
        headers: {
          authorization: `Bearer ${access_token}`,
          'x-service-client': 'api',
          'content-type': 'application/json',
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      })
      assert.ok(response.status < 300, `${method} ${url} → ${response.status} ${await response.clone().text()}`)
      return ((await response.json()) as { data: unknown }).data
    }
    const roles = (await api('GET', '/api/v3/roles/?page_size=100')) as { id: number; name: string }[]
    const [approver] = (await api('POST', '/api/v3/users/', [
      {
        email: 'approver@shop.test',
        first_name: 'Abe',
        last_name: 'Approver',
        role_id: roles.find((r) => r.name === 'Approver')!.id,
        all_locations: true,
        send_invitation_email: true,
      },
    ])) as { id: number }[]
    await api('POST', '/api/v3/approval-rules/', { step: 1, approvers: [approver!.id] })
    await api('POST', '/api/v3/vendors/', { name: 'Chairs & Co', type: 3 })

    // The administrator makes the request with two lines and submits it.
    const admin = await browser!.newContext()
    const page = await admin.newPage()
    await setPassword(page, setup_url)
    await page.getByRole('link', { name: 'Requests', exact: true }).click()
    await accessible(admin, page.url())
    await page.getByRole('link', { name: 'New request' }).click()
    await accessible(admin, page.url())
    await page.getByLabel('Description').fill('Chairs for the new hires')
    await page.locator('#f-lines-0-description').fill('Desk chair')
    await page.locator('#f-lines-0-vendor').selectOption({ label: 'Chairs & Co' })
    await page.locator('#f-lines-0-quantity').fill('4')
    await page.locator('#f-lines-0-unit-price').fill('120.50')
    await page.locator('#f-lines-1-description').fill('Footrest')
    await page.locator('#f-lines-1-quantity').fill('2')
    await page.locator('#f-lines-1-unit-price').fill('15')
    await page.getByRole('button', { name: 'Save draft' }).click()
    await page.waitForURL(/\/console\/requests\/\d+\?done=created/)
    assert.equal((await page.getByTestId('total').textContent())!.trim(), '512.00 USD')
    await accessible(admin, page.url())
    await page.getByRole('button', { name: 'Submit for approval' }).click()
    await page.waitForURL(/done=submitted/)
    assert.match(await page.locator('main').innerText(), /Waiting for approval[\s\S]*Abe Approver/)
    await page.setViewportSize({ width: 390, height: 844 })
    await page.screenshot({ path: path.join(shots, 'console-request.png'), fullPage: true })
    const requestUrl = page.url().split('?')[0]!

    // The approver's invitation waits in the outbox (no mail server); they set a password and approve.
    await page.goto(`${site}/console/outbox`)
    const mail = page.locator('article', { hasText: 'approver@shop.test' })
    const outbox = await mail.filter({ hasText: 'You are invited' }).innerText()
    const link = /https?:\/\/\S+\/console\/setup\/[A-Za-z0-9_-]+/.exec(outbox)![0]
    // The approval e-mail waits beside it, with a link to the approval (issue #33).
    assert.match(await mail.filter({ hasText: 'Approval needed' }).innerText(), /\/console\/approvals\/\d+/)
    const approverPage = await (await browser!.newContext({ viewport: { width: 390, height: 844 } })).newPage()
    await setPassword(approverPage, link)
    await approverPage.getByRole('link', { name: 'Approvals', exact: true }).click()
    await accessible(approverPage.context(), approverPage.url())
    await approverPage.screenshot({ path: path.join(shots, 'console-approvals.png'), fullPage: true })
    await approverPage
      .getByRole('link', { name: /^#\d+$/ })
      .first()
      .click()
    await accessible(approverPage.context(), approverPage.url())
    await approverPage.getByRole('button', { name: 'Reject' }).click()
    assert.match(await approverPage.locator('#error-summary').innerText(), /Comment: is required to reject/)
    await approverPage.getByLabel('Comment').fill('Within budget.')
    await approverPage.getByRole('button', { name: 'Approve' }).click()
    await approverPage.waitForURL(/done=approved/)
    assert.match(await approverPage.locator('main').innerText(), /Nothing is waiting for your approval/)

    await page.goto(requestUrl)
    assert.match(await page.locator('main').innerText(), /Approved[\s\S]*Abe Approver[\s\S]*Within budget\./)
    await admin.close()
    await approverPage.context().close()
  } finally {
    serving?.child.kill('SIGTERM')
    await serving?.exited
    fs.rmSync(dir, { recursive: true, force: true })
  }
})

test(
  'an administrator invites someone without SMTP, edits them, grants a role at a location, deactivates and reactivates',
  { skip, timeout: 300_000 },
  async () => {
    // Single-tenant mode: the company of the journey above, or made here when this test runs alone.
    await stopServer()
    const created = await runToEnd(
      [
        'tenants',
        'create',
        '--domain',
        'acme',
        '--name',
        'Acme Manufacturing',
        '--admin-email',
        'admin@acme.test',
        '--json',
      ],
      env(),
    )
    await startServer()
    const context = await browser!.newContext()
    const page = await context.newPage()
    if (created.code === 0) {
      await setPassword(
        page,
        (JSON.parse(created.output.trim().split('\n').at(-1)!) as { setup_url: string }).setup_url,
      )
    } else {
      assert.match(created.output, /already has a tenant \(acme\)|acme is taken/, created.output)
      await page.goto(`${base}/console/sign-in`)
      await page.getByLabel('Email').fill('admin@acme.test')
      await page.getByLabel('Password').fill(PASSWORD)
      await page.getByRole('button', { name: 'Sign in' }).click()
      await page.waitForURL(/\/console\/account/)
    }

    // Invite: no mail server, so the page shows the link; a second browser opens it and sets a password.
    await page.getByRole('link', { name: 'Users' }).click()
    await page.getByLabel('Email').fill('nia@acme.test')
    await page.getByLabel('First name').fill('Nia')
    await page.getByLabel('Role').selectOption({ label: 'Requester' })
    await page.getByRole('button', { name: 'Send invitation' }).click()
    await page.waitForURL(/invited=/)
    assert.match(await page.locator('main').innerText(), /No e-mail was sent/)
    await accessible(context, page.url())
    const link = (await page.locator('#invite-link').textContent())!.trim()
    const invitee = await browser!.newContext()
    await setPassword(await invitee.newPage(), link)
    await invitee.close()

    // The list says Active now; the row leads to Nia's page.
    await page.goto(`${base}/console/users`)
    assert.match(await page.locator('tr', { hasText: 'nia@acme.test' }).innerText(), /Active/)
    await page.getByRole('link', { name: 'Nia', exact: true }).click()
    await page.waitForURL(/\/console\/users\/\d+$/)
    const userUrl = page.url()
    await accessible(context, userUrl)

    // Edit: a mistake first (no last name), shown at its field; then saved.
    await page.getByRole('link', { name: 'Edit', exact: true }).click()
    await accessible(context, page.url())
    await page.getByLabel('Role', { exact: true }).selectOption({ label: 'Buyer' })
    await page.getByLabel('Home location').selectOption({ label: 'Headquarters' })
    await page.getByRole('button', { name: 'Save user' }).click()
    assert.match(await page.locator('#error-summary').innerText(), /Last name/)
    assert.equal(await page.getByLabel('Role', { exact: true }).inputValue(), await roleValue(page, 'Buyer'))
    await page.getByLabel('Last name').fill('Okafor')
    await page.getByRole('button', { name: 'Save user' }).click()
    await page.waitForURL(/done=saved/)
    assert.match(await page.locator('main').innerText(), /Your changes are saved[\s\S]*Buyer/)

    // A role at a location, edited on the user's page.
    await page.getByLabel('Role at Headquarters').selectOption({ label: 'Approver' })
    await page.getByRole('button', { name: 'Save roles at locations' }).click()
    await page.waitForURL(/done=grants/)
    assert.match(await page.locator('main').innerText(), /Their roles at locations are saved/)
    const chosen = await page.getByLabel('Role at Headquarters').inputValue()
    assert.equal(chosen, await roleValue(page, 'Approver'))
    await accessible(context, page.url())

    // On a phone: nothing scrolls sideways.
    await page.setViewportSize({ width: 390, height: 844 })
    await page.goto(userUrl)
    const wide = await page.evaluate(
      () =>
        (globalThis as unknown as { document: { documentElement: { scrollWidth: number } } }).document.documentElement
          .scrollWidth,
    )
    assert.ok(wide <= 390, `the page is ${wide} px wide at 390 px`)
    await page.screenshot({ path: path.join(shots, 'console-user-390.png'), fullPage: true })
    await page.setViewportSize({ width: 1280, height: 900 })

    // Deactivate (after a question), then reactivate from the user's page.
    await page.getByRole('link', { name: 'Deactivate', exact: true }).click()
    await accessible(context, page.url())
    await page.getByRole('button', { name: 'Deactivate user' }).click()
    await page.waitForURL(/deactivated=1/)
    assert.match(await page.locator('tr', { hasText: 'nia@acme.test' }).innerText(), /Deactivated/)
    await page.goto(userUrl)
    await page.getByRole('button', { name: 'Reactivate' }).click()
    await page.waitForURL(/done=activated/)
    assert.match(await page.locator('main').innerText(), /The user is active again/)
    await accessible(context, `${base}/console/outbox`)
    await context.close()
  },
)

/** The value of the option labelled `label` in the page's first role select. */
const roleValue = (page: Page, label: string) =>
  page
    .locator('select option', { hasText: new RegExp(`^${label}$`) })
    .first()
    .getAttribute('value')

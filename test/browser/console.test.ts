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
import { test } from 'node:test'
import type { Page } from 'playwright-core'
import {
  accessible,
  choosePassword,
  CONSOLE_PASSWORD,
  HOME,
  fitsPhone,
  noChromium,
  shotPath,
  signIn,
} from '../helpers/browser.ts'
import {
  bearer,
  lastJson,
  requestToken,
  startConsoleServer,
  useConsoleServer,
  type Credentials,
} from '../helpers/console-server.ts'

const skip = noChromium
// The company the operator makes; its administrator sets a password in the first journey.
const server = useConsoleServer({
  domain: 'acme',
  name: 'Acme Manufacturing',
  adminFirstName: 'Ada',
  setPassword: false,
})
/** Whether the first journey has set the administrator's password (not when a later test runs alone). */
let adminHasPassword = false

const token = (credentials: Credentials) => requestToken(server.base, credentials)
const vendors = (accessToken: string) => fetch(`${server.base}/api/v3/vendors/`, { headers: bearer(accessToken) })

test(
  'operator → tenant → administrator → console → credentials → token, then rotate and revoke',
  { skip, timeout: 300_000 },
  async () => {
    const { base, browser, setupUrl } = server
    assert.ok(setupUrl.startsWith(`${base}/console/setup/`), setupUrl)

    const context = await browser.newContext()
    const page = await context.newPage()
    await accessible(context, setupUrl)
    await choosePassword(page, setupUrl)
    adminHasPassword = true
    await page.getByRole('button', { name: 'Sign out' }).click()
    await page.waitForURL(/\/console\/sign-in/)

    // Signing in as a person does: the labelled fields and the button.
    await page.goto(`${base}/console/sign-in`)
    await accessible(context, `${base}/console/sign-in`)
    await page.screenshot({ path: shotPath('console-sign-in.png'), fullPage: true })
    await page.getByLabel('Email').fill('admin@acme.test')
    await page.getByLabel('Password').fill(CONSOLE_PASSWORD)
    await page.getByRole('button', { name: 'Sign in' }).click()
    await page.waitForURL(HOME)
    for (const view of ['', 'account', 'users', 'locations', 'vendors', 'settings/applications'])
      await accessible(context, `${base}/console/${view}`)

    await page.getByRole('link', { name: 'Applications', exact: true }).click()
    await page.getByLabel('Description').fill('ERP integration')
    await page.getByRole('button', { name: 'Create application' }).click()
    const clientId = (await page.getByTestId('client-id').textContent())!.trim()
    const clientSecret = (await page.getByTestId('client-secret').textContent())!.trim()
    await page.screenshot({ path: shotPath('console-applications.png'), fullPage: true })

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
    const reset = await server.offline([
      'users',
      'reset-password',
      '--domain',
      'acme',
      '--email',
      'requester@acme.test',
      '--json',
    ])
    assert.equal(reset.code, 0, reset.output)
    const { page: requester } = await server.setPassword(lastJson<{ setup_url: string }>(reset.output).setup_url, 1280)
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
  const shop = await startConsoleServer({ domain: 'shop', name: 'Shop', setPassword: false })
  try {
    // The administrator's set-up through the API: an approver, a rule naming them, a vendor.
    const roles = await shop.api<{ id: number; name: string }[]>('GET', '/api/v3/roles/?page_size=100')
    const [approver] = await shop.api<{ id: number }[]>('POST', '/api/v3/users/', [
      {
        email: 'approver@shop.test',
        first_name: 'Abe',
        last_name: 'Approver',
        role_id: roles.find((r) => r.name === 'Approver')!.id,
        all_locations: true,
        send_invitation_email: true,
      },
    ])
    await shop.api('POST', '/api/v3/approval-rules/', { step: 1, approvers: [approver!.id] })
    await shop.api('POST', '/api/v3/vendors/', { name: 'Chairs & Co', type: 3 })

    // The administrator makes the request with two lines and submits it.
    const { context: admin, page } = await shop.setPassword(shop.setupUrl, 1280)
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
    await page.screenshot({ path: shotPath('console-request.png'), fullPage: true })
    const requestUrl = page.url().split('?')[0]!

    // The approver's invitation waits in the outbox (no mail server); they set a password and approve.
    await page.goto(`${shop.base}/console/outbox`)
    const mail = page.locator('article', { hasText: 'approver@shop.test' })
    const outbox = await mail.filter({ hasText: 'You are invited' }).innerText()
    const link = /https?:\/\/\S+\/console\/setup\/[A-Za-z0-9_-]+/.exec(outbox)![0]
    // The approval e-mail waits beside it, with a link to the approval (issue #33).
    assert.match(await mail.filter({ hasText: 'Approval needed' }).innerText(), /\/console\/approvals\/\d+/)
    const { page: approverPage } = await shop.setPassword(link)
    // At 390 px the menu is one button: open it, then follow Approvals (its name carries the waiting count).
    await approverPage.locator('details.menu > summary').click()
    await approverPage.getByRole('link', { name: /^Approvals\b/ }).click()
    await accessible(approverPage.context(), approverPage.url())
    await approverPage.screenshot({ path: shotPath('console-approvals.png'), fullPage: true })
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
    await shop.close()
  }
})

test(
  'an administrator invites someone without SMTP, edits them, grants a role at a location, deactivates and reactivates',
  { skip, timeout: 300_000 },
  async () => {
    // The company of the journey above; its administrator sets a password here when this test runs alone.
    const { base, browser } = server
    const context = await browser.newContext()
    const page = await context.newPage()
    if (adminHasPassword) await signIn(page, base, server.adminEmail)
    else await choosePassword(page, server.setupUrl)

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
    await (await server.setPassword(link, 1280)).context.close()

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
    await fitsPhone(page)
    await page.screenshot({ path: shotPath('console-user-390.png'), fullPage: true })
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

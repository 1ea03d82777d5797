/**
 * Single sign-on in a real browser (Debian's Chromium driven by playwright-core) against the real `procurement`
 * command (SSO_ALLOW_HTTP_ISSUER=true) and a real OpenID provider (oidc-provider on 127.0.0.1): the
 * administrator configures Settings → Single sign-on, then signs in through the provider as an existing user,
 * a new person is created at their first sign-in (JIT) with the roles of their group, and a person of another
 * e-mail domain is shown a page that says why not. axe-core finds no serious or critical violation on the
 * pages, and at 390 px nothing scrolls sideways.
 */
import assert from 'node:assert/strict'
import { after, test } from 'node:test'
import type { BrowserContext, Page } from 'playwright-core'
import { accessible, checked, fitsPhone, freePort, HOME, noChromium } from '../helpers/browser.ts'
import { useConsoleServer } from '../helpers/console-server.ts'
import { startProvider, type TestProvider } from '../helpers/oidc.ts'

const skip = noChromium
let idp: TestProvider | undefined
const server = useConsoleServer(async () => {
  // The provider must know the redirect URI, so the port is chosen before the server starts.
  const port = await freePort()
  idp = await startProvider([`http://127.0.0.1:${port}/console/sso/callback`])
  return { domain: 'acme', name: 'Acme', port, env: { SSO_ALLOW_HTTP_ISSUER: 'true' } }
})
after(async () => {
  await idp?.close()
})

/**
 * A browser of its own for one person (the provider keeps its own session in cookies), from the console's
 * sign-in page through the provider's log-in and consent pages, as `login`.
 */
async function signInThroughProvider(login: string): Promise<{ context: BrowserContext; page: Page }> {
  const context = await server.browser.newContext({ viewport: { width: 390, height: 844 } })
  // The provider's development pages import a web font; this closed network has no route to it.
  await context.route(/^https:\/\/fonts\./, (route) => route.abort())
  const page = await context.newPage()
  await page.goto(`${server.base}/console/sign-in`)
  await page.getByRole('link', { name: 'Sign in with single sign-on' }).click()
  await page.waitForURL((url) => url.origin === idp!.issuer, { waitUntil: 'domcontentloaded' })
  await page.locator('input[name="login"]').fill(login)
  await page.locator('input[name="password"]').fill('anything')
  await page.getByRole('button', { name: 'Sign-in' }).click()
  await page.getByRole('button', { name: 'Continue' }).click()
  await page.waitForURL((url) => url.origin === server.base)
  return { context, page }
}

test(
  'configure single sign-on, sign in as an existing and a new person (JIT, group roles), a refused domain',
  { skip, timeout: 300_000 },
  async () => {
    idp!.accounts.set('ada', { email: 'admin@acme.test', email_verified: true, given_name: 'Ada' })
    idp!.accounts.set('nina', { email: 'nina@acme.test', given_name: 'Nina', family_name: 'New', groups: ['buyers'] })
    idp!.accounts.set('olga', { email: 'olga@elsewhere.example', given_name: 'Olga' })

    const { context, page } = await server.signedIn()

    // At 390 px the menu is one button: open it first.
    await page.locator('details.menu > summary').click()
    await page.getByRole('link', { name: 'Single sign-on' }).click()
    await page.waitForURL(/\/console\/settings\/sso/)
    assert.equal(await page.getByTestId('redirect-uri').textContent(), `${server.base}/console/sso/callback`)
    await checked(context, page)
    await page.getByLabel('Issuer URL').fill(idp!.issuer)
    await page.getByLabel('Client ID').fill(idp!.clientId)
    await page.getByLabel('Client secret').fill(idp!.clientSecret)
    await page.getByLabel('Scopes').fill('openid email profile groups')
    await page.getByLabel('Allowed e-mail domains').fill('acme.test')
    await page.getByLabel('Create accounts at first sign-in').check()
    await page.getByLabel('Role of new accounts').selectOption({ label: 'Requester' })
    await page.getByLabel('Group roles').fill('buyers = Buyer')
    await page.getByRole('button', { name: 'Save single sign-on' }).click()
    await page.waitForURL(/done=saved/)
    assert.match(await page.content(), /the issuer answered OpenID discovery/)
    assert.equal(await page.getByLabel('Client secret').inputValue(), '', 'the secret is never shown back')
    await fitsPhone(page)
    await page.locator('details.menu > summary').click()
    await page.getByRole('button', { name: 'Sign out' }).click()
    await accessible(context, `${server.base}/console/sign-in`)
    await context.close()

    // The administrator, linked by e-mail at the first sign-in.
    const ada = await signInThroughProvider('ada')
    await ada.page.waitForURL(HOME)
    await ada.page.goto(`${server.base}/console/account`)
    assert.match(await ada.page.content(), /admin@acme\.test/)
    await ada.context.close()

    // A new person: created at the first sign-in with the default role, plus the role of their group.
    const nina = await signInThroughProvider('nina')
    await nina.page.waitForURL(HOME)
    await nina.page.goto(`${server.base}/console/account`)
    const account = await nina.page.content()
    assert.match(account, /nina@acme\.test/)
    assert.match(account, /Requester/)
    assert.match(account, /Buyer/)
    await checked(nina.context, nina.page)
    await nina.context.close()

    // Another e-mail domain: a page that says why, and no session.
    const olga = await signInThroughProvider('olga')
    assert.match(await olga.page.content(), /elsewhere\.example cannot join this company/)
    await checked(olga.context, olga.page)
    await olga.page.goto(`${server.base}/console/account`)
    await olga.page.waitForURL(/\/console\/sign-in/)
    await olga.context.close()
  },
)

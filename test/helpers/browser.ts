/**
 * Debian's Chromium for the browser tests, launched headless the way this closed network needs it; axe-core and
 * the 390 px check; and the console server every journey starts from (`startConsoleServer`).
 */
import assert from 'node:assert/strict'
import fs from 'node:fs'
import net from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core'
import { run, runToEnd, type Running } from './process.ts'

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'

/** A reason to skip when there is no Chromium (`.ci/run` installs Debian's chromium package), else false. */
export const noChromium =
  !fs.existsSync(CHROMIUM) && `no Chromium at ${CHROMIUM} (.ci/run installs Debian's chromium package)`

export const launchChromium = (): Promise<Browser> =>
  chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--no-first-run',
      '--disable-dev-shm-usage',
    ],
  })

const root = path.resolve(import.meta.dirname, '../..')

/** A port free on the loopback interface now, for a server a browser test starts. */
export const freePort = () =>
  new Promise<number>((resolve) => {
    const probe = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as net.AddressInfo
      probe.close(() => resolve(port))
    })
  })

/** axe-core on `url` as `context`'s user sees it (in a CSP-bypassing twin context with the same cookies). */
export async function accessible(context: BrowserContext, url: string): Promise<void> {
  const twin = await context.browser()!.newContext({ bypassCSP: true, storageState: await context.storageState() })
  try {
    const page = await twin.newPage()
    await page.goto(url)
    await page.addScriptTag({ path: path.join(root, 'node_modules/axe-core/axe.min.js') })
    const violations = await page.evaluate(async () => {
      const result = await (
        globalThis as unknown as {
          axe: { run(): Promise<{ violations: { id: string; impact: string | null; help: string }[] }> }
        }
      ).axe.run()
      return result.violations
        .filter((v) => v.impact === 'serious' || v.impact === 'critical')
        .map((v) => `${v.id}: ${v.help}`)
    })
    assert.deepEqual(violations, [], `${url}: accessibility`)
  } finally {
    await twin.close()
  }
}

/** At 390 px wide the page does not scroll sideways. */
export async function fitsPhone(page: Page): Promise<void> {
  const wide = await page.evaluate(() => {
    const { documentElement } = (
      globalThis as unknown as { document: { documentElement: { scrollWidth: number; clientWidth: number } } }
    ).document
    return documentElement.scrollWidth - documentElement.clientWidth
  })
  assert.ok(wide <= 0, `${page.url()} scrolls ${wide} px sideways at 390 px`)
}

export const CONSOLE_PASSWORD = 'a long and private passphrase'

/** The real `procurement serve` on an embedded database, with Chromium and a tenant whose administrator can sign in. */
export interface ConsoleServer {
  /** `http://127.0.0.1:<port>` */
  base: string
  dataDir: string
  browser: Browser
  adminEmail: string
  /** The `procurement` command on this server's DATA_DIR (and environment), run to its end. */
  command(args: string[]): Promise<{ code: number | null; output: string }>
  /** A new browser context (390 px wide unless told), signed in through the sign-in page (the admin by default). */
  signedIn(options?: {
    width?: number
    email?: string
    password?: string
  }): Promise<{ context: BrowserContext; page: Page }>
  /** Sets a password through a one-time link (an invitation, a set-up link) in a new context, signed in. */
  setPassword(link: string, width?: number): Promise<{ context: BrowserContext; page: Page }>
  /** An API caller as the administrator (an application made by `clients create`): JSON in, `data` out. */
  api<T = { id: number }>(method: string, url: string, body?: unknown): Promise<T>
  close(): Promise<void>
}

/**
 * What every browser journey starts from: a tenant made by `procurement tenants create` (no demo data), the
 * server started on a free port (or `port`, when something must know the address first — an identity
 * provider's redirect URI), Chromium launched, and the administrator's password set through the link
 * `tenants create` printed. `close()` (in `after`) stops both and removes the data directory.
 */
export async function startConsoleServer(options: {
  domain: string
  /** The company's name (default: the domain). */
  name?: string
  adminEmail?: string
  port?: number
  env?: Record<string, string>
}): Promise<ConsoleServer> {
  const port = options.port ?? (await freePort())
  const base = `http://127.0.0.1:${port}`
  const adminEmail = options.adminEmail ?? `admin@${options.domain}.test`
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), `procurement-browser-${options.domain}-`))
  const env = { DATA_DIR: dataDir, DEMO_SEED: 'false', PORT: String(port), LOG_LEVEL: 'warn', ...options.env }
  const command = (args: string[]) => runToEnd(args, env)
  const lastJson = <T>(output: string) => JSON.parse(output.trim().split('\n').at(-1)!) as T
  const created = await command([
    ...['tenants', 'create', '--domain', options.domain, '--name', options.name ?? options.domain],
    ...['--admin-email', adminEmail, '--json'],
  ])
  assert.equal(created.code, 0, created.output)
  const { setup_url } = lastJson<{ setup_url: string }>(created.output)
  const server: Running = run(['serve'], env)
  let browser: Browser | undefined
  const close = async () => {
    await browser?.close()
    server.child.kill('SIGTERM')
    await server.exited
    fs.rmSync(dataDir, { recursive: true, force: true })
  }
  try {
    await server.waitFor(/listening on http:\/\/\S+/, 60_000)
    browser = await launchChromium()
  } catch (error) {
    await close()
    throw error
  }
  const opened = browser
  const setPassword = async (link: string, width = 390) => {
    const context = await opened.newContext({ viewport: { width, height: 844 } })
    const page = await context.newPage()
    await page.goto(link)
    await page.getByLabel('New password').fill(CONSOLE_PASSWORD)
    await page.getByLabel('Repeat the password').fill(CONSOLE_PASSWORD)
    await page.getByRole('button', { name: 'Set password' }).click()
    await page.waitForURL(/\/console\/account/)
    return { context, page }
  }
  await (await setPassword(setup_url)).context.close()
  let token: string | undefined
  const api = async <T>(method: string, url: string, body?: unknown): Promise<T> => {
    if (token === undefined) {
      const client = await command(['clients', 'create', '--domain', options.domain, '--email', adminEmail, '--json'])
      assert.equal(client.code, 0, client.output)
      const issued = await fetch(`${base}/oauth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          ...lastJson(client.output),
          audience: 'procurement-api',
          grant_type: 'client_credentials',
        }),
      })
      token = ((await issued.json()) as { access_token: string }).access_token
    }
    const response = await fetch(`${base}${url}`, {
      method,
      headers: { authorization: `Bearer ${token}`, 'x-service-client': 'api', 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    })
    assert.ok(response.status < 300, `${method} ${url} → ${response.status} ${await response.clone().text()}`)
    return ((await response.json()) as { data: T }).data
  }
  return {
    base,
    dataDir,
    browser: opened,
    adminEmail,
    command,
    setPassword,
    api,
    close,
    async signedIn({ width = 390, email = adminEmail, password = CONSOLE_PASSWORD } = {}) {
      const context = await opened.newContext({ viewport: { width, height: 844 } })
      const page = await context.newPage()
      await page.goto(`${base}/console/sign-in`)
      await page.getByLabel('Email').fill(email)
      await page.getByLabel('Password').fill(password)
      await page.getByRole('button', { name: 'Sign in' }).click()
      await page.waitForURL(/\/console\/account/)
      return { context, page }
    },
  }
}

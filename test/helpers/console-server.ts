/**
 * The real `procurement serve` every browser journey starts from: on an embedded database in a DATA_DIR of its
 * own, with Chromium, a company and its administrator (made by `procurement tenants create`, or the demo company
 * the first start seeds); and the API over HTTP as an integration calls it (a token for an application's
 * credentials, bearer headers).
 */
import assert from 'node:assert/strict'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { after, before } from 'node:test'
import type { Browser, BrowserContext, Page } from 'playwright-core'
import { choosePassword, CONSOLE_PASSWORD, freePort, launchChromium, noChromium, signIn } from './browser.ts'
import { run, runToEnd, type Running } from './process.ts'

export interface Credentials {
  client_id: string
  client_secret: string
}

/** POST /oauth/token at `base` with an application's credentials, as an integration asks for a token: the answer. */
export const requestToken = (base: string, credentials: Credentials): Promise<Response> =>
  fetch(`${base}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ ...credentials, audience: 'procurement-api', grant_type: 'client_credentials' }),
  })

/** The headers that make a request an API call with `token`. */
export const bearer = (token: string): Record<string, string> => ({
  authorization: `Bearer ${token}`,
  'x-service-client': 'api',
})

/** What a `procurement … --json` command printed last, parsed. */
export const lastJson = <T>(output: string): T => JSON.parse(output.trim().split('\n').at(-1)!) as T

export type ConsoleServerOptions = (
  | {
      /** The company `procurement tenants create` makes before the first start (with no demo data). */
      domain: string
      /** The company's name (default: the domain). */
      name?: string
      /** Default: admin@<domain>.test */
      adminEmail?: string
      adminFirstName?: string
    }
  | {
      /** No company made: the demo company the first start seeds, and the application it prints the credentials of. */
      demo: true
    }
) & {
  /** Default: a free one; given when something must know the address first (an identity provider's redirect URI). */
  port?: number
  env?: Record<string, string>
  /** false: the administrator's password is left to the journey (through `setupUrl`); set at once otherwise. */
  setPassword?: boolean
}

/** The real `procurement serve` on an embedded database, with Chromium and a company whose administrator signs in. */
export interface ConsoleServer {
  /** `http://127.0.0.1:<port>` */
  base: string
  dataDir: string
  browser: Browser
  domain: string
  adminEmail: string
  /** The administrator's one-time set-password link, as `tenants create` (or the demo's first start) printed it. */
  setupUrl: string
  /** The demo application's credentials, as the first start printed them (`demo` only). */
  demoClient: Credentials | undefined
  /** The `procurement` command on this server's DATA_DIR (and environment), run to its end. */
  command(args: string[]): Promise<{ code: number | null; output: string }>
  /**
   * The command run with the server stopped, for one that opens the embedded database itself (`tenants create`,
   * `users reset-password`); the server is started again before this resolves.
   */
  offline(args: string[]): Promise<{ code: number | null; output: string }>
  /** A new browser context (390 px wide unless told), signed in through the sign-in page (the admin by default). */
  signedIn(options?: {
    width?: number
    email?: string
    password?: string
  }): Promise<{ context: BrowserContext; page: Page }>
  /** Sets a password through a one-time link (an invitation, a set-up link) in a new context, signed in. */
  setPassword(link: string, width?: number): Promise<{ context: BrowserContext; page: Page }>
  /** An API caller as the administrator (the demo application, or one `clients create` makes): JSON in, `data` out. */
  api<T = { id: number }>(method: string, url: string, body?: unknown): Promise<T>
  close(): Promise<void>
}

/**
 * What every browser journey starts from: the company made (unless `demo`), the server started on a free port
 * (or `port`), Chromium launched, and the administrator's password set through the link `tenants create` printed
 * (unless `setPassword: false`). `close()` (in `after`) stops both and removes the data directory.
 */
export async function startConsoleServer(options: ConsoleServerOptions): Promise<ConsoleServer> {
  const port = options.port ?? (await freePort())
  const base = `http://127.0.0.1:${port}`
  const dataDir = fs.mkdtempSync(
    path.join(os.tmpdir(), `procurement-browser-${'demo' in options ? 'demo' : options.domain}-`),
  )
  const env = {
    DATA_DIR: dataDir,
    ...('demo' in options ? {} : { DEMO_SEED: 'false' }),
    PORT: String(port),
    LOG_LEVEL: 'warn',
    ...options.env,
  }
  const command = (args: string[]) => runToEnd(args, env)
  let server: Running | undefined
  let browser: Browser | undefined
  const start = async () => {
    server = run(['serve'], env)
    // Generous: on a loaded machine (other suites beside this one) the first start can take minutes.
    await server.waitFor(/listening on http:\/\/\S+/, 180_000)
    return server
  }
  const stop = async () => {
    server?.child.kill('SIGTERM')
    await server?.exited
    server = undefined
  }
  const close = async () => {
    await browser?.close()
    await stop()
    fs.rmSync(dataDir, { recursive: true, force: true })
  }
  const setPassword = async (link: string, width = 390) => {
    const context = await browser!.newContext({ viewport: { width, height: 844 } })
    const page = await context.newPage()
    await choosePassword(page, link)
    return { context, page }
  }
  /** The company made and the server started: by `tenants create` before the first start, or the demo's. */
  const prepare = async (): Promise<{
    domain: string
    adminEmail: string
    setupUrl: string
    demoClient?: Credentials
  }> => {
    if ('demo' in options) {
      const started = await start()
      const [, client_id, client_secret] = await started.waitFor(/Client ID: (\S+)\nClient Secret: (\S+)/)
      const [, adminEmail, setupUrl] = await started.waitFor(/set a password for (\S+) within 24 hours at (\S+)/)
      return {
        domain: 'demo',
        adminEmail: adminEmail!,
        setupUrl: setupUrl!,
        demoClient: { client_id: client_id!, client_secret: client_secret! },
      }
    }
    const adminEmail = options.adminEmail ?? `admin@${options.domain}.test`
    const created = await command([
      ...['tenants', 'create', '--domain', options.domain, '--name', options.name ?? options.domain],
      ...['--admin-email', adminEmail],
      ...(options.adminFirstName === undefined ? [] : ['--admin-first-name', options.adminFirstName]),
      '--json',
    ])
    assert.equal(created.code, 0, created.output)
    await start()
    return { domain: options.domain, adminEmail, setupUrl: lastJson<{ setup_url: string }>(created.output).setup_url }
  }
  let company: Awaited<ReturnType<typeof prepare>>
  try {
    company = await prepare()
    browser = await launchChromium()
    if (options.setPassword !== false) await (await setPassword(company.setupUrl)).context.close()
  } catch (error) {
    await close()
    throw error
  }
  const opened = browser
  const { domain, adminEmail, setupUrl, demoClient } = company
  let token: string | undefined
  const api = async <T>(method: string, url: string, body?: unknown): Promise<T> => {
    if (token === undefined) {
      let credentials = demoClient
      if (credentials === undefined) {
        const client = await command(['clients', 'create', '--domain', domain, '--email', adminEmail, '--json'])
        assert.equal(client.code, 0, client.output)
        credentials = lastJson<Credentials>(client.output)
      }
      const issued = await requestToken(base, credentials)
      assert.equal(issued.status, 200, await issued.clone().text())
      token = ((await issued.json()) as { access_token: string }).access_token
    }
    const response = await fetch(`${base}${url}`, {
      method,
      headers: { ...bearer(token), 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    })
    assert.ok(response.status < 300, `${method} ${url} → ${response.status} ${await response.clone().text()}`)
    return ((await response.json()) as { data: T }).data
  }
  return {
    base,
    dataDir,
    browser: opened,
    domain,
    adminEmail,
    setupUrl,
    demoClient,
    command,
    async offline(args) {
      await stop()
      try {
        return await command(args)
      } finally {
        await start()
      }
    },
    setPassword,
    api,
    close,
    async signedIn({ width = 390, email = adminEmail, password = CONSOLE_PASSWORD } = {}) {
      const context = await opened.newContext({ viewport: { width, height: 844 } })
      const page = await context.newPage()
      await signIn(page, base, email, password)
      return { context, page }
    },
  }
}

/**
 * The console server of a test file: started before its tests (unless there is no Chromium, when they are
 * skipped), closed after them; its fields are there once its `before` hook has run. `options` may be a function,
 * awaited in that hook, for what must be ready before the server starts (an identity provider told its port);
 * node 20 runs a file's top-level `before` hooks at the same time, so another hook cannot do that.
 */
export function useConsoleServer(options: ConsoleServerOptions | (() => Promise<ConsoleServerOptions>)): ConsoleServer {
  const server = {} as ConsoleServer
  before(async () => {
    if (!noChromium)
      Object.assign(server, await startConsoleServer(typeof options === 'function' ? await options() : options))
  })
  after(async () => {
    if ('close' in server) await server.close()
  })
  return server
}

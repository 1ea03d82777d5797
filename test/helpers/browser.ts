/**
 * Debian's Chromium for the browser tests, launched headless the way this closed network needs it; axe-core and
 * the 390 px check; where screenshots go; and the console's set-password and sign-in pages as a person fills
 * them in. The server a journey starts from is in console-server.ts.
 */
import assert from 'node:assert/strict'
import fs from 'node:fs'
import net from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core'

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
          axe: {
            run(): Promise<{
              violations: { id: string; impact: string | null; help: string; nodes: { target: unknown[] }[] }[]
            }>
          }
        }
      ).axe.run()
      return result.violations
        .filter((v) => v.impact === 'serious' || v.impact === 'critical')
        .map((v) => `${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(' ')).join(', ')})`)
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

/** axe-core and the 390 px check on the page `page` is on. */
export async function checked(context: BrowserContext, page: Page): Promise<void> {
  await accessible(context, page.url())
  await fitsPhone(page)
}

let shots: string | undefined
/** The file for screenshot `name`: in docs/images with UPDATE_SCREENSHOTS=1 (the docs' pictures), else a temp dir. */
export function shotPath(name: string): string {
  shots ??=
    process.env.UPDATE_SCREENSHOTS === '1'
      ? path.join(root, 'docs/images')
      : fs.mkdtempSync(path.join(os.tmpdir(), 'shots-'))
  return path.join(shots, name)
}

export const CONSOLE_PASSWORD = 'a long and private passphrase'

/** The console's Home (`/console/`, or `/console/?welcome=1` after a password is set): where signing in lands. */
export const HOME = /\/console\/(\?welcome=1)?$/

/** Sets a password on the page of a one-time link (an invitation, a set-up link); Home follows. */
export async function choosePassword(page: Page, link: string, password = CONSOLE_PASSWORD): Promise<void> {
  await page.goto(link)
  await page.getByLabel('New password').fill(password)
  await page.getByLabel('Repeat the password').fill(password)
  await page.getByRole('button', { name: 'Set password' }).click()
  await page.waitForURL(HOME)
}

/** Signs in on the sign-in page of the console at `base`: Home follows. */
export async function signIn(page: Page, base: string, email: string, password = CONSOLE_PASSWORD): Promise<void> {
  await page.goto(`${base}/console/sign-in`)
  await page.getByLabel('Email').fill(email)
  await page.getByLabel('Password').fill(password)
  await page.getByRole('button', { name: 'Sign in' }).click()
  await page.waitForURL(HOME)
}

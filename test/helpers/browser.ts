/** Debian's Chromium for the browser tests, launched headless the way this closed network needs it. */
import fs from 'node:fs'
import { chromium, type Browser } from 'playwright-core'

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

/**
 * Console sign-in timing side channel: alternating sign-ins with an unknown e-mail and with a known e-mail
 * and a wrong password, one at a time against the real server (its own process, `node bin/procurement.cjs
 * serve`, on the embedded engine with a scratch DATA_DIR), and the median of the paired differences (must
 * stay under 1 ms; exit status 1 otherwise). The administrator gets a console password the way an operator
 * hands one out: `procurement tenants create` (run before the server starts, which then holds DATA_DIR)
 * prints a one-time set-password link, which is used over HTTP. Run alone on a quiet machine:
 * npm run bench -- sign-in   (BENCH_PAIRS=101)
 */
import { main, scratchDir } from './lib/cleanup.ts'
import { awaitQuiet } from './lib/machine.ts'
import { runCli, startServer } from './lib/process.ts'
import { median } from './lib/report.ts'
import { request } from './lib/request.ts'
import { BASE_DOMAIN, envNumber, serverEnv } from './lib/settings.ts'
import { storeEnv, type Store } from './lib/store.ts'

const pairs = envNumber('BENCH_PAIRS', 101)
const DOMAIN = 'bench'
const ADMIN = 'admin@bench.test'
const PASSWORD = 'the right password'

await main(async () => {
  const store: Store = { engine: 'pglite', dataDir: scratchDir('sign-in') }
  const env = serverEnv({
    ...storeEnv(store),
    BASE_DOMAIN,
    DEMO_SEED: 'false',
    RATE_LIMIT_PER_MINUTE: process.env.BENCH_RATE_LIMIT ?? '1000000000',
    // The sign-in brake counts failures like the token endpoint's: raised, so no attempt is refused.
    TOKEN_FAILURES_PER_CLIENT: '1000000000',
    TOKEN_FAILURES_PER_ADDRESS: '1000000000',
  })
  // The first command builds the database in DATA_DIR (the server's own start-up code) and exits, so the
  // server can take the directory.
  const created = JSON.parse(
    await runCli(['tenants', 'create', '--domain', DOMAIN, '--name', 'Bench', '--admin-email', ADMIN, '--json'], env),
  ) as { setup_url: string }
  const server = await startServer(env)
  const host = `${DOMAIN}.${BASE_DOMAIN}`
  const form = (fields: Record<string, string>) => ({
    method: 'POST',
    headers: { host, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields).toString(),
  })
  const setup = await request(server.base, {
    path: new URL(created.setup_url).pathname,
    ...form({ password: PASSWORD, confirm: PASSWORD }),
  })
  if (setup.status !== 303) throw new Error(`set-password link: expected 303, got ${setup.status}: ${setup.body}`)
  // The known account really has this password: the right one signs in.
  const right = await request(server.base, {
    path: '/console/sign-in',
    ...form({ email: ADMIN, password: PASSWORD }),
  })
  if (right.status !== 303) throw new Error(`sign-in with the right password: expected 303, got ${right.status}`)

  const time = async (email: string) => {
    const r = await request(server.base, {
      path: '/console/sign-in',
      ...form({ email, password: 'a wrong password' }),
    })
    if (r.status !== 401) throw new Error(`expected 401, got ${r.status}: ${r.body.slice(0, 400)}`)
    return r.ms
  }

  await time('warm@bench.test')
  await awaitQuiet()
  const wrong: number[] = []
  const unknown: number[] = []
  for (let i = 0; i < pairs; i++) {
    // Alternating order, so whatever else the machine does weighs on both alike.
    if (i % 2 === 0) {
      wrong.push(await time(ADMIN))
      unknown.push(await time(`ghost${i}@bench.test`))
    } else {
      unknown.push(await time(`ghost${i}@bench.test`))
      wrong.push(await time(ADMIN))
    }
  }
  await server.stop()
  const difference = median(wrong.map((ms, i) => ms - unknown[i]!))
  console.log(
    `sign-in: median of ${pairs} paired differences (wrong password − unknown e-mail) ${difference.toFixed(3)} ms` +
      ` (medians: wrong password ${median(wrong).toFixed(3)} ms, unknown e-mail ${median(unknown).toFixed(3)} ms)`,
  )
  console.log(
    Math.abs(difference) < 1 ? 'timing: OK (difference under 1 ms)' : 'timing: FAIL (difference of 1 ms or more)',
  )
  if (Math.abs(difference) >= 1) process.exitCode = 1
})

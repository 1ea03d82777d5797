/**
 * Syncs every vendor of your tenant to a CSV file, with a progress line — the SDK's pagination, token
 * caching and retries at work. It imports the SDK as a package (`npm install procurement-sdk-<version>.tgz`, see
 * docs/sdk.md); inside this repository tsconfig.json maps the name to sdk/src. Against `npm start`'s demo tenant:
 *
 *   PROCUREMENT_URL=http://127.0.0.1:3000 CLIENT_ID=pc_… CLIENT_SECRET=… npx tsx examples/sync-vendors.ts vendors.csv
 *
 * Settings (environment): PROCUREMENT_URL (default http://127.0.0.1:3000), CLIENT_ID and CLIENT_SECRET
 * (required), AUDIENCE (default procurement-api). Argument: the CSV file to write (default vendors.csv).
 */
import fs from 'node:fs'
import { ProcurementClient } from 'procurement-sdk'

const [file = 'vendors.csv'] = process.argv.slice(2)
const {
  PROCUREMENT_URL = 'http://127.0.0.1:3000',
  CLIENT_ID,
  CLIENT_SECRET,
  AUDIENCE = 'procurement-api',
} = process.env
if (CLIENT_ID === undefined || CLIENT_SECRET === undefined) {
  console.error(
    'Set CLIENT_ID and CLIENT_SECRET (npm start prints the demo application’s) and, if needed, PROCUREMENT_URL.',
  )
  process.exit(2)
}

const client = new ProcurementClient({
  baseUrl: PROCUREMENT_URL,
  clientId: CLIENT_ID,
  clientSecret: CLIENT_SECRET,
  audience: AUDIENCE,
})
const columns = ['id', 'name', 'active', 'external_id', 'city', 'country', 'email', 'dateModified'] as const
const cell = (value: string | number | boolean | string[] | null) => {
  const text = Array.isArray(value) ? value.join(' ') : value === null ? '' : String(value)
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text
}

const { pagination } = await client.vendors.list({ page_size: 1 })
const out = fs.createWriteStream(`${file}.partial`)
out.write(`${columns.join(',')}\r\n`)
let written = 0
for await (const vendor of client.vendors.iterate()) {
  out.write(`${columns.map((c) => cell(vendor[c])).join(',')}\r\n`)
  written++
  if (written % 100 === 0 || written === pagination.count)
    process.stderr.write(`\rsynced ${written} of ${pagination.count} vendors`)
}
await new Promise<void>((resolve, reject) => out.end((error?: Error | null) => (error ? reject(error) : resolve())))
fs.renameSync(`${file}.partial`, file)
process.stderr.write(`\rsynced ${written} of ${pagination.count} vendors → ${file}\n`)

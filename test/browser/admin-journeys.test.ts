/**
 * The administrator's journeys in a real browser (Debian's Chromium driven by playwright-core) against the real
 * `procurement` command on an embedded database, one server for the file: create a vendor and edit it; import 50
 * vendors from a CSV file with one bad row (the line named, nothing imported), then the fixed file (50 imported);
 * create a location with two other shipping addresses, remove one, and fix the headquarters' placeholder
 * address; create an application and reload (still one). axe-core finds no serious or critical violation on
 * any page visited, and at 390 px nothing scrolls sideways.
 * Screenshots for the docs: UPDATE_SCREENSHOTS=1 node --import tsx --test test/browser/admin-journeys.test.ts
 */
import assert from 'node:assert/strict'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { test } from 'node:test'
import type { Page } from 'playwright-core'
import { checked, fitsPhone, noChromium, shotPath } from '../helpers/browser.ts'
import { useConsoleServer } from '../helpers/console-server.ts'

const skip = noChromium
const server = useConsoleServer({ domain: 'journeys', name: 'Journeys', adminEmail: 'admin@journeys.test' })

/** How many vendors a search finds ("… · N in all"; none when the list is empty). */
async function vendorCount(page: Page, search: string): Promise<number> {
  await page.goto(`${server.base}/console/vendors?search=${encodeURIComponent(search)}`)
  const found = /(\d+) in all/.exec(await page.content())
  return found === null ? 0 : Number(found[1])
}

test('create a vendor, edit it, see the change on its page', { skip, timeout: 300_000 }, async () => {
  const { context, page } = await server.signedIn()
  await page.goto(`${server.base}/console/vendors`)
  await checked(context, page)
  await page.getByRole('link', { name: 'New vendor' }).first().click()
  await page.waitForURL(/\/console\/vendors\/new$/)
  await checked(context, page)
  await page.getByLabel('Name', { exact: true }).fill('Northwind Paper')
  await page.getByLabel('External ID').fill('NW-1')
  await page.getByLabel('E-mail addresses').fill('orders@northwind.test')
  await page.getByLabel(/^Phone\b/).fill('+44 113 496 0000')
  await page.getByLabel('City').fill('Leeds')
  await page.getByRole('button', { name: /Create|Save/ }).click()
  await page.waitForURL(/\/console\/vendors\/\d+\?done=created/)
  const vendorUrl = page.url().replace(/\?.*$/, '')
  assert.match(await page.content(), /Northwind Paper/)
  assert.match(await page.content(), /NW-1/)
  await checked(context, page)

  await page.getByRole('link', { name: 'Edit', exact: true }).click()
  await page.waitForURL(/\/console\/vendors\/\d+\/edit$/)
  await checked(context, page)
  assert.equal(await page.getByLabel('Name', { exact: true }).inputValue(), 'Northwind Paper')
  await page.getByLabel('Name', { exact: true }).fill('Northwind Paper & Card')
  await page.getByLabel('City').fill('York')
  await page.getByRole('button', { name: /Save/ }).click()
  await page.waitForURL(/\/console\/vendors\/\d+\?done=saved/)
  assert.equal(page.url().replace(/\?.*$/, ''), vendorUrl)
  const shown = await page.content()
  assert.match(shown, /Northwind Paper &amp; Card/)
  assert.match(shown, /York/)
  assert.doesNotMatch(shown, /Leeds/)
  await page.goto(vendorUrl)
  await checked(context, page)
  await page.screenshot({ path: shotPath('console-vendor-390.png'), fullPage: true })
  await context.close()
})

test(
  'import 50 vendors from CSV: one bad row names its line and imports nothing; fixed, all 50',
  {
    skip,
    timeout: 300_000,
  },
  async () => {
    const { context, page } = await server.signedIn()
    const before = await vendorCount(page, 'Imported')
    assert.equal(before, 0)
    await page.goto(`${server.base}/console/vendors`)
    await page.getByRole('link', { name: 'Import from CSV' }).click()
    await page.waitForURL(/\/console\/vendors\/import$/)
    await checked(context, page)

    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'csv-'))
    const csv = (bad: boolean) =>
      [
        'name,external_id,city,email',
        ...Array.from(
          { length: 50 },
          (_, i) => `Imported ${i + 1},IMP-${i + 1},Leeds,${bad && i === 16 ? 'not-an-address' : `v${i + 1}@imp.test`}`,
        ),
      ].join('\n')
    const badFile = path.join(dir, 'vendors-bad.csv')
    const goodFile = path.join(dir, 'vendors.csv')
    fs.writeFileSync(badFile, csv(true))
    fs.writeFileSync(goodFile, csv(false))
    /** Choose `file` in the picker and wait for the page's script to copy it into the "CSV text" box. */
    const choose = async (file: string, marker: string) => {
      await page.getByLabel('CSV file').setInputFiles(file)
      await page.waitForFunction(
        (m) =>
          (
            (
              globalThis as unknown as { document: { getElementById(id: string): { value: string } | null } }
            ).document.getElementById('f-csv')?.value ?? ''
          ).includes(m),
        marker,
      )
    }

    await choose(badFile, 'not-an-address')
    await page.getByRole('button', { name: 'Preview' }).click()
    await page.getByText('1 of 50 rows have problems').waitFor()
    // Row 17 of the data is line 18 of the file (the header is line 1).
    const refused = page.locator('tr.refused')
    assert.equal(await refused.count(), 1)
    const cells = await refused.locator('td').allTextContents()
    assert.equal(cells[0]!.trim(), '18')
    assert.match(cells.at(-1)!, /e-mail|email|address/i)
    assert.equal(await page.getByRole('button', { name: /^Import/ }).count(), 0, 'no Import button')
    await checked(context, page)
    assert.equal(await vendorCount(page, 'Imported'), before, 'nothing imported')

    await page.goto(`${server.base}/console/vendors/import`)
    await choose(goodFile, 'v17@imp.test')
    await page.getByRole('button', { name: 'Preview' }).click()
    await page.getByText('50 vendors are ready to import').waitFor()
    await fitsPhone(page)
    await page.screenshot({ path: shotPath('console-vendor-import-390.png'), fullPage: true })
    await page.getByRole('button', { name: 'Import 50 vendors' }).click()
    await page.waitForURL(/\/console\/vendors\?done=imported/)
    await checked(context, page)
    assert.equal(await vendorCount(page, 'Imported'), 50)
    assert.match(await page.content(), /50 in all/)
    await context.close()
  },
)

test(
  'create a location with two other shipping addresses, remove one, fix the headquarters address',
  {
    skip,
    timeout: 300_000,
  },
  async () => {
    const { context, page } = await server.signedIn()
    /** Fill the address fieldset called `legend`. */
    const address = async (legend: string, name: string, street: string, city: string) => {
      const group = page.getByRole('group', { name: legend, exact: true })
      await group.getByLabel('Address name').fill(name)
      await group.getByLabel('Street address').fill(street)
      await group.getByLabel('City').fill(city)
      await group.getByLabel('Postal code').fill('LS1 1AA')
      await group.getByLabel('Country').fill('United Kingdom')
    }

    await page.goto(`${server.base}/console/locations`)
    await checked(context, page)
    await page.getByRole('link', { name: 'New location' }).click()
    await page.waitForURL(/\/console\/locations\/new$/)
    await checked(context, page)
    await page.getByLabel('Name', { exact: true }).fill('Leeds warehouse')
    await page.getByLabel('Phone', { exact: true }).fill('+44 113 496 0001')
    await address('Billing address', 'Leeds billing', '1 Wellington Street', 'Leeds')
    await address('Shipping address', 'Leeds dock', '2 Wellington Street', 'Leeds')
    await page.getByRole('button', { name: 'Add another shipping address' }).click()
    await page.getByRole('group', { name: 'Other shipping address 1' }).waitFor()
    assert.equal(await page.getByLabel('Name', { exact: true }).inputValue(), 'Leeds warehouse', 'values kept')
    await page.getByRole('button', { name: 'Add another shipping address' }).click()
    await page.getByRole('group', { name: 'Other shipping address 2' }).waitFor()
    await address('Other shipping address 1', 'Leeds yard', '3 Canal Wharf', 'Leeds')
    await address('Other shipping address 2', 'Bradford depot', '4 Forster Square', 'Bradford')
    await checked(context, page)
    await fitsPhone(page)
    await page.screenshot({ path: shotPath('console-location-390.png'), fullPage: true })
    await page.getByRole('button', { name: 'Save location' }).click()
    await page.waitForURL(/\/console\/locations\/\d+\?done=created/)
    const locationUrl = page.url().replace(/\?.*$/, '')
    let shown = await page.content()
    assert.match(shown, /Leeds yard: 3 Canal Wharf, Leeds/)
    assert.match(shown, /Bradford depot: 4 Forster Square, Bradford/)
    assert.equal(await page.getByText('Other shipping', { exact: true }).count(), 2)
    await checked(context, page)

    await page.getByRole('link', { name: 'Edit', exact: true }).click()
    await page.waitForURL(/\/edit$/)
    await checked(context, page)
    const bradford = page.getByRole('group', { name: 'Other shipping address 2' })
    assert.equal(await bradford.getByLabel('Address name').inputValue(), 'Bradford depot')
    await bradford.getByLabel('Remove this address').check()
    await page.getByRole('button', { name: 'Save location' }).click()
    await page.waitForURL(/\/console\/locations\/\d+\?done=saved/)
    assert.equal(page.url().replace(/\?.*$/, ''), locationUrl)
    shown = await page.content()
    assert.match(shown, /Leeds yard: 3 Canal Wharf, Leeds/)
    assert.doesNotMatch(shown, /Bradford/)
    assert.equal(await page.getByText('Other shipping', { exact: true }).count(), 1)

    // The headquarters `tenants create` wrote, with its placeholder address.
    await page.goto(`${server.base}/console/locations`)
    await page.getByRole('link', { name: 'Headquarters', exact: true }).click()
    await page.waitForURL(/\/console\/locations\/\d+$/)
    assert.match(await page.content(), /Not set yet/)
    await checked(context, page)
    await page.getByRole('link', { name: 'Edit', exact: true }).click()
    await page.waitForURL(/\/edit$/)
    await checked(context, page)
    await page.getByLabel('Phone', { exact: true }).fill('+44 20 7946 0000')
    await address('Billing address', 'Head office', '10 King Street', 'London')
    await address('Shipping address', 'Head office goods in', '12 King Street', 'London')
    await page.getByRole('button', { name: 'Save location' }).click()
    await page.waitForURL(/\/console\/locations\/\d+\?done=saved/)
    shown = await page.content()
    assert.match(shown, /Head office: 10 King Street, London, LS1 1AA, United Kingdom/)
    assert.match(shown, /Head office goods in:\s+12 King Street, London/)
    assert.doesNotMatch(shown, /Not set/)
    assert.match(shown, /\+44 20 7946 0000/)
    await checked(context, page)
    await context.close()
  },
)

test('create an application, reload the page: still exactly one application', { skip, timeout: 300_000 }, async () => {
  const { context, page } = await server.signedIn()
  await page.goto(`${server.base}/console/settings/applications`)
  await checked(context, page)
  const rows = page.getByRole('region', { name: 'Applications' }).locator('tbody tr')
  assert.equal(await rows.count(), 0)
  await page.getByLabel('Description').fill('Nightly ERP export')
  await page.getByRole('button', { name: 'Create application' }).click()
  await page.waitForURL(/\/console\/settings\/applications$/)
  assert.equal(await rows.count(), 1)
  await checked(context, page)
  await page.reload()
  await page.waitForLoadState('load')
  assert.equal(await rows.count(), 1, 'a reload does not create a second application')
  assert.match((await rows.first().textContent()) ?? '', /Nightly ERP export/)
  await context.close()
})

/** Look-up lists: currencies, legal entities, departments, roles and the vendor look-ups, each scoped to the caller's tenant. */
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { sampleTenant, signedIn, useTestApp } from './helpers/app.ts'

const ctx = useTestApp()

type Api = Awaited<ReturnType<typeof signedIn>>['api']

interface Page {
  metadata: {
    pagination: {
      count: number
      next: string | null
      previous: string | null
      page_size: number
      num_pages: number
      current_page: number
    }
  }
  data: Record<string, unknown>[]
}

async function list(api: Api, url: string): Promise<Page> {
  const response = await api({ method: 'GET', url })
  assert.equal(response.statusCode, 200, response.body)
  return response.json<Page>()
}
const names = (body: Page) => body.data.map((item) => item.name as string)
const ids = (body: Page) => body.data.map((item) => item.id as number)

type Table =
  | 'currencies'
  | 'legal_entities'
  | 'departments'
  | 'roles'
  | 'payment_terms'
  | 'shipping_terms'
  | 'payment_methods'
  | 'shipping_methods'
const idsOf = async (table: Table, tenantId: number) =>
  (await ctx.database.db.selectFrom(table).select('id').where('tenant_id', '=', tenantId).orderBy('id').execute()).map(
    (r) => r.id,
  )

/** What every look-up list shares: the sample tenant's row count, CSV columns and a field it cannot be ordered by. */
const ENDPOINTS: { url: string; table: Table; count: number; columns: string; badOrder: string }[] = [
  {
    url: '/api/v2/currencies/',
    table: 'currencies',
    count: 3,
    columns: 'id,name,description,rate,base,active',
    badOrder: 'rate',
  },
  {
    url: '/api/v3/legal-entities/',
    table: 'legal_entities',
    count: 1,
    columns: 'id,uuid,name,active',
    badOrder: 'uuid',
  },
  {
    url: '/api/v3/departments/',
    table: 'departments',
    count: 9,
    columns: 'id,name,external_id,active,punchout_email,branch',
    badOrder: 'external_id',
  },
  { url: '/api/v3/roles/', table: 'roles', count: 5, columns: 'id,name,type,tier,permissions', badOrder: 'type' },
  {
    url: '/api/v3/payment-terms/',
    table: 'payment_terms',
    count: 1,
    columns: 'id,name,description,active',
    badOrder: 'description',
  },
  {
    url: '/api/v3/shipping-terms/',
    table: 'shipping_terms',
    count: 1,
    columns: 'id,name,description,active',
    badOrder: 'description',
  },
  {
    url: '/api/v3/payment-methods/',
    table: 'payment_methods',
    count: 1,
    columns: 'id,name,description,active',
    badOrder: 'description',
  },
  {
    url: '/api/v3/shipping-methods/',
    table: 'shipping_methods',
    count: 1,
    columns: 'id,name,description,active',
    badOrder: 'description',
  },
]

for (const endpoint of ENDPOINTS) {
  describe(`${endpoint.url} (common behaviour)`, () => {
    test('lists only the caller’s tenant, in id order by default', async () => {
      const { api, tenant } = await signedIn(ctx)
      const other = await sampleTenant(ctx)
      const body = await list(api, `${endpoint.url}?page_size=100`)
      assert.equal(body.metadata.pagination.count, endpoint.count)
      assert.deepEqual(ids(body), await idsOf(endpoint.table, tenant.tenantId))
      const foreign = new Set(await idsOf(endpoint.table, other.tenantId))
      assert.ok(ids(body).every((id) => !foreign.has(id)))
    })

    test('an unknown order_by or filter is 400; a page past the last is 404', async () => {
      const { api } = await signedIn(ctx)
      for (const query of [`order_by=${endpoint.badOrder}`, 'order_by=nope', 'colour=red']) {
        const response = await api({ method: 'GET', url: `${endpoint.url}?${query}` })
        assert.equal(response.statusCode, 400, query)
        assert.match(String(response.headers['content-type']), /^application\/problem\+json/)
      }
      assert.equal((await api({ method: 'GET', url: `${endpoint.url}?page=99` })).statusCode, 404)
    })

    test('pagination metadata and next/previous links', async () => {
      const { api } = await signedIn(ctx)
      const first = await list(api, `${endpoint.url}?page_size=1`)
      assert.equal(first.data.length, 1)
      assert.equal(first.metadata.pagination.count, endpoint.count)
      assert.equal(first.metadata.pagination.num_pages, endpoint.count)
      assert.equal(first.metadata.pagination.page_size, 1)
      assert.equal(first.metadata.pagination.current_page, 1)
      assert.equal(first.metadata.pagination.previous, null)
      if (endpoint.count === 1) {
        assert.equal(first.metadata.pagination.next, null)
        return
      }
      const next = new URL(first.metadata.pagination.next!, 'http://localhost')
      assert.equal(next.searchParams.get('page'), '2')
      assert.equal(next.searchParams.get('page_size'), '1')
      const second = await list(api, `${next.pathname}${next.search}`)
      assert.equal(second.metadata.pagination.current_page, 2)
      assert.equal(new URL(second.metadata.pagination.previous!, 'http://localhost').searchParams.get('page'), '1')
      assert.notDeepEqual(ids(second), ids(first))
    })

    test('format=csv: text/csv with a header row and one line per item', async () => {
      const { api } = await signedIn(ctx)
      const response = await api({ method: 'GET', url: `${endpoint.url}?format=csv&page_size=100` })
      assert.equal(response.statusCode, 200)
      assert.match(String(response.headers['content-type']), /^text\/csv/)
      assert.equal(response.headers['x-total-count'], String(endpoint.count))
      const lines = response.body.trimEnd().split('\r\n')
      assert.equal(lines[0], endpoint.columns)
      assert.equal(lines.length, endpoint.count + 1)
    })
  })
}

describe('GET /api/v2/currencies/', () => {
  test('items: decimal rate as a string, the base currency marked', async () => {
    const { api, tenant } = await signedIn(ctx)
    const body = await list(api, '/api/v2/currencies/')
    const [usd, cad, eur] = await idsOf('currencies', tenant.tenantId)
    assert.deepEqual(body.data, [
      { id: usd, name: 'USD', description: 'US Dollar', rate: '1.000000', base: true, active: true },
      { id: cad, name: 'CAD', description: 'Canadian Dollar', rate: '1.350000', base: false, active: true },
      { id: eur, name: 'EUR', description: 'Euro', rate: '0.920000', base: false, active: true },
    ])
  })

  test('filters: active, base, exact name', async () => {
    const { api, tenant } = await signedIn(ctx)
    await ctx.database.db
      .updateTable('currencies')
      .set({ active: false })
      .where('tenant_id', '=', tenant.tenantId)
      .where('name', '=', 'EUR')
      .execute()
    assert.deepEqual(names(await list(api, '/api/v2/currencies/?active=false')), ['EUR'])
    assert.deepEqual(names(await list(api, '/api/v2/currencies/?active=true')), ['USD', 'CAD'])
    assert.deepEqual(names(await list(api, '/api/v2/currencies/?base=true')), ['USD'])
    assert.deepEqual(names(await list(api, '/api/v2/currencies/?base=false&active=true')), ['CAD'])
    assert.deepEqual(names(await list(api, '/api/v2/currencies/?name=CAD')), ['CAD'])
    const none = await list(api, '/api/v2/currencies/?name=CA')
    assert.deepEqual(none.data, [])
    assert.equal(none.metadata.pagination.count, 0)
  })

  test('search: case-insensitive on name and description; % is literal', async () => {
    const { api } = await signedIn(ctx)
    assert.deepEqual(names(await list(api, '/api/v2/currencies/?search=dollar')), ['USD', 'CAD'])
    assert.deepEqual(names(await list(api, '/api/v2/currencies/?search=eur')), ['EUR'])
    assert.deepEqual(names(await list(api, '/api/v2/currencies/?search=%25')), [])
  })

  test('order_by name and -name', async () => {
    const { api } = await signedIn(ctx)
    assert.deepEqual(names(await list(api, '/api/v2/currencies/?order_by=name')), ['CAD', 'EUR', 'USD'])
    assert.deepEqual(names(await list(api, '/api/v2/currencies/?order_by=-name')), ['USD', 'EUR', 'CAD'])
    assert.deepEqual(names(await list(api, '/api/v2/currencies/?order_by=-id')), ['EUR', 'CAD', 'USD'])
  })

  test('a currency added to another tenant never shows up', async () => {
    const { api } = await signedIn(ctx)
    const other = await sampleTenant(ctx)
    await ctx.database.db
      .insertInto('currencies')
      .values({ tenant_id: other.tenantId, name: 'GBP', description: 'Pound', rate: '0.8' })
      .execute()
    assert.deepEqual((await list(api, '/api/v2/currencies/?search=GBP')).data, [])
  })
})

describe('GET /api/v3/legal-entities/', () => {
  test('items, active filter, search and order_by name', async () => {
    const { api, tenant } = await signedIn(ctx)
    const [demo] = await idsOf('legal_entities', tenant.tenantId)
    const body = await list(api, '/api/v3/legal-entities/')
    assert.equal(body.data.length, 1)
    assert.deepEqual(
      { ...body.data[0], uuid: undefined },
      { id: demo, uuid: undefined, name: 'Demo Company Inc.', active: true },
    )
    assert.match(String(body.data[0]!.uuid), /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/)

    await ctx.database.db
      .insertInto('legal_entities')
      .values({ tenant_id: tenant.tenantId, name: 'Acme Holdings', active: false })
      .execute()
    assert.deepEqual(names(await list(api, '/api/v3/legal-entities/?active=false')), ['Acme Holdings'])
    assert.deepEqual(names(await list(api, '/api/v3/legal-entities/?active=true')), ['Demo Company Inc.'])
    assert.deepEqual(names(await list(api, '/api/v3/legal-entities/?search=ACME')), ['Acme Holdings'])
    assert.deepEqual(names(await list(api, '/api/v3/legal-entities/')), ['Demo Company Inc.', 'Acme Holdings'])
    assert.deepEqual(names(await list(api, '/api/v3/legal-entities/?order_by=name')), [
      'Acme Holdings',
      'Demo Company Inc.',
    ])
    assert.deepEqual(names(await list(api, '/api/v3/legal-entities/?order_by=-name')), [
      'Demo Company Inc.',
      'Acme Holdings',
    ])
  })
})

describe('GET /api/v3/departments/', () => {
  const locationsOf = async (tenantId: number) =>
    await ctx.database.db
      .selectFrom('locations')
      .select(['id', 'name'])
      .where('tenant_id', '=', tenantId)
      .orderBy('id')
      .execute()

  test('items carry their location as branch; only the first location is the headquarter', async () => {
    const { api, tenant } = await signedIn(ctx)
    const [head, east, berlin] = await locationsOf(tenant.tenantId)
    const body = await list(api, '/api/v3/departments/')
    assert.equal(body.data.length, 9)
    const [first] = await idsOf('departments', tenant.tenantId)
    assert.deepEqual(body.data[0], {
      id: first,
      name: 'Operations',
      external_id: 'OPE-1',
      active: true,
      punchout_email: '',
      branch: { id: head!.id, name: 'Head Office', headquarter: true },
    })
    const branches = body.data.map((d) => d.branch)
    assert.deepEqual(branches, [
      ...Array(3).fill({ id: head!.id, name: head!.name, headquarter: true }),
      ...Array(3).fill({ id: east!.id, name: east!.name, headquarter: false }),
      ...Array(3).fill({ id: berlin!.id, name: berlin!.name, headquarter: false }),
    ])
  })

  test('filters: location and active; another tenant’s location matches nothing', async () => {
    const { api, tenant } = await signedIn(ctx)
    const other = await sampleTenant(ctx)
    const [, east] = await locationsOf(tenant.tenantId)
    const [foreign] = await locationsOf(other.tenantId)
    const atEast = await list(api, `/api/v3/departments/?location=${east!.id}`)
    assert.deepEqual(names(atEast), ['Operations', 'Finance', 'IT'])
    assert.ok(atEast.data.every((d) => (d.branch as { id: number }).id === east!.id))
    assert.deepEqual((await list(api, `/api/v3/departments/?location=${foreign!.id}`)).data, [])
    assert.equal((await api({ method: 'GET', url: '/api/v3/departments/?location=abc' })).statusCode, 400)

    const it = atEast.data[2]!.id as number
    await ctx.database.db.updateTable('departments').set({ active: false }).where('id', '=', it).execute()
    assert.deepEqual(ids(await list(api, '/api/v3/departments/?active=false')), [it])
    assert.equal((await list(api, '/api/v3/departments/?active=true')).metadata.pagination.count, 8)
    assert.deepEqual(names(await list(api, `/api/v3/departments/?location=${east!.id}&active=true`)), [
      'Operations',
      'Finance',
    ])
  })

  test('search on name; order_by name breaks ties by id', async () => {
    const { api, tenant } = await signedIn(ctx)
    const all = await idsOf('departments', tenant.tenantId)
    const finance = await list(api, '/api/v3/departments/?search=fin')
    assert.deepEqual(names(finance), ['Finance', 'Finance', 'Finance'])
    const byName = await list(api, '/api/v3/departments/?order_by=name')
    assert.deepEqual(names(byName), [
      'Finance',
      'Finance',
      'Finance',
      'IT',
      'IT',
      'IT',
      'Operations',
      'Operations',
      'Operations',
    ])
    // Seeded per location as Operations, Finance, IT: ids at positions 1, 4, 7 are the Finances, and so on.
    const pick = (positions: number[]) => positions.map((p) => all[p])
    assert.deepEqual(ids(byName), pick([1, 4, 7, 2, 5, 8, 0, 3, 6]))
    assert.deepEqual(ids(await list(api, '/api/v3/departments/?order_by=-name')), pick([6, 3, 0, 8, 5, 2, 7, 4, 1]))
  })
})

describe('GET /api/v3/roles/', () => {
  test('items with their permission keys, sorted', async () => {
    const { api, tenant } = await signedIn(ctx)
    const [admin, buyer, requester, approver, payables] = await idsOf('roles', tenant.tenantId)
    const body = await list(api, '/api/v3/roles/')
    assert.deepEqual(body.data, [
      {
        id: admin,
        name: 'Administrator',
        type: 4,
        tier: 'Pro',
        permissions: [
          'nav_approval',
          'nav_manage',
          'nav_purchase',
          'nav_receive',
          'nav_report',
          'nav_request',
          'nav_setting',
          'superuser',
        ],
      },
      { id: buyer, name: 'Buyer', type: 2, tier: 'Basic', permissions: ['nav_purchase', 'nav_receive', 'nav_request'] },
      { id: requester, name: 'Requester', type: 0, tier: 'Basic', permissions: ['nav_request'] },
      { id: approver, name: 'Approver', type: 1, tier: 'Basic', permissions: ['nav_approval', 'nav_request'] },
      { id: payables, name: 'Accounts Payable', type: 8, tier: 'Basic', permissions: ['accounts_payable'] },
    ])
  })

  test('a role without permissions lists an empty array; search and order_by name', async () => {
    const { api, tenant } = await signedIn(ctx)
    await ctx.database.db.insertInto('roles').values({ tenant_id: tenant.tenantId, name: 'Viewer', type: 1 }).execute()
    const viewer = await list(api, '/api/v3/roles/?search=VIEW')
    assert.deepEqual(
      viewer.data.map((r) => [r.name, r.permissions, r.tier]),
      [['Viewer', [], 'Basic']],
    )
    assert.deepEqual(names(await list(api, '/api/v3/roles/?search=er')), ['Buyer', 'Requester', 'Approver', 'Viewer'])
    assert.deepEqual(names(await list(api, '/api/v3/roles/?order_by=-name')), [
      'Viewer',
      'Requester',
      'Buyer',
      'Approver',
      'Administrator',
      'Accounts Payable',
    ])
    assert.deepEqual(names(await list(api, '/api/v3/roles/?order_by=name&page_size=2&page=2')), ['Approver', 'Buyer'])
  })
})

describe('vendor look-ups: payment/shipping terms and methods', () => {
  const KINDS = [
    { url: '/api/v3/payment-terms/', table: 'payment_terms', ref: 'payment_term_ref' },
    { url: '/api/v3/shipping-terms/', table: 'shipping_terms', ref: 'shipping_term_ref' },
    { url: '/api/v3/payment-methods/', table: 'payment_methods', ref: 'payment_method_ref' },
    { url: '/api/v3/shipping-methods/', table: 'shipping_methods', ref: 'shipping_method_ref' },
  ] as const

  test('a listed id is what a vendor refers to, and a vendor can be created with it', async () => {
    const { api } = await signedIn(ctx)
    const vendor = (await list(api, '/api/v3/vendors/?page_size=1')).data[0]!
    const body: Record<string, number> = {}
    for (const kind of KINDS) {
      const items = (await list(api, kind.url)).data
      const ref = vendor[kind.ref] as { id: number; name: string }
      assert.deepEqual(
        items.map((i) => i.id),
        [ref.id],
        kind.url,
      )
      assert.equal(items[0]!.name, ref.name)
      body[kind.ref] = ref.id
    }
    const created = await api({ method: 'POST', url: '/api/v3/vendors/', payload: { name: 'Looked-up Co', ...body } })
    assert.equal(created.statusCode, 201, created.body)
    for (const kind of KINDS) assert.equal(created.json().data[kind.ref].id, body[kind.ref])
  })

  test('filter active, search on name and description (% literal), order_by -name', async () => {
    const { api, tenant } = await signedIn(ctx)
    for (const kind of KINDS) {
      await ctx.database.db
        .insertInto(kind.table)
        .values([
          { tenant_id: tenant.tenantId, name: 'Zeta 100%', description: 'percent' },
          { tenant_id: tenant.tenantId, name: 'Alpha', description: 'retired one', active: false },
        ])
        .execute()
      assert.deepEqual(names(await list(api, `${kind.url}?active=false`)), ['Alpha'])
      assert.deepEqual(names(await list(api, `${kind.url}?search=0%25`)), ['Zeta 100%'])
      assert.deepEqual(names(await list(api, `${kind.url}?search=RETIRED`)), ['Alpha'])
      const ordered = names(await list(api, `${kind.url}?order_by=-name`))
      assert.deepEqual(ordered, [...ordered].sort().reverse())
      assert.equal((await api({ method: 'GET', url: `${kind.url}?active=maybe` })).statusCode, 400)
    }
  })
})

/**
 * Bills (accounts payable): enter a vendor's bill against an order, submit it (matched against the order and
 * its receipts), pay or cancel it. Every POST carries an Idempotency-Key (the transport makes one unless you
 * pass yours).
 */
import type { components, operations } from './generated/openapi.ts'
import type { Transport } from './http.ts'

type Schemas = components['schemas']
export type Bill = Schemas['Bill']
export type BillInput = Schemas['BillInput']
export type BillLine = Schemas['BillLine']
export type BillPayInput = NonNullable<Schemas['BillPayInput']>
type BillQuery = operations['listBills'] extends { parameters: { query?: infer Q } } ? NonNullable<Q> : never
interface Options {
  idempotencyKey?: string
}

export class Bills {
  constructor(
    private readonly http: Transport,
    private readonly path = '/api/v3/bills/',
  ) {}

  private async send(method: string, path: string, body?: unknown, options: Options = {}): Promise<Bill> {
    const response = await this.http.request<{ data: Bill }>(method, path, {
      ...(body === undefined ? {} : { body }),
      idempotencyKey: options.idempotencyKey,
    })
    return response.data.data
  }

  /** @example const { data } = await client.bills.list({ match_status: 'exception' }) */
  async list(query: BillQuery = {}) {
    const { data } = await this.http.request<{ data: Bill[]; metadata: { pagination: Schemas['Pagination'] } }>(
      'GET',
      this.path,
      { query: query },
    )
    return { data: data.data, pagination: data.metadata.pagination }
  }

  get(id: number): Promise<Bill> {
    return this.send('GET', `${this.path}${id}/`)
  }

  /** @example await client.bills.create({ number: 'INV-2291', purchase_order: 42, lines: [{ po_line: 101, quantity: '12' }] }) */
  create(body: BillInput, options?: Options): Promise<Bill> {
    return this.send('POST', this.path, body, options)
  }

  /** Replaces a draft bill. */
  replace(id: number, body: BillInput): Promise<Bill> {
    return this.send('PUT', `${this.path}${id}/`, body)
  }

  /** Matches the bill against its order and receipts and starts its approval. */
  submit(id: number, options?: Options): Promise<Bill> {
    return this.send('POST', `${this.path}${id}/submit/`, undefined, options)
  }

  pay(id: number, body: BillPayInput = {}, options?: Options): Promise<Bill> {
    return this.send('POST', `${this.path}${id}/pay/`, body, options)
  }

  cancel(id: number, options?: Options): Promise<Bill> {
    return this.send('POST', `${this.path}${id}/cancel/`, undefined, options)
  }
}

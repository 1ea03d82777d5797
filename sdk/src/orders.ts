/**
 * Purchase orders, receipts and the procurement settings: what follows an approved request. Every POST
 * carries an Idempotency-Key (the transport makes one unless you pass yours).
 */
import type { components } from './generated/openapi.ts'
import { Resource, type Options, type Pagination, type QueryOf } from './workflow.ts'

type Schemas = components['schemas']
export type PurchaseOrder = Schemas['PurchaseOrder']
export type PurchaseOrderInput = Schemas['PurchaseOrderInput']
export type PurchaseOrderRevision = Schemas['PurchaseOrderRevision']
export type Receipt = Schemas['Receipt']
export type ReceiptInput = Schemas['ReceiptInput']
export type ProcurementSettings = Schemas['ProcurementSettings']
export type ProcurementSettingsInput = Schemas['ProcurementSettingsInput']

export class PurchaseOrders extends Resource<PurchaseOrder, QueryOf<'listPurchaseOrders'>> {
  /** A draft made by hand. */
  create(body: PurchaseOrderInput, options?: Options): Promise<PurchaseOrder> {
    return this.send('POST', this.path, body, options)
  }
  /** Draft orders from an approved request: one per vendor; `lineVendors` names vendors for lines without one. */
  fromRequest(
    requestId: number,
    lineVendors: { line: number; vendor: number }[] = [],
    options?: Options,
  ): Promise<PurchaseOrder[]> {
    return this.send('POST', `/api/v3/requests/${requestId}/purchase-orders/`, { line_vendors: lineVendors }, options)
  }
  /** Replaces a draft; revises an issued order (pass its `version`: sent as If-Match). */
  async replace(id: number, body: PurchaseOrderInput, version?: number): Promise<PurchaseOrder> {
    const headers = version === undefined ? undefined : { 'if-match': `"${version}"` }
    return (await this.http.request<{ data: PurchaseOrder }>('PUT', `${this.path}${id}/`, { body, headers })).data.data
  }
  issue(id: number, options?: Options): Promise<PurchaseOrder> {
    return this.send('POST', `${this.path}${id}/issue/`, undefined, options)
  }
  /** E-mails the order's PDF (default: to the vendor's e-mail) and sets `sent_at`. */
  sendToVendor(id: number, body: { to?: string[]; message?: string } = {}, options?: Options): Promise<PurchaseOrder> {
    return this.send('POST', `${this.path}${id}/send/`, body, options)
  }
  close(id: number, options?: Options): Promise<PurchaseOrder> {
    return this.send('POST', `${this.path}${id}/close/`, undefined, options)
  }
  reopen(id: number, options?: Options): Promise<PurchaseOrder> {
    return this.send('POST', `${this.path}${id}/reopen/`, undefined, options)
  }
  cancel(id: number, options?: Options): Promise<PurchaseOrder> {
    return this.send('POST', `${this.path}${id}/cancel/`, undefined, options)
  }
  closeLine(id: number, lineId: number, options?: Options): Promise<PurchaseOrder> {
    return this.send('POST', `${this.path}${id}/lines/${lineId}/close/`, undefined, options)
  }
  /**
   * The order as a PDF (what `sendToVendor` attaches): its bytes and content type (`application/pdf`).
   * @example const { bytes } = await client.purchaseOrders.pdf(42); await fs.writeFile('PO-000042.pdf', bytes)
   */
  async pdf(id: number): Promise<{ bytes: Uint8Array; contentType: string }> {
    const { data, contentType } = await this.http.requestBytes('GET', `${this.path}${id}/pdf/`, {}, 'application/pdf')
    return { bytes: data, contentType }
  }
  /** The order's revisions, oldest first, a page at a time (`page`, `page_size` up to 100). */
  async revisions(
    id: number,
    query: QueryOf<'listPurchaseOrderRevisions'> = {},
  ): Promise<{ data: PurchaseOrderRevision[]; pagination: Pagination }> {
    const { data } = await this.http.request<{ data: PurchaseOrderRevision[]; metadata: { pagination: Pagination } }>(
      'GET',
      `${this.path}${id}/revisions/`,
      { query },
    )
    return { data: data.data, pagination: data.metadata.pagination }
  }
}

export class Receipts extends Resource<Receipt, QueryOf<'listReceipts'>> {
  /** A receipt (or, with `type: "return"`, a return) against an issued order. */
  create(body: ReceiptInput, options?: Options): Promise<Receipt> {
    return this.send('POST', this.path, body, options)
  }
  void(id: number, options?: Options): Promise<Receipt> {
    return this.send('POST', `${this.path}${id}/void/`, undefined, options)
  }
}

export class ProcurementSettingsApi extends Resource<never, never> {
  read(): Promise<ProcurementSettings> {
    return this.send('GET', this.path)
  }
  update(body: ProcurementSettingsInput): Promise<ProcurementSettings> {
    return this.send('PUT', this.path, body)
  }
}

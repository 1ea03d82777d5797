/**
 * Requests, approvals, approval rules, roles, per-location grants and delegation: the request → approval flow.
 * Every POST carries an Idempotency-Key (the transport makes one unless you pass yours).
 */
import type { components, operations } from './generated/openapi.ts'
import type { Transport } from './http.ts'

type Schemas = components['schemas']
export type PurchaseRequest = Schemas['PurchaseRequest']
export type RequestInput = Schemas['RequestInput']
export type RequestPatch = Schemas['RequestPatch']
export type Approval = Schemas['Approval']
export type ApprovalRule = Schemas['ApprovalRule']
export type ApprovalRuleInput = Schemas['ApprovalRuleInput']
export type Role = Schemas['Role']
export type RoleInput = Schemas['RoleInput']
export type LocationRoles = Schemas['LocationRoles']
export type Delegation = Schemas['Delegation']
export type DelegationInput = Schemas['DelegationInput']
export type Pagination = Schemas['Pagination']

export type QueryOf<K extends keyof operations> = operations[K] extends { parameters: { query?: infer Q } }
  ? NonNullable<Q>
  : never
type Query = Record<string, string | number | boolean | undefined>
export interface Options {
  idempotencyKey?: string
}

/** One resource under `path`: list, get, and the writes its subclass names. */
export class Resource<T, Q> {
  constructor(
    protected readonly http: Transport,
    protected readonly path: string,
  ) {}

  protected async send<R>(method: string, path: string, body?: unknown, options: Options = {}): Promise<R> {
    const response = await this.http.request<{ data: R }>(method, path, {
      ...(body === undefined ? {} : { body }),
      idempotencyKey: options.idempotencyKey,
    })
    return response.data.data
  }

  async list(query: Q = {} as Q): Promise<{ data: T[]; pagination: Pagination }> {
    const { data } = await this.http.request<{ data: T[]; metadata: { pagination: Pagination } }>('GET', this.path, {
      query: query as Query,
    })
    return { data: data.data, pagination: data.metadata.pagination }
  }

  get(id: number): Promise<T> {
    return this.send('GET', `${this.path}${id}/`)
  }
}

export class Requests extends Resource<PurchaseRequest, QueryOf<'listRequests'>> {
  create(body: RequestInput, options?: Options): Promise<PurchaseRequest> {
    return this.send('POST', this.path, body, options)
  }
  /** Changes a draft; `lines`, when sent, replace all lines. */
  update(id: number, body: RequestPatch): Promise<PurchaseRequest> {
    return this.send('PATCH', `${this.path}${id}/`, body)
  }
  submit(id: number, options?: Options): Promise<PurchaseRequest> {
    return this.send('POST', `${this.path}${id}/submit/`, undefined, options)
  }
  cancel(id: number, options?: Options): Promise<PurchaseRequest> {
    return this.send('POST', `${this.path}${id}/cancel/`, undefined, options)
  }
}

export class Approvals extends Resource<Approval, QueryOf<'listApprovals'>> {
  /** Your inbox: the pending approvals you may decide. */
  inbox(query: Omit<QueryOf<'listApprovals'>, 'approver' | 'status'> = {}) {
    return this.list({ ...query, approver: 'me', status: 'pending' })
  }
  approve(id: number, comment?: string, options?: Options): Promise<Approval> {
    return this.send('POST', `${this.path}${id}/approve/`, comment === undefined ? {} : { comment }, options)
  }
  reject(id: number, comment: string, options?: Options): Promise<Approval> {
    return this.send('POST', `${this.path}${id}/reject/`, { comment }, options)
  }
}

export class ApprovalRules extends Resource<ApprovalRule, QueryOf<'listApprovalRules'>> {
  create(body: ApprovalRuleInput, options?: Options): Promise<ApprovalRule> {
    return this.send('POST', this.path, body, options)
  }
  replace(id: number, body: ApprovalRuleInput): Promise<ApprovalRule> {
    return this.send('PUT', `${this.path}${id}/`, body)
  }
  async delete(id: number): Promise<void> {
    await this.http.request('DELETE', `${this.path}${id}/`)
  }
}

export class Roles extends Resource<Role, QueryOf<'listRoles'>> {
  create(body: RoleInput, options?: Options): Promise<Role> {
    return this.send('POST', this.path, body, options)
  }
  replace(id: number, body: RoleInput): Promise<Role> {
    return this.send('PUT', `${this.path}${id}/`, body)
  }
  /** 409 while a user or a grant holds the role. */
  async delete(id: number): Promise<void> {
    await this.http.request('DELETE', `${this.path}${id}/`)
  }
}

/** A user's per-location grants, re-activation and out-of-office delegation (`users/{id}/…`). */
export class UserAccess extends Resource<never, never> {
  locationRoles(userId: number): Promise<LocationRoles> {
    return this.send('GET', `${this.path}${userId}/location-roles/`)
  }
  setLocationRoles(userId: number, grants: LocationRoles): Promise<LocationRoles> {
    return this.send('PUT', `${this.path}${userId}/location-roles/`, grants)
  }
  activate(userId: number, options?: Options): Promise<Schemas['UserProfile']> {
    return this.send('POST', `${this.path}${userId}/activate/`, undefined, options)
  }
  delegation(userId: number): Promise<Delegation> {
    return this.send('GET', `${this.path}${userId}/delegation/`)
  }
  setDelegation(userId: number, body: DelegationInput): Promise<Delegation> {
    return this.send('PUT', `${this.path}${userId}/delegation/`, body)
  }
  async endDelegation(userId: number): Promise<void> {
    await this.http.request('DELETE', `${this.path}${userId}/delegation/`)
  }
}

/** What the harness tells the floor (bench/floor/server.ts): where the data is, the keys, and the captured SQL. */

export interface Statement {
  sql: string
  parameters: unknown[]
  /** The rows it returned when captured (bench/p2p/capture.ts), where the floor learns new ids from them. */
  rows?: unknown[]
}

/**
 * A write replayed for a fresh resource per request (bench/p2p/): `path` (a regular expression) matches the
 * request; the resource is named by its first group or by the body's field `bodyKey`. The floor runs the
 * captured statements with every captured value of the resource replaced by the request's (`resources`: the
 * pairs per resource key), and with every value the captured statements returned replaced by what they return
 * now (ids, numbers, time stamps), in parameters and in JSON text alike; the answer is the captured `body`
 * with the same replacements.
 */
export interface Replay {
  method: 'POST'
  path: string
  bodyKey?: string
  statements: Statement[]
  status: number
  body: unknown
  resources: Record<string, [unknown, unknown][]>
}

export interface FloorSpec {
  engine: 'postgres' | 'pglite'
  /** PostgreSQL: the database; pglite: a copy of the server's data directory (DATA_DIR/pgdata). */
  url?: string
  dataDir?: string
  poolMax: number
  signingKey: string
  pepper: string
  issuer: string
  audience: string
  /**
   * GET /api/v3/vendors/, per tenant id: the request's statements; `page` is the one that reads the page;
   * `linkBase` starts the tenant's absolute links (src/http/public-url.ts), '' for relative ones; `lookups`
   * reads the look-ups the page references, run once per tenant and then kept in memory, as the service does.
   */
  list?: {
    pageSize: number
    tenants: Record<string, { statements: Statement[]; page: number; linkBase: string; lookups?: Statement }>
  }
  /**
   * POST /api/v3/vendors/, per tenant id: the request's statements; `insert` returns the new id, which
   * replaces `capturedId` (the id the captured request got) in the statements after it; `select` is the one
   * whose row is the vendor (the service's insert returns it).
   */
  create?: {
    tenants: Record<
      string,
      { statements: Statement[]; insert: number; select: number; capturedId: number; linkBase: string }
    >
  }
  /**
   * Other GET pages, by path with query (as the load generator sends it), then tenant id: the request's
   * statements, replayed in order. `map` says how the answer is written: `approval` and `profile` are list
   * pages (statement `page` holds the rows and their `total_count`, mapped with the service's `toApproval` /
   * `toProfile`); `me` writes `body` (the service's captured answer) with `pending_approvals_count` taken from
   * the `pending` column of statement `page` (the profile row), so the live part comes from this request's SQL;
   * `budget` writes `body` with its `data` made by the service's `toBudget` from statement `page`'s row (a
   * budget with its figures, bench/budgets.ts); `spend` writes `body` with its `data` made from statement
   * `page`'s rows as the spend report's definition makes them (grouped by `group`) and its totals recomputed
   * (bench/reports.ts).
   */
  pages?: Record<
    string,
    Record<
      string,
      {
        statements: Statement[]
        page: number
        map: 'approval' | 'profile' | 'me' | 'budget' | 'spend'
        linkBase: string
        body?: unknown
        group?: string
      }
    >
  >
  /** POST /oauth/token: the statements, with the captured client id replaced by the request's; `lookup` finds the client. */
  token?: { statements: Statement[]; lookup: number; clientId: string }
  /** Writes on fresh resources (bench/orders.ts, bench/bills.ts, bench/budgets.ts). */
  replay?: Replay[]
}

/**
 * Purchase orders and receiving (DECISIONS, "Purchase orders and receiving"), and approvals made
 * document-generic: an approval names its document (`document_type`, `document_id`: a request, a purchase
 * order, later a bill) and carries what the engine needs without reading the document — its location, its
 * submitter (who may not decide it) and the planned chain. `request_id` stays, set only for requests. The
 * kept pending counts (migration 0009) and the delegated count (0011) now read those columns instead of
 * joining `purchase_requests`, so an approval of any document counts the same way.
 *
 * Orders number per tenant from `document_numbers` (one row per tenant and kind, bumped in the writing
 * transaction: two orders never share a number and a committed number is never reused). Money is `numeric`.
 */
import { sql, type Kysely } from 'kysely'

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql.raw(SCHEMA).execute(db)
}

/** Σ ±1 per (tenant, candidate, kind) over `changed` (tenant_id, location_id, submitter_id, kind, candidates, sign). */
const apply = (slot: string) => `
    INSERT INTO pending_counts AS c (tenant_id, user_id, kind, slot, n)
      SELECT ch.tenant_id, u.id, ch.kind, ${slot}, sum(ch.sign)::int
      FROM changed ch
      CROSS JOIN LATERAL (SELECT DISTINCT x FROM unnest(ch.candidates) x WHERE x IS NOT NULL) u (id)
      WHERE u.id IS DISTINCT FROM ch.submitter_id
      GROUP BY ch.tenant_id, u.id, ch.kind
      HAVING sum(ch.sign) <> 0
      ORDER BY ch.tenant_id, u.id, ch.kind
    ON CONFLICT (tenant_id, user_id, kind, slot) DO UPDATE SET n = c.n + EXCLUDED.n`

const applyLocations = (slot: string) => `
    INSERT INTO pending_location_counts AS c (tenant_id, location_id, slot, n)
      SELECT ch.tenant_id, ch.location_id, ${slot}, sum(ch.sign)::int
      FROM changed ch
      GROUP BY ch.tenant_id, ch.location_id
      HAVING sum(ch.sign) <> 0
      ORDER BY ch.tenant_id, ch.location_id
    ON CONFLICT (tenant_id, location_id, slot) DO UPDATE SET n = c.n + EXCLUDED.n`

const both = (changed: string) => `
  WITH changed AS (${changed}) ${apply('pg_backend_pid()')};
  WITH changed AS (${changed}) ${applyLocations('pg_backend_pid()')};`

const COLS = 'tenant_id, location_id, submitter_id, kind, candidates'

const SCHEMA = `
ALTER TABLE approval_rules ADD COLUMN document varchar(20) NOT NULL DEFAULT 'request'
  CHECK (document IN ('request', 'purchase_order', 'bill'));

ALTER TABLE request_approvals
  ADD COLUMN document_type varchar(20) NOT NULL DEFAULT 'request'
    CHECK (document_type IN ('request', 'purchase_order', 'bill')),
  ADD COLUMN document_id integer,
  ADD COLUMN location_id integer,
  ADD COLUMN submitter_id integer,
  ADD COLUMN plan jsonb NOT NULL DEFAULT '[]';
UPDATE request_approvals a SET document_id = r.id, location_id = r.location_id, submitter_id = r.requester_id,
  plan = r.chain
  FROM purchase_requests r WHERE r.tenant_id = a.tenant_id AND r.id = a.request_id;
ALTER TABLE request_approvals ALTER COLUMN document_id SET NOT NULL, ALTER COLUMN location_id SET NOT NULL,
  ALTER COLUMN submitter_id SET NOT NULL, ALTER COLUMN request_id DROP NOT NULL;
CREATE INDEX request_approvals_document ON request_approvals (tenant_id, document_type, document_id, step);

CREATE OR REPLACE FUNCTION pending_counts_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  ${both(`SELECT ${COLS}, 1 AS sign FROM new_rows WHERE status = 'pending'`)}
  RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION pending_counts_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  ${both(`SELECT ${COLS}, -1 AS sign FROM old_rows WHERE status = 'pending'`)}
  RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION pending_counts_updated() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  ${both(`SELECT ${COLS}, -1 AS sign FROM old_rows WHERE status = 'pending'
    UNION ALL SELECT ${COLS}, 1 AS sign FROM new_rows WHERE status = 'pending'`)}
  RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION pending_delegated_orders(tenant integer, usr integer) RETURNS integer
LANGUAGE plpgsql STABLE
SET plan_cache_mode = force_generic_plan SET max_parallel_workers_per_gather = 0 AS $$
BEGIN
  RETURN (SELECT count(*)::int FROM request_approvals a
    WHERE a.tenant_id = tenant AND a.status = 'pending' AND a.kind = 'order'
      AND a.candidates && array(SELECT dd.user_id FROM delegations dd WHERE dd.delegatee_id = usr AND dd.active
        AND (dd.expected_return_date IS NULL OR now() < (dd.expected_return_date + 1)::timestamp AT TIME ZONE 'UTC'))
      AND a.submitter_id <> usr
      AND (NOT a.candidates @> array[usr] OR EXISTS (SELECT 1 FROM delegations dw WHERE dw.user_id = usr AND dw.active
        AND (dw.expected_return_date IS NULL OR now() < (dw.expected_return_date + 1)::timestamp AT TIME ZONE 'UTC'))));
END $$;

-- E-mail may carry attachments (an order's PDF): [{filename, content_type, content (base64)}].
ALTER TABLE email_outbox ADD COLUMN attachments jsonb NOT NULL DEFAULT '[]';

CREATE TABLE document_numbers (
  tenant_id integer NOT NULL REFERENCES tenants (id),
  kind      varchar(20) NOT NULL,
  last      bigint NOT NULL,
  PRIMARY KEY (tenant_id, kind)
);

CREATE TABLE procurement_settings (
  tenant_id                     integer PRIMARY KEY REFERENCES tenants (id),
  over_receipt_tolerance_percent numeric(9, 4) NOT NULL DEFAULT 0,
  po_approval_tolerance_percent  numeric(9, 4) NOT NULL DEFAULT 10,
  price_tolerance_percent        numeric(9, 4) NOT NULL DEFAULT 5,
  match_mode                     varchar(10) NOT NULL DEFAULT 'three_way' CHECK (match_mode IN ('two_way', 'three_way')),
  updated_at                     timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE purchase_orders (
  id               integer GENERATED BY DEFAULT AS IDENTITY,
  tenant_id        integer NOT NULL REFERENCES tenants (id),
  number           varchar(20) NOT NULL,
  status           varchar(20) NOT NULL DEFAULT 'draft'
                   CHECK (status IN ('draft', 'pending_approval', 'issued', 'closed', 'cancelled')),
  version          integer NOT NULL DEFAULT 0,
  receipt_status   varchar(10) NOT NULL DEFAULT 'none' CHECK (receipt_status IN ('none', 'partial', 'full', 'over')),
  billing_status   varchar(10) NOT NULL DEFAULT 'none' CHECK (billing_status IN ('none', 'partial', 'full')),
  vendor_id        integer NOT NULL,
  location_id      integer NOT NULL,
  department_id    integer,
  request_id       integer,
  currency_id      integer NOT NULL,
  ship_to          jsonb,
  bill_to          jsonb,
  promise_date     date,
  notes            varchar(4000) NOT NULL DEFAULT '',
  subtotal         numeric(40, 2) NOT NULL DEFAULT 0,
  tax              numeric(40, 2) NOT NULL DEFAULT 0,
  total            numeric(40, 2) NOT NULL DEFAULT 0,
  approved_total   numeric(40, 2),
  pending_revision jsonb,
  created_by       integer NOT NULL,
  issued_at        timestamptz,
  sent_at          timestamptz,
  closed_at        timestamptz,
  created_at       timestamptz NOT NULL DEFAULT now(),
  updated_at       timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (tenant_id, id),
  UNIQUE (tenant_id, number),
  FOREIGN KEY (tenant_id, vendor_id) REFERENCES vendors (tenant_id, id),
  FOREIGN KEY (tenant_id, location_id) REFERENCES locations (tenant_id, id),
  FOREIGN KEY (tenant_id, department_id) REFERENCES departments (tenant_id, id),
  FOREIGN KEY (tenant_id, request_id) REFERENCES purchase_requests (tenant_id, id),
  FOREIGN KEY (tenant_id, currency_id) REFERENCES currencies (tenant_id, id),
  FOREIGN KEY (tenant_id, created_by) REFERENCES users (tenant_id, id)
);
CREATE INDEX purchase_orders_location ON purchase_orders (tenant_id, location_id, id);
CREATE INDEX purchase_orders_request ON purchase_orders (tenant_id, request_id) WHERE request_id IS NOT NULL;
CREATE INDEX purchase_orders_updated ON purchase_orders (tenant_id, updated_at);
CREATE INDEX purchase_orders_status ON purchase_orders (tenant_id, status, id);

CREATE TABLE purchase_order_lines (
  id                integer GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
  tenant_id         integer NOT NULL,
  order_id          integer NOT NULL,
  position          smallint NOT NULL,
  request_line_id   integer REFERENCES request_lines (id),
  description       varchar(1000) NOT NULL DEFAULT '',
  quantity          numeric(20, 4) NOT NULL,
  unit_price        numeric(20, 4) NOT NULL,
  tax_rate          numeric(9, 4) NOT NULL DEFAULT 0,
  amount            numeric(40, 2) NOT NULL,
  tax               numeric(40, 2) NOT NULL,
  received_quantity numeric(20, 4) NOT NULL DEFAULT 0,
  rejected_quantity numeric(20, 4) NOT NULL DEFAULT 0,
  billed_quantity   numeric(20, 4) NOT NULL DEFAULT 0,
  closed            boolean NOT NULL DEFAULT false,
  FOREIGN KEY (tenant_id, order_id) REFERENCES purchase_orders (tenant_id, id) ON DELETE CASCADE
);
CREATE INDEX purchase_order_lines_order ON purchase_order_lines (tenant_id, order_id, position);
CREATE INDEX purchase_order_lines_request_line ON purchase_order_lines (request_line_id) WHERE request_line_id IS NOT NULL;

CREATE TABLE purchase_order_revisions (
  id         integer GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
  tenant_id  integer NOT NULL,
  order_id   integer NOT NULL,
  version    integer NOT NULL,
  changed_by integer NOT NULL,
  changes    jsonb NOT NULL,
  changed_at timestamptz NOT NULL DEFAULT now(),
  FOREIGN KEY (tenant_id, order_id) REFERENCES purchase_orders (tenant_id, id) ON DELETE CASCADE
);
CREATE INDEX purchase_order_revisions_order ON purchase_order_revisions (tenant_id, order_id, version);

CREATE TABLE receipts (
  id           integer GENERATED BY DEFAULT AS IDENTITY,
  tenant_id    integer NOT NULL REFERENCES tenants (id),
  number       varchar(20) NOT NULL,
  type         varchar(10) NOT NULL CHECK (type IN ('receipt', 'return')),
  status       varchar(10) NOT NULL DEFAULT 'posted' CHECK (status IN ('posted', 'voided')),
  order_id     integer NOT NULL,
  location_id  integer NOT NULL,
  received_at  timestamptz NOT NULL DEFAULT now(),
  packing_slip varchar(200) NOT NULL DEFAULT '',
  notes        varchar(4000) NOT NULL DEFAULT '',
  created_by   integer NOT NULL,
  created_at   timestamptz NOT NULL DEFAULT now(),
  updated_at   timestamptz NOT NULL DEFAULT now(),
  voided_at    timestamptz,
  PRIMARY KEY (tenant_id, id),
  UNIQUE (tenant_id, number),
  FOREIGN KEY (tenant_id, order_id) REFERENCES purchase_orders (tenant_id, id),
  FOREIGN KEY (tenant_id, location_id) REFERENCES locations (tenant_id, id)
);
CREATE INDEX receipts_order ON receipts (tenant_id, order_id, id);

CREATE TABLE receipt_lines (
  id                integer GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
  tenant_id         integer NOT NULL,
  receipt_id        integer NOT NULL,
  position          smallint NOT NULL,
  po_line_id        integer NOT NULL REFERENCES purchase_order_lines (id),
  accepted_quantity numeric(20, 4) NOT NULL,
  rejected_quantity numeric(20, 4) NOT NULL,
  FOREIGN KEY (tenant_id, receipt_id) REFERENCES receipts (tenant_id, id) ON DELETE CASCADE
);
CREATE INDEX receipt_lines_receipt ON receipt_lines (tenant_id, receipt_id, position);
`

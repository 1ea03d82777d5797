/**
 * A change to a vendor look-up row — a payment or shipping term or method renamed, described anew,
 * switched off or deleted — sends a notification on the channel `lookups_changed` with the tenant's id
 * (`*` for all tenants, on TRUNCATE) from the changing transaction, whoever made it. Processes that keep
 * look-ups in memory (lookups/cache.ts) drop that tenant's when it arrives. An insert needs no
 * notification: the cache holds only rows it has read, and reads a new id on its first use.
 */
import { sql, type Kysely } from 'kysely'

const TABLES = ['payment_terms', 'shipping_terms', 'payment_methods', 'shipping_methods']

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql.raw(SCHEMA).execute(db)
}

const SCHEMA = `
CREATE FUNCTION notify_lookups_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_LEVEL = 'STATEMENT' THEN
    PERFORM pg_notify('lookups_changed', '*');
  ELSE
    PERFORM pg_notify('lookups_changed', OLD.tenant_id::text);
    IF TG_OP = 'UPDATE' THEN PERFORM pg_notify('lookups_changed', NEW.tenant_id::text); END IF;
  END IF;
  RETURN NULL;
END $$;
${TABLES.map(
  (table) => `
CREATE TRIGGER ${table}_lookups_changed AFTER DELETE ON ${table}
  FOR EACH ROW EXECUTE FUNCTION notify_lookups_changed();
CREATE TRIGGER ${table}_lookups_updated AFTER UPDATE ON ${table}
  FOR EACH ROW WHEN (OLD.* IS DISTINCT FROM NEW.*) EXECUTE FUNCTION notify_lookups_changed();
CREATE TRIGGER ${table}_lookups_truncated AFTER TRUNCATE ON ${table}
  FOR EACH STATEMENT EXECUTE FUNCTION notify_lookups_changed();`,
).join('\n')}
`

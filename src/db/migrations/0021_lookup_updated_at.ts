/**
 * `updated_since` on the look-up lists (DECISIONS, "Envelope, lists, pagination": lists also take it):
 * currencies, legal entities, departments, roles and the four vendor look-ups record when they last changed.
 * A trigger keeps it, so every writer (API, console, CLI, CSV import, seed) moves it alike; a role also
 * changes when its permissions do.
 */
import { sql, type Kysely } from 'kysely'

const TABLES = [
  'currencies',
  'legal_entities',
  'departments',
  'roles',
  'payment_terms',
  'shipping_terms',
  'payment_methods',
  'shipping_methods',
]

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql.raw(SCHEMA).execute(db)
}

const SCHEMA = `
CREATE FUNCTION touch_updated_at() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.updated_at := now();
  RETURN NEW;
END $$;
${TABLES.map(
  (table) => `
ALTER TABLE ${table} ADD COLUMN updated_at timestamptz NOT NULL DEFAULT now();
CREATE TRIGGER ${table}_touch BEFORE UPDATE ON ${table} FOR EACH ROW EXECUTE FUNCTION touch_updated_at();`,
).join('\n')}

CREATE FUNCTION touch_role() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE roles SET updated_at = now()
   WHERE id = (CASE WHEN TG_OP = 'DELETE' THEN OLD.role_id ELSE NEW.role_id END);
  RETURN NULL;
END $$;
CREATE TRIGGER role_permissions_touch AFTER INSERT OR DELETE ON role_permissions
  FOR EACH ROW EXECUTE FUNCTION touch_role();
`

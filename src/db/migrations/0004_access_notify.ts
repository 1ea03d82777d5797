/**
 * Every change that can alter what an access token may do — an application revoked, rotated or moved, a
 * user deactivated or renamed, a role, grant or permission changed, a tenant switched off, a token revoked —
 * sends a notification on the channel `access_changed` with the tenant's id (`*` for all tenants). Triggers
 * send it from the changing transaction itself, so it is delivered exactly when the change commits, whoever
 * made it: the API, the console, the CLI or an operator with psql. Processes that cache live access
 * (oauth/access-cache.ts) drop that tenant's entries when it arrives.
 */
import { sql, type Kysely } from 'kysely'

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql.raw(SCHEMA).execute(db)
}

/**
 * The triggers of one table: `update` lists the columns whose change matters (none: updates do not notify;
 * a column list guards against writes that change nothing relevant, e.g. `last_used_at`); `always` are the
 * events that notify whatever the row holds.
 */
function triggers(table: string, always: string[], update: string[] = []): string {
  const changed = update.map((c) => `OLD.${c} IS DISTINCT FROM NEW.${c}`).join(' OR ')
  return [
    always.length > 0 &&
      `CREATE TRIGGER ${table}_access_changed AFTER ${always.join(' OR ')} ON ${table}
  FOR EACH ROW EXECUTE FUNCTION notify_access_changed();`,
    update.length > 0 &&
      `CREATE TRIGGER ${table}_access_updated AFTER UPDATE ON ${table}
  FOR EACH ROW WHEN (${changed}) EXECUTE FUNCTION notify_access_changed();`,
    `CREATE TRIGGER ${table}_access_truncated AFTER TRUNCATE ON ${table}
  FOR EACH STATEMENT EXECUTE FUNCTION notify_access_changed();`,
  ]
    .filter(Boolean)
    .join('\n')
}

const SCHEMA = `
CREATE FUNCTION notify_access_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_LEVEL = 'STATEMENT' OR TG_TABLE_NAME = 'permissions' THEN
    PERFORM pg_notify('access_changed', '*');
  ELSIF TG_TABLE_NAME = 'tenants' THEN
    PERFORM pg_notify('access_changed', OLD.id::text);
  ELSE
    -- A row moved between tenants (never done, but possible by hand) changes both.
    IF TG_OP <> 'INSERT' THEN PERFORM pg_notify('access_changed', OLD.tenant_id::text); END IF;
    IF TG_OP <> 'DELETE' THEN PERFORM pg_notify('access_changed', NEW.tenant_id::text); END IF;
  END IF;
  RETURN NULL;
END $$;
${triggers('tenants', ['DELETE'], ['active', 'domain'])}
${triggers('applications', ['DELETE'], ['revoked_at', 'secret_version', 'user_id', 'tenant_id'])}
${triggers('users', ['DELETE'], ['is_active', 'email', 'tenant_id'])}
${triggers('user_profiles', ['INSERT', 'DELETE'], ['role_id', 'user_id', 'tenant_id'])}
${triggers('role_grants', ['INSERT', 'UPDATE', 'DELETE'])}
${triggers('role_permissions', ['INSERT', 'UPDATE', 'DELETE'])}
${triggers('permissions', ['INSERT', 'UPDATE', 'DELETE'])}
${triggers('token_revocations', ['INSERT'])}
`

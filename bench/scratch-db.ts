/** A throw-away PostgreSQL database for one benchmark run, dropped again when it closes. */
import pg from 'pg'
import { openPostgres, type Database } from '../src/db/database.ts'

export async function scratchPostgres(serverUrl: string): Promise<Database> {
  const name = `procurement_bench_${process.pid}_${Date.now()}`
  const admin = (database: string) => {
    const u = new URL(serverUrl)
    u.pathname = `/${database}`
    return u.toString()
  }
  const run = async (statement: string) => {
    const client = new pg.Client({ connectionString: admin('postgres') })
    await client.connect()
    await client.query(statement)
    await client.end()
  }
  await run(`CREATE DATABASE "${name}"`)
  const database = openPostgres({ url: admin(name), poolMax: 10 })
  return {
    ...database,
    async close() {
      await database.close()
      await run(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`)
    },
  }
}

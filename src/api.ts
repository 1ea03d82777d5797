/** Everything under /api/: bearer authentication first, then the resources. */
import type { FastifyPluginAsync } from 'fastify'
import { applicationRoutes } from './applications/routes.ts'
import { approvalRoutes } from './approvals/routes.ts'
import type { Config } from './config.ts'
import type { Database } from './db/database.ts'
import { eventRoutes } from './events/routes.ts'
import { idempotency } from './http/idempotency.ts'
import { publicLinks } from './http/public-url.ts'
import { rateLimit, RateLimiter } from './http/rate-limit.ts'
import { scimTokenRoutes } from './scim/tokens.routes.ts'
import { ssoRoutes } from './sso/routes.ts'
import type { ServerKeys } from './keys.ts'
import { locationRoutes } from './locations/routes.ts'
import { lookupRoutes } from './lookups/routes.ts'
import { lookupWriteRoutes } from './lookups/write.routes.ts'
import type { LookupCache } from './lookups/cache.ts'
import type { LiveAccessCache } from './oauth/access-cache.ts'
import { bearerAuth } from './oauth/bearer.plugin.ts'
import { purchaseOrderRoutes } from './purchase-orders/routes.ts'
import { procurementSettingsRoutes } from './procurement-settings/routes.ts'
import { receiptRoutes } from './receipts/routes.ts'
import { billRoutes } from './bills/routes.ts'
import { attachmentRoutes } from './attachments/routes.ts'
import { commentRoutes } from './comments/routes.ts'
import { reportRoutes } from './reports/routes.ts'
import { accountRoutes } from './accounts/routes.ts'
import { budgetRoutes } from './budgets/routes.ts'
import { expenseReportRoutes } from './expense-reports/routes.ts'
import { travelRequestRoutes } from './travel-requests/routes.ts'
import { bankAccountRoutes } from './bank-accounts/routes.ts'
import { paymentRequestRoutes } from './payment-requests/routes.ts'
import { paymentRunRoutes } from './payment-runs/routes.ts'
import { requestRoutes } from './requests/routes.ts'
import { roleRoutes } from './roles/routes.ts'
import { userRoutes } from './users/routes.ts'
import { userGrantRoutes } from './users/grants.routes.ts'
import { delegationRoutes } from './users/delegation.routes.ts'
import { vendorRoutes } from './vendors/routes.ts'
import { webhookRoutes } from './webhooks/routes.ts'

export const apiRoutes =
  (deps: {
    config: Readonly<Config>
    database: Database
    keys: ServerKeys
    access: LiveAccessCache
    lookups: LookupCache
  }): FastifyPluginAsync =>
  async (app) => {
    const { config, database } = deps
    await app.register(bearerAuth, deps)
    await app.register(publicLinks, config)
    const shared = database.engine === 'postgres' ? database.db : undefined
    rateLimit(app, new RateLimiter(config.RATE_LIMIT_PER_MINUTE, shared, config.RATE_LIMIT_SYNC_MS))
    await app.register(idempotency, { db: database.db })
    await app.register(vendorRoutes(deps.lookups))
    await app.register(locationRoutes)
    await app.register(lookupRoutes)
    await app.register(lookupWriteRoutes)
    await app.register(userRoutes)
    await app.register(userGrantRoutes)
    await app.register(delegationRoutes)
    await app.register(roleRoutes)
    await app.register(requestRoutes)
    await app.register(approvalRoutes)
    await app.register(purchaseOrderRoutes)
    await app.register(procurementSettingsRoutes)
    await app.register(receiptRoutes)
    await app.register(billRoutes)
    await app.register(attachmentRoutes(config, database.db))
    await app.register(commentRoutes)
    await app.register(reportRoutes)
    await app.register(accountRoutes)
    await app.register(budgetRoutes)
    await app.register(expenseReportRoutes)
    await app.register(travelRequestRoutes)
    await app.register(bankAccountRoutes)
    await app.register(paymentRequestRoutes)
    await app.register(paymentRunRoutes)
    await app.register(applicationRoutes(deps.keys.pepper))
    await app.register(eventRoutes)
    await app.register(webhookRoutes(config))
    await app.register(ssoRoutes(config, deps.keys))
    await app.register(scimTokenRoutes(deps.keys.pepper))
  }

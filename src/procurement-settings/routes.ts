/** /api/v3/procurement-settings/: the tolerances and the match mode. */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { itemRoute } from '../http/item-routes.ts'
import { ProcurementSettings, SettingsInput } from './schema.ts'
import { getSettings, putSettings } from './service.ts'

export const procurementSettingsRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const tags = ['procurement-settings']
  itemRoute(app, 'GET', '/v3/procurement-settings/', {
    summary: 'The tolerances and match mode (superuser or nav_setting)',
    operationId: 'getProcurementSettings',
    tags,
    item: ProcurementSettings,
    run: ({ db, actor }) => getSettings(db, actor),
  })
  itemRoute(app, 'PUT', '/v3/procurement-settings/', {
    summary: 'Change the tolerances and match mode (superuser or nav_setting); fields left out stay',
    operationId: 'replaceProcurementSettings',
    tags,
    body: SettingsInput,
    item: ProcurementSettings,
    run: ({ db, actor, body }) => putSettings(db, actor, body),
  })
}

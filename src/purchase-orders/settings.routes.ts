/** /api/v3/procurement-settings/: the tolerances and the match mode. */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { ItemEnvelope } from '../http/list.ts'
import { ProcurementSettings, SettingsInput } from './settings.schema.ts'
import { getSettings, putSettings } from './settings.service.ts'

type App = Parameters<FastifyPluginAsyncTypebox>[0]

export function settingsRoutes(app: App) {
  const config = { accessNeutral: true }
  app.get(
    '/v3/procurement-settings/',
    {
      schema: {
        summary: 'The tolerances and match mode (superuser or nav_setting)',
        operationId: 'getProcurementSettings',
        tags: ['procurement-settings'],
        response: { 200: ItemEnvelope(ProcurementSettings) },
      },
    },
    async (request) => ({ metadata: {}, data: await getSettings(request.db, request.actor) }),
  )
  app.put(
    '/v3/procurement-settings/',
    {
      config,
      schema: {
        summary: 'Change the tolerances and match mode (superuser or nav_setting); fields left out stay',
        operationId: 'replaceProcurementSettings',
        tags: ['procurement-settings'],
        body: SettingsInput,
        response: { 200: ItemEnvelope(ProcurementSettings) },
      },
    },
    async (request) => ({ metadata: {}, data: await putSettings(request.db, request.actor, request.body) }),
  )
}

/**
 * Settings (applications, set-up lists, single sign-on, webhooks and the outbox), fed hostile strings wherever
 * people's text goes (helpers/hostile-views.ts), write them as text. console-views-basics.test.ts checks that every
 * function a view module exports has a case in one of the console-views-*.test.ts files.
 */
import * as applications from '../src/console/views/applications.ts'
import { html } from '../src/console/views/html.ts'
import * as layout from '../src/console/views/layout.ts'
import * as outbox from '../src/console/views/outbox.ts'
import * as setup from '../src/console/views/setup.ts'
import * as sso from '../src/console/views/sso.ts'
import * as webhooks from '../src/console/views/webhooks.ts'
import { form, frame, HOSTILE, hostileCases, pageOf } from './helpers/hostile-views.ts'

const application = {
  client_id: HOSTILE,
  description: HOSTILE,
  owner_email: HOSTILE,
  created_at: '2026-11-25T10:00:00.000Z',
  last_used_at: null,
  revoked_at: null,
}

const endpoint = {
  id: 3,
  url: HOSTILE,
  event_types: [HOSTILE],
  description: HOSTILE,
  enabled: false,
  created_at: '2026-11-25T10:00:00.000Z',
  disabled_reason: HOSTILE,
  disabled_at: '2026-11-25T10:00:00.000Z',
}
const delivery = {
  id: 4,
  event: HOSTILE,
  event_type: HOSTILE,
  status: 'failed' as const,
  attempts: [{ at: HOSTILE, response_status: null, duration_ms: 5, response_body: HOSTILE, error: HOSTILE }],
  next_attempt_at: null,
  created_at: HOSTILE,
}
const setupSpec: setup.FormSpec = {
  action: HOSTILE,
  submit: HOSTILE,
  problem: HOSTILE,
  state: form,
  fields: [
    { kind: 'text', name: 'name', label: HOSTILE, hint: HOSTILE, required: true },
    { kind: 'textarea', name: HOSTILE, label: HOSTILE },
    { kind: 'select', name: 'location', label: HOSTILE, options: [{ value: HOSTILE, label: HOSTILE }], empty: HOSTILE },
    { kind: 'checkbox', name: 'active', label: HOSTILE },
    { kind: 'checkboxes', name: HOSTILE, label: HOSTILE, hint: HOSTILE, options: [{ value: HOSTILE, label: HOSTILE }] },
  ],
}

const holder = { id: 5, name: HOSTILE, email: HOSTILE, active: false, own: true, at: [HOSTILE], everywhere: true }
const roleSpec: setup.DeleteRoleSpec = {
  role: { id: 6, name: HOSTILE, permissions: HOSTILE },
  holders: [holder],
  total: 3,
  base: HOSTILE,
}

hostileCases({
  'applications.credentialsView': () =>
    applications.credentialsView({ client_id: HOSTILE, client_secret: HOSTILE }, HOSTILE),
  'applications.applicationsView': () => applications.applicationsView([application], frame, HOSTILE),
  'applications.revokeView': () => applications.revokeView(HOSTILE, frame),
  'setup.setupForm': () => setup.setupForm(setupSpec, HOSTILE),
  'setup.setupListView': () =>
    setup.setupListView(
      {
        title: HOSTILE,
        intro: HOSTILE,
        headings: [HOSTILE],
        rows: [
          html`<tr>
            <td>${HOSTILE}</td>
          </tr>`,
        ],
        empty: HOSTILE,
        add: setupSpec,
        flash: HOSTILE,
      },
      frame,
    ),
  'setup.setupEditView': () => setup.setupEditView(HOSTILE, HOSTILE, setupSpec, frame),
  'setup.setupEditView (with what follows the form)': () =>
    setup.setupEditView(HOSTILE, HOSTILE, setupSpec, frame, html`<p>${HOSTILE}</p>`),
  'setup.deleteRoleView': () => setup.deleteRoleView({ ...roleSpec, holders: [], total: 0 }, frame),
  'setup.deleteRoleView (held by some, more than named)': () => setup.deleteRoleView(roleSpec, frame),
  'setup.deleteRoleView (refused)': () => setup.deleteRoleView({ ...roleSpec, refusal: HOSTILE }, frame),
  'setup.procurementSettingsView': () =>
    setup.procurementSettingsView({ intro: HOSTILE, form: setupSpec, flash: HOSTILE }, frame),
  'setup.setupIndexView': () => setup.setupIndexView([{ href: HOSTILE, label: HOSTILE, what: HOSTILE }], frame),
  'setup.activeText': () => setup.activeText(true),
  'sso.ssoView': () =>
    sso.ssoView(
      {
        configured: true,
        redirectUri: HOSTILE,
        scimBaseUrl: HOSTILE,
        roles: [{ value: HOSTILE, label: HOSTILE }],
        tokens: [{ id: 1, description: HOSTILE, created_at: HOSTILE, last_used_at: null }],
      },
      form,
      frame,
      layout.notice('alert', HOSTILE),
      HOSTILE,
    ),
  'sso.ssoRefusedView': () => sso.ssoRefusedView(HOSTILE),
  'outbox.outboxView': () =>
    outbox.outboxView(
      [
        {
          id: 1,
          to_address: HOSTILE,
          subject: HOSTILE,
          body_text: HOSTILE,
          status: 'queued',
          created_at: new Date(),
        },
      ],
      false,
      true,
      frame,
    ),
  'webhooks.secretView': () => webhooks.secretView(HOSTILE, HOSTILE),
  'webhooks.webhooksView': () => webhooks.webhooksView([endpoint], form, frame, HOSTILE),
  'webhooks.webhookView': () => webhooks.webhookView(endpoint, pageOf([delivery]), frame, HOSTILE),
  'webhooks.deleteWebhookView': () => webhooks.deleteWebhookView(endpoint, frame),
})

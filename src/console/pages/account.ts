/** My account (see views/account.ts), signing out one of my other sessions, and my out-of-office delegation. */
import { Type } from 'typebox'
import { listLocations } from '../../locations/service.ts'
import { mySessions, revokeMySession } from '../../sessions/service.ts'
import { bodyChecker } from '../../http/body-check.ts'
import { endDelegation, getDelegation, setDelegation } from '../../users/delegation.service.ts'
import { approvalEmails, me, setApprovalEmails } from '../../users/me.service.ts'
import { DelegationInput } from '../../users/schema.ts'
import { listUsers } from '../../users/service.ts'
import { sendPage, type ConsoleApp, type ConsoleDeps, type ConsoleSession } from '../context.ts'
import { accountView, DELEGATION_LABELS } from '../views/account.ts'
import type { FormState } from '../views/forms.ts'
import { attempt, errorsFor, flashOf, valuesOf } from './forms.ts'
import { everything } from './request-shared.ts'

const Id = Type.Object({ id: Type.Integer({ minimum: 1, maximum: 2147483647 }) })
const Flags = Type.Object({
  welcome: Type.Optional(Type.String()),
  revoked: Type.Optional(Type.String()),
  done: Type.Optional(Type.String({ maxLength: 20 })),
})
const DelegationForm = Type.Object({
  _csrf: Type.Optional(Type.String({ maxLength: 200 })),
  delegatee: Type.Optional(Type.String({ maxLength: 20 })),
  expected_return_date: Type.Optional(Type.String({ maxLength: 40 })),
})
const FIELDS = Object.keys(DELEGATION_LABELS)
const checkDelegation = bodyChecker(DelegationInput)
const flash = flashOf({
  delegated: 'Your delegation is set: your pending approvals go to the person you chose.',
  back: 'Your delegation is ended: your approvals come to you again.',
  emails_on: 'Approval e-mail is on.',
  emails_off: 'Approval e-mail is off: nothing about approvals is e-mailed to you.',
})

export function accountPages(app: ConsoleApp, deps: ConsoleDeps): void {
  async function render(
    session: ConsoleSession,
    flags: { welcome?: string | undefined; revoked?: string | undefined; done?: string | undefined },
    form: FormState = { values: {}, errors: {} },
  ) {
    const { actor, csrf, id: current } = session
    const [account, sessions, locations] = await Promise.all([
      me(deps.db, actor),
      mySessions(deps.db, actor),
      listLocations(deps.db, actor, { page_size: 100 }),
    ])
    const [delegation, users, emails] = await Promise.all([
      getDelegation(deps.db, actor, account.id),
      everything((page) => listUsers(deps.db, actor, { page, page_size: 100, is_active: true, order_by: 'firstName' })),
      approvalEmails(deps.db, actor),
    ])
    const locationNames = new Map(locations.rows.map((l) => [String(l.id), l.name]))
    const view = {
      account,
      sessions,
      current,
      welcome: flags.welcome !== undefined,
      revoked: flags.revoked !== undefined,
      locationNames,
      approvalEmails: emails,
      delegation: {
        current: delegation,
        users: users
          .filter((u) => u.id !== account.id)
          .map((u) => ({
            value: String(u.id),
            label: `${`${u.firstName} ${u.lastName}`.trim() || u.email} (${u.email})`,
          })),
        form,
        flash: flash(flags.done),
      },
    }
    return accountView(view, { actor, csrf })
  }

  app.get('/account', { schema: { hide: true, querystring: Flags } }, async (request, reply) =>
    sendPage(reply, await render(request.session, request.query)),
  )

  app.post(
    '/account/notifications',
    {
      schema: {
        hide: true,
        body: Type.Object({
          _csrf: Type.String(),
          approval_emails: Type.Union([Type.Literal('on'), Type.Literal('off')]),
        }),
      },
    },
    async (request, reply) => {
      const on = request.body.approval_emails === 'on'
      await setApprovalEmails(deps.db, request.session.actor, on)
      return reply.redirect(`/console/account?done=${on ? 'emails_on' : 'emails_off'}#email`, 303)
    },
  )

  app.post('/sessions/:id/revoke', { schema: { hide: true, params: Id } }, async (request, reply) => {
    await revokeMySession(deps.db, request.session.actor, request.params.id)
    return reply.redirect('/console/account?revoked=1', 303)
  })

  app.post('/account/delegation', { schema: { hide: true, body: DelegationForm } }, async (request, reply) => {
    const { actor } = request.session
    const values = valuesOf(
      Object.fromEntries(Object.entries(request.body).map(([k, v]) => [k, (v ?? '').trim()])),
      FIELDS,
    )
    const delegatee = values.delegatee ?? ''
    const body = {
      delegatee: /^\d{1,10}$/.test(delegatee) ? Number(delegatee) : delegatee,
      expected_return_date: values.expected_return_date === '' ? null : (values.expected_return_date ?? null),
    }
    const checked = checkDelegation(body)
    const result = checked.ok
      ? await attempt(values, FIELDS, async () =>
          setDelegation(deps.db, actor, (await me(deps.db, actor)).id, checked.value),
        )
      : {
          ok: false as const,
          form: {
            values,
            errors: errorsFor(
              delegatee === '' ? { delegatee: ['choose who decides for you'] } : checked.errors,
              FIELDS,
            ),
          },
        }
    if (!result.ok) return sendPage(reply, await render(request.session, {}, result.form), 400)
    return reply.redirect('/console/account?done=delegated#away', 303)
  })

  app.post('/account/delegation/end', { schema: { hide: true } }, async (request, reply) => {
    const { actor } = request.session
    await endDelegation(deps.db, actor, (await me(deps.db, actor)).id)
    return reply.redirect('/console/account?done=back#away', 303)
  })
}

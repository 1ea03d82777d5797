/**
 * People (the account page, signing in and setting a password, users and their forms), fed hostile strings wherever
 * people's text goes (helpers/hostile-views.ts), write them as text. console-views-basics.test.ts checks that every
 * function a view module exports has a case in one of the console-views-*.test.ts files.
 */
import * as account from '../src/console/views/account.ts'
import * as auth from '../src/console/views/auth.ts'
import { html } from '../src/console/views/html.ts'
import * as layout from '../src/console/views/layout.ts'
import * as userForms from '../src/console/views/user-forms.ts'
import * as users from '../src/console/views/users.ts'
import { form, frame, HOSTILE, hostileCases, options, pageOf, person } from './helpers/hostile-views.ts'

const profile = {
  id: 7,
  user: 2,
  email: HOSTILE,
  firstName: HOSTILE,
  lastName: HOSTILE,
  is_active: true,
  pending_invite: true,
  phone: HOSTILE,
  position: HOSTILE,
  role: { id: 1, name: HOSTILE },
  location: { id: 1, name: HOSTILE },
  department: { id: 1, name: HOSTILE, location: { id: 1, name: HOSTILE } },
  approval_delegatee: { id: 9, firstName: HOSTILE, lastName: HOSTILE, email: HOSTILE },
  expected_return_date: HOSTILE,
  pending_approvals_count: { order: 1 },
} as unknown as Parameters<typeof users.userView>[0]['user']
const me = {
  firstName: HOSTILE,
  lastName: HOSTILE,
  email: HOSTILE,
  position: HOSTILE,
  department: { id: 1, name: HOSTILE, branch: { id: 1, name: HOSTILE } },
  domains: { service_domains: [{ name: HOSTILE, subdomain: HOSTILE }] },
  systemaccess_cache: { structured: { [HOSTILE]: { flattened: [HOSTILE], roles: [{ id: 1, name: HOSTILE }] } } },
  pending_approvals_count: { [HOSTILE]: 1 },
} as unknown as Parameters<typeof account.accountView>[0]['account']
const session = { id: 3, created_at: new Date(), last_seen_at: new Date(), user_agent: HOSTILE, address: HOSTILE }
/** A roles-at-locations editor with hostile names, values and errors, and two roles at one location. */
const grantsEditorOf = () => ({
  locations: [
    { id: 1, name: HOSTILE },
    { id: 2, name: HOSTILE },
  ],
  roles: options,
  form: {
    values: { 'grant.1.0': HOSTILE, 'grant.1.1': HOSTILE, [HOSTILE]: HOSTILE },
    errors: { 'grant.1.0': [HOSTILE], [HOSTILE]: [HOSTILE] },
  },
  general: HOSTILE,
})

hostileCases({
  'account.accountView': () =>
    account.accountView(
      {
        account: me,
        sessions: [session],
        current: 9,
        welcome: true,
        revoked: true,
        locationNames: new Map([[HOSTILE, HOSTILE]]),
        delegation: {
          current: { delegatee: person, expected_return_date: HOSTILE },
          users: options,
          form,
          flash: HOSTILE,
        },
      },
      frame,
    ),
  'auth.signInView': () => auth.signInView(HOSTILE, HOSTILE, layout.notice('alert', HOSTILE)),
  'auth.noCompanyView': () => auth.noCompanyView(),
  'auth.setupView': () => auth.setupView(HOSTILE, HOSTILE, HOSTILE, layout.notice('alert', HOSTILE)),
  'auth.deadLinkView': () => auth.deadLinkView(),
  'users.usersView': () =>
    users.usersView(
      {
        result: pageOf([profile]),
        search: HOSTILE,
        canManage: true,
        roles: [{ id: 1, name: HOSTILE, permissions: [] }],
        locations: [{ id: 2, name: HOSTILE }],
        invited: HOSTILE,
        link: HOSTILE,
        deactivated: true,
      },
      frame,
    ),
  'users.deactivateView': () => users.deactivateView(profile, frame),
  'users.sentNotice': () =>
    html`${users.sentNotice('link', HOSTILE, false, HOSTILE)}${users.sentNotice('invitation', HOSTILE, true, undefined)}`,
  'users.userView': () =>
    users.userView(
      {
        user: profile,
        role: { id: 1, name: HOSTILE, permissions: [HOSTILE, 'nav_setting'] },
        canManage: true,
        flash: HOSTILE,
        sent: { what: 'invitation', smtp: false, link: HOSTILE },
        grants: grantsEditorOf(),
      },
      frame,
    ),
  'user-forms.userFormView': () =>
    userForms.userFormView(
      form,
      { roles: options, locations: options, departments: options },
      { id: 7, email: HOSTILE, title: HOSTILE },
      frame,
      HOSTILE,
    ),
  'user-forms.grantFields': () => html`${userForms.grantFields(grantsEditorOf().form, 1)}`,
  'user-forms.grantLabels': () => html`${Object.values(userForms.grantLabels(grantsEditorOf()))}`,
  'user-forms.grantsEditor': () => userForms.grantsEditor(7, grantsEditorOf(), HOSTILE),
})

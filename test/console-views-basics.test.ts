/**
 * What every view is made of (html, the layout, lists, forms, formats and the error page), fed hostile strings
 * where people's text goes (helpers/hostile-views.ts), writes them as text; safeHref and format.when on their own;
 * and the check that keeps the console-views-*.test.ts files complete: a view module none of them imports, or a
 * function a view module exports without a hostile case in one of them, fails the first test.
 */
import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { test } from 'node:test'
import { pathToFileURL } from 'node:url'
import * as errors from '../src/console/views/errors.ts'
import * as format from '../src/console/views/format.ts'
import * as forms from '../src/console/views/forms.ts'
import * as htmlModule from '../src/console/views/html.ts'
import * as layout from '../src/console/views/layout.ts'
import * as lists from '../src/console/views/lists.ts'
import { actor, form, frame, HOSTILE, hostileCases, options, pageOf } from './helpers/hostile-views.ts'

const { html, safeHref } = htmlModule
const VIEWS = path.resolve(import.meta.dirname, '../src/console/views')

/**
 * What the console-views-*.test.ts files cover, read from their text (a test file cannot import another without
 * running its tests): the view modules they import, and the names of their hostile cases (`'<module>.<function>':`
 * or `'<module>.<function> (<variant>)':` at the start of a line of the object given to hostileCases).
 */
function covered(): { modules: Set<string>; cases: Set<string> } {
  const modules = new Set<string>()
  const cases = new Set<string>()
  for (const file of fs.readdirSync(import.meta.dirname).filter((f) => /^console-views-.+\.test\.ts$/.test(f))) {
    const text = fs.readFileSync(path.join(import.meta.dirname, file), 'utf8')
    for (const [, name] of text.matchAll(/from '\.\.\/src\/console\/views\/([\w-]+)\.ts'/g)) modules.add(name!)
    for (const [, name] of text.matchAll(/^ {2}'([\w-]+\.\w+)(?: \([^']*\))?': \(\) =>/gm)) cases.add(name!)
  }
  return { modules, cases }
}

test('every view module is listed here, and every function it exports has a hostile case', async () => {
  const { modules, cases } = covered()
  const files = fs.readdirSync(VIEWS).map((f) => f.replace(/\.ts$/, ''))
  assert.deepEqual(
    files.filter((name) => !modules.has(name)),
    [],
    'a view module is missing from the console-views-*.test.ts files',
  )
  const exported: string[] = []
  for (const name of files) {
    const module = (await import(pathToFileURL(path.join(VIEWS, `${name}.ts`)).href)) as Record<string, unknown>
    for (const [key, value] of Object.entries(module))
      if (typeof value === 'function' && !/^[A-Z]/.test(value.name)) exported.push(`${name}.${key}`)
  }
  assert.deepEqual(
    exported.filter((key) => !cases.has(key)),
    [],
    'views without a hostile case',
  )
})

hostileCases({
  'format.when': () => html`${format.when(HOSTILE)}${format.when(new Date())}`,
  'format.browserOf': () => html`${format.browserOf(HOSTILE)}`,
  'format.permissionNames': () => html`${format.permissionNames([HOSTILE, 'nav_setting'])}`,
  'format.userState': () => html`${format.userState({ is_active: true, pending_invite: true })}`,
  'forms.fieldId': () => html`<p id="${forms.fieldId(HOSTILE)}"></p>`,
  'forms.input': () => forms.input({ name: HOSTILE, label: HOSTILE, form, hint: HOSTILE }),
  'forms.textarea': () => forms.textarea({ name: 'name', label: HOSTILE, form }),
  'forms.select': () => forms.select({ name: 'name', label: HOSTILE, form, options, empty: HOSTILE }),
  'forms.checkbox': () => forms.checkbox({ name: HOSTILE, label: HOSTILE, form }),
  'forms.lineEditorLabels': () =>
    html`${Object.values(forms.lineEditorLabels({ name: HOSTILE }, { description: HOSTILE }, 2))}`,
  'forms.departmentSelect': () =>
    forms.departmentSelect(
      { values: { department: HOSTILE }, errors: { department: [HOSTILE] } },
      [{ location: HOSTILE, options: [{ value: HOSTILE, label: HOSTILE }] }],
      HOSTILE,
    ),
  'forms.errorSummary': () => forms.errorSummary(form, { name: HOSTILE }, HOSTILE),
  'lists.emptyState': () => lists.emptyState(HOSTILE),
  'errors.errorView': () => errors.errorView(400, HOSTILE, [{ [HOSTILE]: [HOSTILE] }], frame),
  'html.html': () => html`<p title="${HOSTILE}">${HOSTILE}</p>`,
  'html.escapeHtml': () => `<p title="${htmlModule.escapeHtml(HOSTILE)}">${htmlModule.escapeHtml(HOSTILE)}</p>`,
  'html.safeHref': () => `<a href="${htmlModule.escapeHtml(safeHref(HOSTILE))}">x</a>`,
  'layout.page': () => layout.page({ title: HOSTILE, actor, csrf: HOSTILE, current: HOSTILE }, html`${HOSTILE}`),
  'layout.notice': () => layout.notice('status', HOSTILE),
  'layout.postForm': () => layout.postForm(`/console/${HOSTILE}`, HOSTILE, html`${HOSTILE}`),
  'lists.searchForm': () => lists.searchForm(`/console/${HOSTILE}`, HOSTILE, HOSTILE),
  'lists.pager': () => lists.pager(`/console/${HOSTILE}`, pageOf([1]), HOSTILE),
  'lists.table': () =>
    lists.table(
      [HOSTILE],
      [
        html`<tr>
          <td>${HOSTILE}</td>
        </tr>`,
      ],
    ),
})

test('safeHref keeps http(s) and mailto links and turns every other scheme into #', () => {
  assert.equal(safeHref('https://example.com/a?b=1'), 'https://example.com/a?b=1')
  assert.equal(safeHref('mailto:orders@example.com'), 'mailto:orders@example.com')
  for (const bad of [
    'javascript:alert(1)',
    ' JavaScript:alert(1)',
    'data:text/html,<p>',
    'vbscript:x',
    '//evil',
    'no url',
  ])
    assert.equal(safeHref(bad), '#', bad)
})

test('format.when writes an instant as the en-GB medium date and short time in UTC, without Intl', () => {
  const intl = new Intl.DateTimeFormat('en-GB', { dateStyle: 'medium', timeStyle: 'short', timeZone: 'UTC' })
  for (let month = 0; month < 12; month++)
    for (const [day, hour, minute] of [
      [1, 0, 0],
      [9, 9, 5],
      [28, 23, 59],
    ] as const) {
      const instant = new Date(Date.UTC(2026, month, day, hour, minute, 42))
      const text = format.when(instant).toString()
      assert.match(text, new RegExp(`>${intl.format(instant)} UTC</time>$`), instant.toISOString())
    }
  assert.equal(format.when(null).toString(), '—')
  assert.equal(format.when('not a date', 'never').toString(), 'never')
})

/**
 * Vendors → Import from CSV: the form (a file, read into the box by the console's script, or the text
 * pasted), and the preview — every row with its problems, and the button that imports all rows only when
 * none has one.
 */
import { fieldId, type Errors } from './forms.ts'
import { html, type Html } from './html.ts'
import { notice, page, postForm, type Frame } from './layout.ts'
import { VENDOR_LABELS } from './vendors.ts'

export const IMPORT_BASE = '/console/vendors/import'

/** One row of the file as read: its line, its fields by column, and what is wrong with it. */
export interface ImportRow {
  line: number
  values: Readonly<Record<string, string>>
  errors: Errors
  /** The row repeats an existing vendor exactly (as an export does): it is not imported again. */
  unchanged?: boolean
}

/** The form: a file or pasted text; `problem` (a file that could not be read) stands above it. */
function importForm(csv: string, csrf: string, problem?: string): Html {
  const id = fieldId('csv')
  return html`${postForm(
    IMPORT_BASE,
    csrf,
    html`<div class="field">
        <label for="csv-file">CSV file</label>
        <p class="hint" id="csv-file-hint">Choosing a file puts its text in the box below.</p>
        <input type="file" id="csv-file" accept=".csv,text/csv" data-fills="${id}" aria-describedby="csv-file-hint" />
      </div>
      <div class="field">
        <label for="${id}">CSV text</label>
        <p class="hint" id="${id}-hint">
          The first line names the columns, as in the template; one vendor a line, at most 1,000.
        </p>
        ${problem === undefined ? '' : html`<p class="field-error" id="${id}-error">${problem}</p>`}
        <textarea
          id="${id}"
          name="csv"
          rows="10"
          required
          aria-describedby="${id}-hint${problem === undefined ? '' : ` ${id}-error`}"
          ${problem === undefined ? '' : html`aria-invalid="true"`}
        >
${csv}</textarea>
      </div>
      <p><button type="submit">Preview</button></p>`,
  )}`
}

/** The import page: what the file holds, the template, the form. */
export function importView(csv: string, { actor, csrf }: Frame, problem?: string): string {
  const body = html`${problem === undefined ? '' : notice('alert', problem)}
    <p>
      Add many vendors at once from a CSV file. Nothing is imported until you have seen every row in the preview, and
      then all rows are imported or none.
    </p>
    <p>
      <a class="button secondary" href="${IMPORT_BASE}/template.csv" download>Download the template</a>
      <a href="/console/vendors">Back to vendors</a>
    </p>
    ${importForm(csv, csrf, problem)}`
  return page({ title: 'Import vendors', actor, csrf, current: 'vendors' }, body)
}

const problemsOf = (errors: Errors): string =>
  Object.entries(errors)
    .map(([field, messages]) => `${VENDOR_LABELS[field] ?? field}: ${messages.join('; ')}`)
    .join(' · ')

/** The preview: every row, its problems; the import button only when there are none. */
export function previewView(rows: readonly ImportRow[], csv: string, { actor, csrf }: Frame, problem?: string): string {
  const refused = rows.filter((r) => Object.keys(r.errors).length > 0)
  const unchanged = rows.filter((r) => r.unchanged === true).length
  const fresh = rows.length - unchanged
  const same =
    unchanged === 0
      ? ''
      : ` ${unchanged} ${unchanged === 1 ? 'row repeats an existing vendor' : 'rows repeat existing vendors'} unchanged and ${unchanged === 1 ? 'is' : 'are'} left alone.`
  const top =
    refused.length === 0 && problem === undefined
      ? notice('status', `${fresh} ${fresh === 1 ? 'vendor is' : 'vendors are'} ready to import.${same}`)
      : notice(
          'alert',
          html`${problem ?? ''} ${refused.length} of ${rows.length} rows have problems (listed below). Fix them in the
          file and preview again; nothing has been imported.`,
        )
  const body = html`${top}
    <div class="table-wrap">
      <table>
        <caption class="muted">
          The rows of the file, as they would be imported
        </caption>
        <thead>
          <tr>
            <th scope="col">Line</th>
            <th scope="col">Name</th>
            <th scope="col">External ID</th>
            <th scope="col">City</th>
            <th scope="col">E-mail addresses</th>
            <th scope="col">Problems</th>
          </tr>
        </thead>
        <tbody>
          ${rows.map(
            (r) =>
              html`<tr ${Object.keys(r.errors).length > 0 ? html`class="refused"` : ''}>
                <td>${r.line}</td>
                <td>${r.values.name ?? ''}</td>
                <td>${r.values.external_id ?? ''}</td>
                <td>${r.values.city ?? ''}</td>
                <td>${r.values.email ?? ''}</td>
                <td>
                  ${
                    Object.keys(r.errors).length > 0
                      ? problemsOf(r.errors)
                      : r.unchanged === true
                        ? 'none (unchanged: left alone)'
                        : 'none'
                  }
                </td>
              </tr>`,
          )}
        </tbody>
      </table>
    </div>
    ${
      refused.length === 0 && problem === undefined
        ? postForm(
            `${IMPORT_BASE}/confirm`,
            csrf,
            html`<input type="hidden" name="csv" value="${csv}" />
              <p>
                <button type="submit">Import ${fresh} ${fresh === 1 ? 'vendor' : 'vendors'}</button>
                <a href="${IMPORT_BASE}">Start again</a>
              </p>`,
          )
        : html`<h2>Fix and preview again</h2>
            ${importForm(csv, csrf)}`
    }`
  return page({ title: 'Import vendors: preview', actor, csrf, current: 'vendors' }, body)
}

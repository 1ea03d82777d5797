/**
 * The Attachments box and the Comments thread every document page of the console ends with (DECISIONS,
 * "Attachments and comments"): the files (name, type in words, size, who uploaded them and when, a download
 * link, Delete where the person may), an upload form that works without JavaScript, the comments (author,
 * time, the body as plain text, Delete where allowed) and a form to add one. The data is read by
 * pages/attachments.ts through the attachment and comment services, which also enforce every rule.
 *
 * An upload form is `multipart/form-data` with its hidden `_csrf` input FIRST: the console reads that part
 * before any byte of the file (console/multipart.ts).
 */
import type { Attachment, CommentView } from '../../attachments/schema.ts'
import { when } from './format.ts'
import { html, type Html } from './html.ts'
import { notice, page, type Frame } from './layout.ts'
import { emptyState } from './lists.ts'
import { personName } from './requests.ts'

/** What a finished attachment or comment action says on the document's page (`?done=…`). */
export const ATTACHMENT_FLASH: Readonly<Record<string, string>> = {
  attached: 'The file is attached.',
  detached: 'The attachment was deleted.',
  commented: 'Your comment was added.',
  uncommented: 'The comment was deleted.',
  receipt: 'The receipt is attached to its line.',
}

const TYPE_NAMES: Readonly<Record<string, string>> = {
  'application/pdf': 'PDF document',
  'image/png': 'PNG image',
  'image/jpeg': 'JPEG image',
  'image/gif': 'GIF image',
  'image/webp': 'WebP image',
  'image/tiff': 'TIFF image',
  'image/heic': 'HEIC image',
  'image/heif': 'HEIF image',
  'text/plain': 'Plain text',
  'text/csv': 'CSV table',
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document': 'Word document (DOCX)',
  'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet': 'Excel workbook (XLSX)',
  'application/vnd.oasis.opendocument.text': 'OpenDocument text (ODT)',
  'application/vnd.oasis.opendocument.spreadsheet': 'OpenDocument spreadsheet (ODS)',
  'message/rfc822': 'E-mail (EML)',
}

/** A detected type in words: "PDF document", "PNG image"; an unknown one as it is. */
export const typeInWords = (contentType: string): string => TYPE_NAMES[contentType] ?? contentType

/** A size in words: "512 bytes", "48 KB", "1.2 MB" (1 KB = 1,024 bytes). */
export function sizeInWords(bytes: number): string {
  if (bytes < 1024) return `${bytes} ${bytes === 1 ? 'byte' : 'bytes'}`
  const units = ['KB', 'MB', 'GB']
  let value = bytes / 1024
  let unit = 0
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024
    unit++
  }
  return `${value >= 10 ? Math.round(value) : Math.round(value * 10) / 10} ${units[unit]}`
}

/** Who is looking and what they may do here; `path` is the document's console page (`/console/bills/12`). */
export interface BoxView {
  type: string
  id: number
  path: string
  /** How the page names its document in sentences: "this request", "this bill". */
  noun: string
  attachments: readonly Attachment[]
  comments: readonly CommentView[]
  /** May add attachments and comments (the services' "right to act"). */
  canAct: boolean
  /** The attachments and comments Delete is offered for (the services decide again when it is pressed). */
  deletableAttachments: ReadonlySet<number>
  deletableComments: ReadonlySet<number>
  /** ATTACHMENT_MAX_BYTES, for the hint. */
  maxBytes: number
}

const ACCEPTED =
  'A PDF, an image (PNG, JPEG, GIF, WebP, TIFF, HEIC), plain text or CSV, a DOCX, XLSX, ODT or ODS document, or an e-mail (EML)'

/** A POST form with the CSRF token and one submit button, inline. */
const deleteForm = (action: string, csrf: string, label: Html) =>
  html`<form method="post" action="${action}" class="inline">
    <input type="hidden" name="_csrf" value="${csrf}" /><button type="submit" class="secondary">${label}</button>
  </form>`

function attachmentItem(view: BoxView, a: Attachment, csrf: string): Html {
  const inherited = a.document.type !== view.type || a.document.id !== view.id
  return html`<li>
    <a href="/console/attachments/${a.id}" download>${a.filename}</a>
    <span class="muted"
      >${typeInWords(a.content_type)} · ${sizeInWords(a.size)} · uploaded by ${personName(a.uploaded_by)},
      ${when(a.created_at)}${a.scan_status === 'clean' ? ' · scanned, no virus found' : ''}</span
    >
    ${a.description === '' ? '' : html`<span class="attachment-description">${a.description}</span>`}
    ${a.vendor_visible ? html`<span class="tag">Sent to the vendor with the order</span>` : ''}
    ${inherited ? html`<span class="tag">From the request</span>` : ''}
    ${
      view.deletableAttachments.has(a.id)
        ? deleteForm(
            `${view.path}/attachments/${a.id}/delete`,
            csrf,
            html`Delete<span class="visually-hidden"> ${a.filename}</span>`,
          )
        : ''
    }
  </li>`
}

/** The Attachments box of one document page. */
export function attachmentsBox(view: BoxView, { csrf }: Frame): Html {
  const upload = html`<form method="post" action="${view.path}/attachments" enctype="multipart/form-data" class="card">
    <input type="hidden" name="_csrf" value="${csrf}" />
    <label for="attachment-file">Add a file</label>
    <p class="hint" id="attachment-file-hint">${ACCEPTED}; at most ${sizeInWords(view.maxBytes)}.</p>
    <input type="file" id="attachment-file" name="file" required aria-describedby="attachment-file-hint" />
    <label for="attachment-description">Description <span class="muted">(optional)</span></label>
    <input type="text" id="attachment-description" name="description" maxlength="1000" />
    ${
      view.type === 'purchase_order'
        ? html`<div class="field checkbox">
            <input type="checkbox" id="attachment-vendor-visible" name="vendor_visible" value="true" />
            <label for="attachment-vendor-visible">Send it to the vendor with the order’s e-mail</label>
          </div>`
        : ''
    }
    <p><button type="submit">Attach the file</button></p>
  </form>`
  return html`<section aria-labelledby="attachments" class="attachments">
    <h2 id="attachments">Attachments</h2>
    ${
      view.attachments.length === 0
        ? emptyState(`No files attached to ${view.noun} yet.`)
        : html`<ul class="attachment-list">
            ${view.attachments.map((a) => attachmentItem(view, a, csrf))}
          </ul>`
    }
    ${view.canAct ? upload : html`<p class="muted">Adding files needs the right to act on ${view.noun}.</p>`}
  </section>`
}

/** The comment form, with what was typed kept (after a refusal). */
export function commentForm(path: string, csrf: string, typed = ''): Html {
  return html`<form method="post" action="${path}/comments" class="card">
    <input type="hidden" name="_csrf" value="${csrf}" />
    <label for="comment-body">Add a comment</label>
    <p class="hint" id="comment-body-hint">
      Plain text, up to 5,000 characters. Mention someone with @ and their e-mail (e.g. @ada@example.com): they get an
      e-mail with a link here.
    </p>
    <textarea id="comment-body" name="body" rows="3" maxlength="5000" required aria-describedby="comment-body-hint">
${typed}</textarea>
    <p><button type="submit">Add the comment</button></p>
  </form>`
}

/** The Comments thread of one document page, oldest first. */
export function commentsThread(view: BoxView, { csrf }: Frame): Html {
  return html`<section aria-labelledby="comments" class="comments">
    <h2 id="comments">Comments</h2>
    ${
      view.comments.length === 0
        ? emptyState(`No comments on ${view.noun} yet.`)
        : html`<ol class="comment-list">
            ${view.comments.map(
              (c) =>
                html`<li>
                  <p class="comment-meta"><strong>${personName(c.author)}</strong> · ${when(c.created_at)}</p>
                  <p class="comment-body">${c.body}</p>
                  ${
                    c.mentions.length === 0
                      ? ''
                      : html`<p class="muted">Mentions ${c.mentions.map((m) => personName(m)).join(', ')}</p>`
                  }
                  ${
                    view.deletableComments.has(c.id)
                      ? deleteForm(
                          `${view.path}/comments/${c.id}/delete`,
                          csrf,
                          html`Delete<span class="visually-hidden"> the comment by ${personName(c.author)}</span>`,
                        )
                      : ''
                  }
                </li>`,
            )}
          </ol>`
    }
    ${view.canAct ? commentForm(view.path, csrf) : html`<p class="muted">Commenting needs the right to act on ${view.noun}.</p>`}
  </section>`
}

/** Both, as a document page ends with them. */
export const documentBoxes = (view: BoxView, frame: Frame): Html =>
  html`${attachmentsBox(view, frame)} ${commentsThread(view, frame)}`

/**
 * A refused upload, comment or delete as a page of its own: what went wrong and what to do (the service's
 * sentence), a link back to the document, and for a comment the form again with what was typed.
 */
export function attachmentProblemView(
  title: string,
  text: string,
  back: { path: string; label: string; comment?: string | undefined },
  frame: Frame,
): string {
  const body = html`${notice('alert', text)}
    <p><a href="${back.path}">Back to ${back.label}</a></p>
    ${back.comment === undefined ? '' : commentForm(back.path, frame.csrf, back.comment)}`
  return page({ title, actor: frame.actor, csrf: frame.csrf }, body)
}

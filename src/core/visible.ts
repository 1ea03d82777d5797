/**
 * Text shown to a person, in HTML or in an SVG drawing: C0 controls but tab and line breaks, DEL, C1 controls,
 * and the bidirectional marks, embeddings and isolates become U+FFFD. A name cannot reorder what it reads
 * (`gpj\u202eexe.jpg`), and what is written stays well-formed XML (no NUL, no ESC).
 */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const HIDDEN = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g

export const visible = (text: string): string => text.replace(HIDDEN, '\ufffd')

/**
 * A document's status machine, one way for every document: an action allowed only from some statuses is
 * refused from any other with a 409 that names the current status and the ones it needs — "Bill INV-7 is
 * paid; only a draft bill can be submitted."
 */
import { conflict } from './problem.ts'

const vowel = /^[aeiou]/
/** `draft` → `a draft`, `issued` → `an issued`, `pending_approval` → `a pending`. */
const withArticle = (status: string) => {
  const word = status === 'pending_approval' ? 'pending' : status.replace(/_/g, ' ')
  return `${vowel.test(word) ? 'an' : 'a'} ${word}`
}

/**
 * 409 unless `current` is one of `allowed`. `subject` names the document as a sentence starts ("Bill INV-7",
 * "The purchase order"), `noun` is its kind ("bill", "order"), `action` what was asked ("submitted").
 */
export function requireStatus<S extends string>(
  document: { subject: string; noun: string },
  current: S,
  allowed: readonly S[],
  action: string,
): void {
  if (allowed.includes(current)) return
  const statuses = allowed.map(withArticle).join(' or ')
  throw conflict(`${document.subject} is ${current}; only ${statuses} ${document.noun} can be ${action}.`)
}

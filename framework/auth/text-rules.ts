/**
 * Rules for the text people type into the auth routes (issue 11, item 4):
 * `victim@example.com\u0000` registered a second account, shown and mailed
 * as `victim@example.com`. Every text field refuses control and invisible
 * characters (422), and email addresses are normalised before they are
 * compared or stored: trimmed, NFC, lower-cased as a whole. Look-alike
 * characters (Cyrillic "а" for Latin "a") are not refused: see
 * docs/authentication.md, "Text fields", for why.
 */
import * as v from 'valibot'
import { namedCheck } from '../validation/issues.ts'

/**
 * What a text field may not contain: control characters (C0, DEL, C1),
 * format characters (zero-width space/joiners, bidirectional overrides and
 * isolates, the byte-order mark, soft hyphen, tag characters), line and
 * paragraph separators, and the Hangul fillers that render as nothing.
 */
export const INVISIBLE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\u115F\u1160\u3164\uFFA0]/u

/** True when `text` has no control or invisible character. */
export function isVisibleText(text: string): boolean {
  return !INVISIBLE.test(text)
}

/** A pipe action refusing control and invisible characters (rule `visible`: "must not contain control or invisible characters"). */
export function visibleText() {
  return v.check(namedCheck('visible', isVisibleText))
}

/**
 * The one form an address is compared and stored in: Unicode NFC, then lower
 * case as a whole (trimmed before, by the field). Two accounts cannot differ
 * only by case or by how an accented letter is encoded.
 */
export function normalizeEmail(address: string): string {
  return address.normalize('NFC').toLowerCase()
}

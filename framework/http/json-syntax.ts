/**
 * Where a text stops being JSON, found by svc itself: each engine words its
 * SyntaxError differently (V8 names a position, JavaScriptCore names none),
 * so the 400 for a malformed body could not say where on every runtime by
 * reading the message. The grammar is RFC 8259's, which `JSON.parse` reads.
 * Iterative: a body may nest deeper than the stack.
 */

const QUOTE = 0x22
const BACKSLASH = 0x5c
const COMMA = 0x2c
const COLON = 0x3a
const OPEN_OBJECT = 0x7b
const CLOSE_OBJECT = 0x7d
const OPEN_ARRAY = 0x5b
const CLOSE_ARRAY = 0x5d
const MINUS = 0x2d
const PLUS = 0x2b
const DOT = 0x2e
const ZERO = 0x30
const NINE = 0x39
const ESCAPED = new Set([...'"\\/bfnrt'].map((char) => char.charCodeAt(0)))
const LITERALS = new Map(['true', 'false', 'null'].map((word) => [word.charCodeAt(0), word]))

/**
 * The offset (UTF-16 code units) of the first character that makes `text`
 * not JSON; `text.length` when it ends before the JSON is complete;
 * undefined when it is JSON.
 */
export function jsonSyntaxErrorAt(text: string): number | undefined {
  // The closing bracket of each object and array open around the current point, innermost last.
  const closers: number[] = []
  let at = skipSpace(text, 0)
  for (;;) {
    // A value starts at `at` (an object's member: its key first).
    const first = text.charCodeAt(at)
    let end: number
    if (first === OPEN_OBJECT || first === OPEN_ARRAY) {
      const closer = first === OPEN_OBJECT ? CLOSE_OBJECT : CLOSE_ARRAY
      at = skipSpace(text, at + 1)
      if (text.charCodeAt(at) !== closer) {
        closers.push(closer)
        if (closer === CLOSE_ARRAY) continue
        at = memberValueAt(text, at)
        if (at < 0) return ~at
        continue
      }
      end = at + 1
    } else {
      end = first === QUOTE ? stringEnd(text, at) : first === MINUS || isDigit(first) ? numberEnd(text, at) : literalEnd(text, at)
      if (end < 0) return ~end
    }
    // After a value: the end of the text, or a comma and the next item, or the closing bracket.
    for (;;) {
      at = skipSpace(text, end)
      const closer = closers.at(-1)
      if (closer === undefined) return at < text.length ? at : undefined
      const next = text.charCodeAt(at)
      if (next === closer) {
        closers.pop()
        end = at + 1
        continue
      }
      if (next !== COMMA) return Math.min(at, text.length)
      at = skipSpace(text, at + 1)
      if (closer === CLOSE_OBJECT) {
        at = memberValueAt(text, at)
        if (at < 0) return ~at
      }
      break
    }
  }
}

/** Past an object member's key and colon: where its value starts; `~offset` of the error when the key or colon is not there. */
function memberValueAt(text: string, at: number): number {
  if (text.charCodeAt(at) !== QUOTE) return ~Math.min(at, text.length)
  const end = stringEnd(text, at)
  if (end < 0) return end
  const colon = skipSpace(text, end)
  if (text.charCodeAt(colon) !== COLON) return ~Math.min(colon, text.length)
  return skipSpace(text, colon + 1)
}

/** The offset just past the string starting at `at` (a quote), or `~offset` of the error. */
function stringEnd(text: string, at: number): number {
  for (let i = at + 1; i < text.length; i++) {
    const code = text.charCodeAt(i)
    if (code === QUOTE) return i + 1
    if (code < 0x20) return ~i
    if (code !== BACKSLASH) continue
    const escaped = text.charCodeAt(i + 1)
    if (ESCAPED.has(escaped)) {
      i++
      continue
    }
    if (escaped !== 0x75 /* u */) return ~Math.min(i + 1, text.length)
    for (let digit = i + 2; digit < i + 6; digit++) if (!isHexDigit(text.charCodeAt(digit))) return ~Math.min(digit, text.length)
    i += 5
  }
  return ~text.length
}

/** The offset just past the number starting at `at` (a minus or a digit), or `~offset` of the error. */
function numberEnd(text: string, at: number): number {
  let i = at
  if (text.charCodeAt(i) === MINUS) i++
  if (text.charCodeAt(i) === ZERO) i++
  else if (isDigit(text.charCodeAt(i))) i = digitsEnd(text, i)
  else return ~Math.min(i, text.length)
  if (text.charCodeAt(i) === DOT) {
    if (!isDigit(text.charCodeAt(i + 1))) return ~Math.min(i + 1, text.length)
    i = digitsEnd(text, i + 1)
  }
  if ((text.charCodeAt(i) | 0x20) === 0x65 /* e or E */) {
    i++
    if (text.charCodeAt(i) === PLUS || text.charCodeAt(i) === MINUS) i++
    if (!isDigit(text.charCodeAt(i))) return ~Math.min(i, text.length)
    i = digitsEnd(text, i)
  }
  return i
}

/** The offset just past `true`, `false` or `null` at `at`, or `~offset` of the first character that differs. */
function literalEnd(text: string, at: number): number {
  const word = LITERALS.get(text.charCodeAt(at))
  if (word === undefined) return ~Math.min(at, text.length)
  for (let i = 1; i < word.length; i++) if (text.charCodeAt(at + i) !== word.charCodeAt(i)) return ~Math.min(at + i, text.length)
  return at + word.length
}

function digitsEnd(text: string, at: number): number {
  let i = at
  while (isDigit(text.charCodeAt(i))) i++
  return i
}

function skipSpace(text: string, at: number): number {
  let i = at
  for (let code = text.charCodeAt(i); code === 0x20 || code === 0x09 || code === 0x0a || code === 0x0d; code = text.charCodeAt(++i));
  return i
}

// charCodeAt past the end is NaN: no test below holds for it.
const isDigit = (code: number): boolean => code >= ZERO && code <= NINE
const isHexDigit = (code: number): boolean => isDigit(code) || ((code | 0x20) >= 0x61 && (code | 0x20) <= 0x66)

/**
 * Text from outside the CLI (a job's error message, a payload's field) as a
 * terminal line shows it: control characters written as escapes. A raw NUL
 * cuts what a log viewer or `grep` sees, a raw ESC sequence recolours,
 * moves the cursor or retitles the terminal, and a line break splits one
 * line in two. `--json` output never goes through this: JSON escapes them.
 */

/** C0, DEL and C1 controls, line and paragraph separators, and the bidirectional overrides and isolates (text that reads backwards). */
const UNPRINTABLE = /[\p{Cc}\u2028\u2029\u202A-\u202E\u2066-\u2069]/gu

const NAMED: Readonly<Record<string, string>> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' }

export function terminalText(text: string): string {
  return text.replace(UNPRINTABLE, (char) => NAMED[char] ?? `\\u${char.codePointAt(0)!.toString(16).padStart(4, '0')}`)
}

/** As `terminalText`, line by line: a message of several lines (a list of conflicts) keeps its line breaks. */
export function terminalLines(text: string): string {
  return text.split('\n').map(terminalText).join('\n')
}

/**
 * The names users type for the trace tools: the README says traces are
 * searched, inspected and replayed, the list has trace:list beside them,
 * so `trace:search` and `trace:inspect` are the first guesses; the tools
 * live under log: (log:trace, log:replay). Spelling alone sent
 * `trace:search` to route:search and `trace:diff` to trace:list.
 */
import { closestNames } from './suggest.ts'

const SYNONYMS: Readonly<Record<string, string>> = {
  search: 'log:trace',
  find: 'log:trace',
  show: 'log:trace',
  inspect: 'log:trace',
  get: 'log:trace',
  view: 'log:trace',
  diff: 'log:replay',
  compare: 'log:replay',
  regression: 'test:regression',
  why: 'debug:last',
  last: 'debug:last',
}

/** The command a `trace:<word>` name means: a synonym, else log:<word> (trace:replay, trace:tail, trace:stats); undefined otherwise. */
export function traceSynonym(name: string, known: ReadonlySet<string>): string | undefined {
  const match = /^traces?:(.+)$/.exec(name)
  if (match === null) return undefined
  const exact = meaning(match[1]!)
  if (known.has(exact)) return exact
  // The word misspelt too (trace:serch, trace:tial): the closest synonym or log: word, as a command name would be.
  const words = [...Object.keys(SYNONYMS), ...[...known].filter((each) => each.startsWith('log:')).map((each) => each.slice(4))]
  const [closest] = closestNames(match[1]!, words, 1)
  return closest === undefined || !known.has(meaning(closest)) ? undefined : meaning(closest)
}

function meaning(word: string): string {
  return Object.hasOwn(SYNONYMS, word) ? SYNONYMS[word]! : `log:${word}`
}

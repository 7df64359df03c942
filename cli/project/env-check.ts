/**
 * `svc env:check`: every problem of `.env` (with the process environment over
 * it, as the app sees them), checked against what the app reads:
 *
 * - values the settings readers refuse (numbers, ranges, enums, JWT_SECRET's
 *   length, a required secret or key pair missing): errors, all of them
 *   (settings.ts);
 * - URLs (`*_URL`) that do not parse, or use a scheme svc cannot use: errors;
 * - names svc does not read that look like one it does (`JWT_SECRT`): warnings;
 * - a name set twice in `.env` (the last one wins), an unquoted value with a
 *   `#` (cut there: the rest is a comment): warnings;
 * - the app's own names (not svc's, which have defaults) that `.env.example`
 *   lists and `.env` lacks: warnings;
 * - no `.env` at all: an error, unless the environment itself carries the settings (APP_ENV set).
 */
import { existsSync, readFileSync, statSync } from 'node:fs'
import { resolve } from 'node:path'
import { readEnvFile, readJwtKeyFiles } from '../../framework/node/index.ts'
import { editDistance } from '../command/suggest.ts'
import type { EnvProblemJson } from '../contract/operations.ts'
import { realEnvironment } from './config-cache.ts'
import type { Project } from './project.ts'
import { settingNames, settingProblems } from './settings.ts'

const URL_SCHEMES: Record<string, readonly string[]> = {
  DATABASE_URL: ['file:', 'libsql:', 'http:', 'https:', 'ws:', 'wss:'],
  TRACE_DATABASE_URL: ['file:', 'libsql:', 'http:', 'https:', 'ws:', 'wss:'],
  // The queue's Redis (docs/queues.md): it was checked as a web URL, so its documented default was an error.
  REDIS_URL: ['redis:', 'rediss:'],
}
const WEB_SCHEMES = ['http:', 'https:']

export function checkEnvironment(project: Project): EnvProblemJson[] {
  const problems: EnvProblemJson[] = []
  const env = realEnvironment(project)
  const exists = existsSync(project.envFile)
  if (!exists && !project.env.APP_ENV) {
    problems.push({
      variable: '.env',
      level: 'error',
      message: `${project.envFile} does not exist, and the environment sets no APP_ENV`,
      fix: 'svc serve creates one in development; or copy .env.example to .env and run svc key:generate',
    })
  }

  const refused = new Set<string>()
  for (const problem of settingProblems(env, { jwtKeys: readJwtKeyFiles(project.storageDir) })) {
    refused.add(problem.variable)
    problems.push({ variable: problem.variable, level: 'error', message: problem.message, fix: `set a valid ${problem.variable} in ${project.envFile} (or the environment)` })
  }

  // The process environment holds other programs' variables too (BASE_URL...): only the app's are checked.
  const known = settingNames(env)
  const fileVars = readEnvFile(project.envFile)
  for (const [name, value] of Object.entries(env)) {
    if (!name.endsWith('_URL') || !(known.has(name) || name in fileVars) || value === undefined || value.trim() === '') continue
    // Its settings reader refused it already, with its own words: one error per value.
    if (refused.has(name)) continue
    const schemes = URL_SCHEMES[name] ?? WEB_SCHEMES
    const scheme = /^[A-Za-z][A-Za-z0-9+.-]*:/.exec(value.trim())?.[0].toLowerCase()
    let parses = true
    try {
      new URL(value.trim())
    } catch {
      parses = false
    }
    if (parses && scheme === 'file:' && schemes.includes(scheme) && isFolder(resolve(project.root, value.trim().slice('file:'.length)))) {
      problems.push({
        variable: name,
        level: 'error',
        message: `"${value}" names a folder, not a database file`,
        fix: name === 'DATABASE_URL' ? 'file:storage/database.sqlite (a file in that folder), or empty for the default file' : 'file:storage/traces.sqlite (a file in that folder), or empty for the default file',
      })
      continue
    }
    if (!parses || scheme === undefined || !schemes.includes(scheme)) {
      problems.push({
        variable: name,
        level: 'error',
        message: `"${value}" is not a ${schemes.map((item) => item.slice(0, -1)).join(', ')} URL`,
        fix: name === 'DATABASE_URL' ? 'file:storage/database.sqlite, libsql://<db>.turso.io, or empty for the default file' : `a full URL, such as https://api.example.com`,
      })
    }
  }

  if (exists) {
    for (const name of Object.keys(fileVars)) {
      if (known.has(name)) continue
      // A typo of a name svc reads; anything else is the app's own setting.
      const suggestion = [...known].find((candidate) => editDistance(name, candidate) <= 2)
      if (suggestion !== undefined) {
        problems.push({ variable: name, level: 'warning', message: `svc reads no ${name}`, fix: `did you mean ${suggestion}?` })
      }
    }
    const text = readFileSync(project.envFile, 'utf8')
    for (const { name, line } of valuesCutAtHash(text)) {
      problems.push({
        variable: name,
        level: 'warning',
        message: `line ${line}: the value is cut at "#" (what follows is read as a comment)`,
        fix: `quote the value: ${name}="..."`,
      })
    }
    for (const [name, lines] of repeatedNames(text)) {
      problems.push({ variable: name, level: 'warning', message: `set ${lines.length} times (lines ${lines.join(', ')}): the last one wins`, fix: `keep one ${name} line` })
    }
    if (existsSync(project.envExampleFile) && project.envExampleFile !== project.envFile) {
      // svc's own settings have defaults; an app's own (MAIL_HOST) are what the example promises the app reads.
      for (const name of Object.keys(readEnvFile(project.envExampleFile))) {
        if (!known.has(name) && !(name in fileVars) && env[name] === undefined) {
          problems.push({ variable: name, level: 'warning', message: `listed in ${project.envExampleFile} but not set`, fix: `add ${name}= to ${project.envFile} (an empty value keeps the default)` })
        }
      }
    }
  }
  return problems
}

/** `NAME=abc#def`: an unquoted value with a `#` in it (a generated secret often has one) ends there. */
function valuesCutAtHash(text: string): Array<{ name: string; line: number }> {
  const found: Array<{ name: string; line: number }> = []
  text.split('\n').forEach((line, index) => {
    const match = /^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=\s*([^'"`\s#][^#]*#.*)$/.exec(line)
    if (match) found.push({ name: match[1]!, line: index + 1 })
  })
  return found
}

function repeatedNames(text: string): Map<string, number[]> {
  const seen = new Map<string, number[]>()
  text.split('\n').forEach((line, index) => {
    const match = /^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=/.exec(line)
    if (match) seen.set(match[1]!, [...(seen.get(match[1]!) ?? []), index + 1])
  })
  return new Map([...seen].filter(([, lines]) => lines.length > 1))
}

/** A `file:` URL's path that is a folder (`file:`, `file:storage`): the driver cannot open it as a database. */
function isFolder(path: string): boolean {
  return statSync(path, { throwIfNoEntry: false })?.isDirectory() === true
}

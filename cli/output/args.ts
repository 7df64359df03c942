/** Argument fragments shared by commands, declared once and spread into their `args`. */
import type { ArgsDef } from '../command/define.ts'

export const cwdArg = {
  cwd: { type: 'string', description: 'Project folder (default: the current folder)', valueHint: 'dir' },
} as const satisfies ArgsDef

export const jsonArg = {
  json: { type: 'boolean', description: 'Print stable JSON on stdout' },
} as const satisfies ArgsDef

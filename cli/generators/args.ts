/** The options every `make:*` command shares, declared once. */
import type { ArgsDef } from '../command/define.ts'
import { cwdArg, jsonArg } from '../output/args.ts'
import { FIELD_TYPES } from './fields.ts'

export const generatorArgs = {
  ...cwdArg,
  ...jsonArg,
  force: { type: 'boolean', description: 'Overwrite files that exist (by default they are kept and listed)' },
} as const satisfies ArgsDef

export const nameArg = {
  name: { type: 'positional', description: 'What to name it: Post, BlogPost, Admin/Post (a nested folder)', valueHint: 'name' },
} as const satisfies ArgsDef

export const fieldsArg = {
  fields: {
    type: 'string',
    description: `Columns as <name>:<type>[?], comma-separated (${FIELD_TYPES.join(', ')}; ? for optional; author_id:references:users names a foreign key's table)`,
    valueHint: 'columns',
  },
} as const satisfies ArgsDef

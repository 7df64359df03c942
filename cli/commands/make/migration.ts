import { defineCommand } from '../../command/define.ts'
import { fieldsArg, generatorArgs, nameArg } from '../../generators/args.ts'
import { runGenerator } from '../../generators/run.ts'

export default defineCommand({
  meta: { name: 'make:migration', group: 'Generators', description: 'A migration: create_posts_table, add_slug_to_posts_table, or blank (database/migrations)', json: ['MakeJson'] },
  args: {
    ...nameArg,
    ...generatorArgs,
    ...fieldsArg,
  },
  run({ args, io, json }) {
    return runGenerator(io, args, json, (generator) => generator.migration(String(args.name), { fields: args.fields }), ['svc migrate'])
  },
})

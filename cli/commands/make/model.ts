import { defineCommand } from '../../command/define.ts'
import { fieldsArg, generatorArgs, nameArg } from '../../generators/args.ts'
import { runGenerator } from '../../generators/run.ts'

export default defineCommand({
  meta: { name: 'make:model', group: 'Generators', description: 'A model: the row type, fillable columns, casts (app/models)', json: ['MakeJson'] },
  args: {
    ...nameArg,
    ...generatorArgs,
    ...fieldsArg,
    // -m: what Laravel's make:model takes.
    migration: { type: 'boolean', alias: 'm', description: 'Also write the create-table migration' },
  },
  run({ args, io, json }) {
    return runGenerator(io, args, json, (generator) => generator.model(String(args.name), { fields: args.fields, migration: args.migration }), ['svc migrate'])
  },
})

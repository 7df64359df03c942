import { defineCommand } from '../../command/define.ts'
import { fieldsArg, generatorArgs, nameArg } from '../../generators/args.ts'
import { runGenerator } from '../../generators/run.ts'

export default defineCommand({
  meta: { name: 'make:repository', group: 'Generators', description: 'A repository class: reads and writes one model (app/repositories)', json: ['MakeJson'] },
  args: {
    ...nameArg,
    ...generatorArgs,
    ...fieldsArg,
  },
  run({ args, io, json }) {
    return runGenerator(io, args, json, (generator) => generator.repository(String(args.name), { fields: args.fields }), [])
  },
})

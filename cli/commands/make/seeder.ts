import { defineCommand } from '../../command/define.ts'
import { generatorArgs, nameArg } from '../../generators/args.ts'
import { runGenerator } from '../../generators/run.ts'

export default defineCommand({
  meta: { name: 'make:seeder', group: 'Generators', description: 'A seeder: rows svc db:seed inserts (database/seeders)', json: ['MakeJson'] },
  args: {
    ...nameArg,
    ...generatorArgs,
    count: { type: 'number', integer: true, min: 1, max: 100000, default: 10, description: 'Rows from the model factory, when the app has one' },
  },
  run({ args, io, json }) {
    return runGenerator(io, args, json, (generator) => generator.seeder(String(args.name), { count: args.count }), ['svc db:seed'])
  },
})

import { defineCommand } from '../../command/define.ts'
import { generatorArgs, nameArg } from '../../generators/args.ts'
import { runGenerator } from '../../generators/run.ts'

export default defineCommand({
  meta: { name: 'make:service', group: 'Generators', description: 'A service class: what the app does, between controller and repository (app/services)', json: ['MakeJson'] },
  args: {
    ...nameArg,
    ...generatorArgs,
  },
  run({ args, io, json }) {
    return runGenerator(io, args, json, (generator) => generator.service(String(args.name)), [])
  },
})

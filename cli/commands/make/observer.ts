import { defineCommand } from '../../command/define.ts'
import { generatorArgs, nameArg } from '../../generators/args.ts'
import { runGenerator } from '../../generators/run.ts'

export default defineCommand({
  meta: { name: 'make:observer', group: 'Generators', description: 'A model observer: runs on create, update, delete (app/observers)', json: ['MakeJson'] },
  args: {
    ...nameArg,
    ...generatorArgs,
  },
  run({ args, io, json }) {
    return runGenerator(io, args, json, (generator) => generator.observer(String(args.name)), [])
  },
})

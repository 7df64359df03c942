import { defineCommand } from '../../command/define.ts'
import { generatorArgs, nameArg } from '../../generators/args.ts'
import { runGenerator } from '../../generators/run.ts'

export default defineCommand({
  meta: { name: 'make:listener', group: 'Generators', description: 'An event listener, registered in app/listeners/index.ts', json: ['MakeJson'] },
  args: {
    ...nameArg,
    ...generatorArgs,
    event: { type: 'string', description: 'The event it listens to (written too if the app lacks it)', valueHint: 'Event' },
    queued: { type: 'boolean', description: 'Run by a queue worker (svc queue:work), not during emit(): queued: true' },
  },
  run({ args, io, json }) {
    return runGenerator(io, args, json, (generator) => generator.listener(String(args.name), { event: args.event, queued: args.queued }))
  },
})

import { defineCommand } from '../../command/define.ts'
import { renderCommandList } from '../../command/help.ts'
import { loadManifest } from '../../command/manifest.ts'
import { jsonArg } from '../../output/args.ts'
import { colors, printLine } from '../../output/print.ts'

export default defineCommand({
  meta: { name: 'list', group: 'General', description: 'List all commands, grouped', json: ['CommandListJson'] },
  args: {
    ...jsonArg,
    raw: { type: 'boolean', description: 'One command name a line' },
  },
  async run({ args, io, json }) {
    const { commands } = await loadManifest()
    if (args.json) return json({ commands: commands.map(({ name, group, description, aliases }) => ({ name, group, description, aliases })) })
    if (args.raw) return commands.forEach((command) => printLine(io, command.name))
    io.stdout.write(renderCommandList({ commands }, colors(io)))
  },
})

import { defineCommand } from 'citty'
import { jsonArg } from '../output/args.ts'
import { color, printJson, printLine } from '../output/print.ts'
import { commands } from '../registry.ts'

export interface CommandListJson {
  commands: Array<{ name: string; group: string; description: string; aliases: string[] }>
}

export default defineCommand({
  args: {
    ...jsonArg,
    raw: { type: 'boolean', description: 'One command name a line', default: false },
  },
  run({ args }) {
    const sorted = [...commands].sort((a, b) => a.group.localeCompare(b.group) || a.name.localeCompare(b.name))
    if (args.json) {
      const json: CommandListJson = {
        commands: sorted.map(({ name, group, description, aliases }) => ({ name, group, description, aliases: aliases ?? [] })),
      }
      return printJson(json)
    }
    if (args.raw) return sorted.forEach((command) => printLine(command.name))
    const width = Math.max(...sorted.map((command) => command.name.length))
    let group = ''
    for (const command of sorted) {
      if (command.group !== group) {
        if (group !== '') printLine()
        group = command.group
        printLine(color.bold(group))
      }
      const aliases = command.aliases?.length ? color.dim(` (alias: ${command.aliases.join(', ')})`) : ''
      printLine(`  ${color.green(command.name.padEnd(width))}  ${command.description}${aliases}`)
    }
  },
})

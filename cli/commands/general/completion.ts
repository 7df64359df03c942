import { defineCommand } from '../../command/define.ts'
import { loadManifest } from '../../command/manifest.ts'
import { bashCompletionScript } from '../../completion/bash.ts'
import { zshCompletionScript } from '../../completion/zsh.ts'
import { cliVersion } from '../../version.ts'

export default defineCommand({
  meta: { name: 'completion', group: 'General', description: 'Print the shell completion script: every command, alias and option' },
  args: {
    shell: { type: 'positional', description: 'The shell to complete in', options: ['bash', 'zsh'] },
  },
  async run({ args, io }) {
    const manifest = await loadManifest()
    io.stdout.write(args.shell === 'bash' ? bashCompletionScript(manifest, cliVersion()) : zshCompletionScript(manifest, cliVersion()))
  },
})

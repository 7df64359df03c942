/**
 * The zsh completion script (`svc completion zsh`), written from the command
 * manifest: commands and aliases with their descriptions (`_describe`), then
 * each command's options and arguments (`_arguments`). Colons in command
 * names are escaped for `_describe` (`make\:crud:description`), which splits
 * name from description at the first unescaped colon.
 */
import type { CommandManifest } from '../command/manifest.ts'
import { completionCommands, type CompletionCommand, type CompletionOption, type CompletionPositional, type ValueCompletion, shellQuote } from './words.ts'

export function zshCompletionScript(manifest: CommandManifest, version: string): string {
  const commands = completionCommands(manifest)
  const described = commands.flatMap((command) => [
    describeEntry(command.names[0]!, command.description),
    ...command.names.slice(1).map((alias) => describeEntry(alias, `${command.description} (alias of ${command.names[0]})`)),
  ])
  return `#compdef svc
# svc ${version}: zsh completion, generated from the commands' metadata by \`svc completion zsh\`.
# This shell (after compinit):  source <(svc completion zsh)
# Every shell:                  svc completion zsh > ~/.zsh/completions/_svc  (a folder in $fpath, before compinit)
# Regenerate it after upgrading svc (new commands and options).

_svc() {
  local -a commands
  commands=(
${described.map((entry) => `    ${shellQuote(entry)}`).join('\n')}
  )
  if (( CURRENT == 2 )); then
    _describe -t commands 'svc command' commands
    return
  fi
  local command=$words[2]
  shift words
  (( CURRENT-- ))
  curcontext="\${curcontext%:*:*}:svc-$command:"
  case $command in
${commands.map(commandCase).join('\n')}
  esac
}

if [[ $funcstack[1] == _svc ]]; then
  _svc "$@"
else
  compdef _svc svc
fi
`
}

function describeEntry(name: string, description: string): string {
  return `${name.replace(/:/g, '\\:')}:${description}`
}

function commandCase(command: CompletionCommand): string {
  const specs = [...command.options.flatMap(optionSpecs), ...command.positionals.map(positionalSpec)]
  return `    (${command.names.join('|')}) _arguments -s -S ${specs.map(shellQuote).join(' ')} ;;`
}

function optionSpecs(option: CompletionOption): string[] {
  const description = `[${bracketed(option.description)}]`
  return option.spellings.map((spelling) => {
    const repeat = option.repeatable ? '*' : ''
    if (option.value === null) return `${repeat}${spelling}${description}`
    // `--name=` takes `--name value` or `--name=value`; `--name=-` only `--name=value` (a value-optional number alone is a switch).
    const takes = spelling.startsWith('--') ? (option.valueOptional ? '=-' : '=') : ''
    return `${repeat}${spelling}${takes}${description}:${valueName(spelling)}:${action(option.value)}`
  })
}

function positionalSpec(positional: CompletionPositional): string {
  const prefix = positional.multiple ? '*:' : positional.required ? ':' : '::'
  return `${prefix}${positional.name}:${action(positional.value)}`
}

function valueName(spelling: string): string {
  return spelling.replace(/^-+/, '')
}

function action(value: ValueCompletion): string {
  switch (value.kind) {
    case 'words':
      return `(${value.words.map((word) => word.replace(/([\\() ])/g, '\\$1')).join(' ')})`
    case 'dir':
      return '_files -/'
    case 'file':
      return '_files'
    case 'any':
      // A space: nothing to complete, the value's name is shown as a hint.
      return ' '
  }
}

/** Inside `[...]` of an _arguments spec: brackets and backslashes escaped. */
function bracketed(text: string): string {
  return text.replace(/([\\[\]])/g, '\\$1')
}

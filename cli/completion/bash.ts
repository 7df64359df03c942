/**
 * The bash completion script (`svc completion bash`), written from the
 * command manifest: every command and alias, each command's options, and the
 * values an option takes. Static: a TAB runs no node process.
 *
 * Colons: bash splits words at `:` (COMP_WORDBREAKS), so in `svc make:c` it
 * replaces only the `c`. With bash-completion loaded, `_init_completion -n :`
 * reads `make:c` as one word and `__ltrim_colon_completions` takes `make:` off
 * each candidate, so the line becomes `make:crud`, not `make:make:crud`.
 * Without bash-completion the script reads the line itself and trims the same
 * way. `=` is handled alike: in `--format=cu` only `cu` is completed.
 */
import type { CommandManifest } from '../command/manifest.ts'
import { completionCommands, type CompletionCommand, type ValueCompletion, shellQuote } from './words.ts'

export function bashCompletionScript(manifest: CommandManifest, version: string): string {
  const commands = completionCommands(manifest)
  const names = commands.flatMap((command) => command.names)
  return `# svc ${version}: bash completion, generated from the commands' metadata by \`svc completion bash\`.
# This shell:     source <(svc completion bash)
# Every shell:    svc completion bash > ~/.local/share/bash-completion/completions/svc
# Regenerate it after upgrading svc (new commands and options).

# The options of a command, as typed (a value-taking option ends with =).
__svc_options() {
  case $1 in
${commands.map((command) => `    ${casePattern(command.names)}) echo ${shellQuote(optionWords(command).join(' '))} ;;`).join('\n')}
  esac
}

# How the value of option $2 of command $1 is completed: a word list, @dir, @file or @any (free text); nothing for a switch.
__svc_option_value() {
  case "$1 $2" in
${commands.flatMap(optionValueCases).join('\n')}
  esac
}

# How the first argument of command $1 is completed (same forms).
__svc_argument_value() {
  case $1 in
${commands.flatMap(argumentValueCase).join('\n')}
  esac
}

__svc_ltrim_colon() {
  if declare -F __ltrim_colon_completions >/dev/null; then
    __ltrim_colon_completions "$1"
  elif [[ $1 == *:* && $COMP_WORDBREAKS == *:* ]]; then
    local colon_word=\${1%"\${1##*:}"} i=\${#COMPREPLY[@]}
    while ((i-- > 0)); do COMPREPLY[i]=\${COMPREPLY[i]#"$colon_word"}; done
  fi
}

__svc_complete_value() {
  case $1 in
    @dir) compopt -o filenames; COMPREPLY=($(compgen -d -- "$cur")) ;;
    @file) compopt -o filenames; COMPREPLY=($(compgen -f -- "$cur")) ;;
    @any) COMPREPLY=() ;;
    *) COMPREPLY=($(compgen -W "$1" -- "$cur")) ;;
  esac
}

_svc() {
  local cur prev words cword split=false
  if declare -F _init_completion >/dev/null; then
    _init_completion -s -n : || return
  else
    # Without bash-completion: the line up to the cursor, split at blanks only (colons stay inside words).
    local line=\${COMP_LINE:0:COMP_POINT}
    read -ra words <<<"$line"
    [[ -z $line || $line == *[[:blank:]] ]] && words+=('')
    cword=$((\${#words[@]} - 1))
    cur=\${words[cword]}
    prev=\${words[cword - 1]}
    if [[ $cur == -*=* ]]; then
      prev=\${cur%%=*}
      cur=\${cur#*=}
      split=true
    fi
  fi

  if ((cword == 1)); then
    if [[ $cur == -* ]]; then
      COMPREPLY=($(compgen -W '--help --version' -- "$cur"))
    else
      COMPREPLY=($(compgen -W ${shellQuote(names.join(' '))} -- "$cur"))
      __svc_ltrim_colon "$cur"
    fi
    return
  fi

  local command=\${words[1]} value
  # --format=<TAB> (split), or --format <TAB>
  if [[ $split == true || $prev == -* ]]; then
    value=$(__svc_option_value "$command" "$prev")
    if [[ -n $value ]]; then
      __svc_complete_value "$value"
      __svc_ltrim_colon "$cur"
      return
    fi
    [[ $split == true ]] && return
  fi

  if [[ $cur == -* ]]; then
    COMPREPLY=($(compgen -W "$(__svc_options "$command")" -- "$cur"))
    [[ \${#COMPREPLY[@]} -eq 1 && \${COMPREPLY[0]} == *= ]] && compopt -o nospace
    return
  fi

  # The first argument, when nothing but options came before it.
  local i
  for ((i = 2; i < cword; i++)); do
    [[ \${words[i]} == -* ]] && continue
    [[ \${words[i - 1]} == -* && \${words[i - 1]} != *=* && -n $(__svc_option_value "$command" "\${words[i - 1]}") ]] && continue
    return
  done
  value=$(__svc_argument_value "$command")
  [[ -n $value ]] && __svc_complete_value "$value"
}

complete -F _svc svc
`
}

/** `serve`, `'log:replay'|'replay'` */
function casePattern(words: string[]): string {
  return words.map(shellQuote).join('|')
}

function optionWords(command: CompletionCommand): string[] {
  return command.options.map((option) => (option.value === null || option.valueOptional ? option.spellings[0]! : `${option.spellings[0]}=`))
}

function optionValueCases(command: CompletionCommand): string[] {
  const cases: string[] = []
  for (const option of command.options) {
    if (option.value === null) continue
    const patterns = command.names.flatMap((name) => option.spellings.map((spelling) => `${name} ${spelling}`))
    cases.push(`    ${casePattern(patterns)}) echo ${shellQuote(valueWord(option.value))} ;;`)
  }
  return cases
}

function argumentValueCase(command: CompletionCommand): string[] {
  const first = command.positionals[0]
  if (first === undefined || first.value.kind === 'any') return []
  return [`    ${casePattern(command.names)}) echo ${shellQuote(valueWord(first.value))} ;;`]
}

function valueWord(value: ValueCompletion): string {
  return value.kind === 'words' ? value.words.join(' ') : `@${value.kind}`
}

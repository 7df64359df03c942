/**
 * Every command's metadata and arguments in one document, so that dispatch,
 * `svc list`, `--help`, the overview and completion need no command module
 * (and none of the framework, jiti or libsql those import).
 *
 * The metadata lives in each command file; the manifest is derived from
 * them: `npm run build` writes it next to the compiled commands
 * (dist/cli/commands/manifest.json, see write-manifest.ts). Run from the
 * sources (tests), it is derived on first use by loading the commands.
 */
import { existsSync, readFileSync } from 'node:fs'
import { commandFolders } from '../commands/index.ts'
import type { AnyCommand, ArgDef, ArgsDef, CommandLoaders, ContractDocumentName, SvcCommandMeta } from './define.ts'
import { CliError } from '../output/cli-error.ts'
import { closestNames } from './suggest.ts'
import { traceSynonym } from './trace-synonyms.ts'

export interface ManifestArg {
  name: string
  type: ArgDef['type']
  description: string
  alias: string | null
  /** Shown as `--name=<valueHint>`; `dir`, `file`, `url` tell completion what to offer. */
  valueHint: string | null
  /** The values an enum (or a positional with `options`) takes. */
  options: string[] | null
  default: string | number | boolean | null
  required: boolean
  multiple: boolean
  valueOptional: boolean
  integer: boolean
  min: number | null
  max: number | null
}

export interface ManifestCommand {
  name: string
  group: string
  description: string
  aliases: string[]
  json: ContractDocumentName[]
  /** The folder under cli/commands/ whose lazy map loads it. */
  folder: string
  args: ManifestArg[]
}

export interface CommandManifest {
  commands: ManifestCommand[]
}

export const MANIFEST_FILE = 'manifest.json'

/** The manifest from the command modules themselves (loads every command). */
export async function buildManifest(): Promise<CommandManifest> {
  const commands: ManifestCommand[] = []
  for (const [folder, loadFolder] of Object.entries(commandFolders)) {
    const loaders: CommandLoaders = (await loadFolder()).default
    for (const [name, load] of Object.entries(loaders)) {
      const command = (await load()).default
      if (command.meta.name !== name) throw new Error(`cli/commands/${folder}/index.ts maps "${name}" to the command named "${command.meta.name}"`)
      commands.push(manifestEntry(command, folder))
    }
  }
  const names = commands.flatMap((command) => [command.name, ...command.aliases])
  const twice = names.find((name, i) => names.indexOf(name) !== i)
  if (twice !== undefined) throw new Error(`Two commands are called "${twice}"`)
  commands.sort((a, b) => a.group.localeCompare(b.group) || a.name.localeCompare(b.name))
  return { commands }
}

export function manifestEntry(command: AnyCommand, folder: string): ManifestCommand {
  const meta: SvcCommandMeta = command.meta
  return {
    name: meta.name,
    group: meta.group,
    description: meta.description,
    aliases: meta.alias === undefined ? [] : [meta.alias].flat(),
    json: [...(meta.json ?? [])],
    folder,
    args: Object.entries(command.svcArgs as ArgsDef).map(([name, def]) => ({
      name,
      type: def.type,
      description: def.description,
      alias: 'alias' in def ? (def.alias ?? null) : null,
      valueHint: 'valueHint' in def ? (def.valueHint ?? null) : null,
      options: def.type === 'enum' || (def.type === 'positional' && def.options !== undefined) ? [...def.options!] : null,
      default: 'default' in def ? (def.default ?? null) : null,
      required: def.type === 'positional' && def.required !== false,
      multiple: (def.type === 'string' || def.type === 'positional') && def.multiple === true,
      valueOptional: def.type === 'number' && def.valueOptional === true,
      integer: def.type === 'number' && def.integer === true,
      min: def.type === 'number' ? (def.min ?? null) : null,
      max: def.type === 'number' ? (def.max ?? null) : null,
    })),
  }
}

let manifest: Promise<CommandManifest> | undefined

/** The built manifest when there is one (the binary), else derived from the sources once per process. */
export function loadManifest(): Promise<CommandManifest> {
  if (manifest === undefined) {
    const file = new URL(`../commands/${MANIFEST_FILE}`, import.meta.url)
    manifest = existsSync(file) ? Promise.resolve(JSON.parse(readFileSync(file, 'utf8')) as CommandManifest) : buildManifest()
  }
  return manifest
}

export function findCommand(manifest: CommandManifest, name: string): ManifestCommand | undefined {
  return manifest.commands.find((command) => command.name === name || command.aliases.includes(name))
}

/** Known command names (and aliases) closest to a mistyped one. */
export function closestCommands(manifest: CommandManifest, name: string): string[] {
  const names = manifest.commands.flatMap((command) => [command.name, ...command.aliases])
  // A command named without its group (`openapi` for make:openapi, `seed` for db:seed) is what the user meant first.
  const ungrouped = names.filter((candidate) => candidate.slice(candidate.lastIndexOf(':') + 1) === name)
  const synonym = traceSynonym(name, new Set(names))
  return [...new Set([...(synonym === undefined ? [] : [synonym]), ...ungrouped, ...closestNames(name, names)])].slice(0, 3)
}

/** The command (or alias) of this name, or E_UNKNOWN_COMMAND with the closest names. */
export function knownCommand(manifest: CommandManifest, name: string): ManifestCommand {
  const entry = findCommand(manifest, name)
  if (entry !== undefined) return entry
  const suggestions = closestCommands(manifest, name)
  throw new CliError('E_UNKNOWN_COMMAND', `Unknown command "${name}"`, {
    hint: suggestions.length > 0 ? `did you mean ${suggestions.join(', ')}? (svc list shows all)` : 'svc list shows all commands',
  })
}

/** The command's module (imports it and whatever it imports). */
export async function loadCommand(entry: ManifestCommand): Promise<AnyCommand> {
  const loadFolder = commandFolders[entry.folder as keyof typeof commandFolders]
  const loaders: CommandLoaders | undefined = loadFolder === undefined ? undefined : (await loadFolder()).default
  const load = loaders?.[entry.name]
  if (load === undefined) throw new Error(`The command manifest is out of date: no "${entry.name}" in cli/commands/${entry.folder} (rebuild svc)`)
  return (await load()).default
}

/**
 * `svc serve:prod --docker`: a Dockerfile and a .dockerignore for the
 * project, written from what the project is (its lock file, its build
 * script, where svc's binary and the storage folder are).
 *
 * - Two stages: `build` installs every dependency and runs the build script
 *   (if any), then prunes the dev dependencies; `runtime` copies the result
 *   into a fresh image. svc loads the app's TypeScript at run time (jiti), so
 *   an app without a build script needs none.
 * - The runtime runs as the image's unprivileged `node` user; the files are
 *   root's, only the storage folder (database, traces, caches, maintenance
 *   state) is the user's, and is a volume.
 * - HEALTHCHECK asks `/health/live` with Node's own fetch (slim images have
 *   no curl). `/health/ready` is for load balancers (it fails during
 *   maintenance, on purpose).
 * - Secrets are never baked in: `.env` is ignored; pass the environment to
 *   the container (`docker run --env-file .env.production`).
 */
import { existsSync, readFileSync } from 'node:fs'
import { isAbsolute, join, relative, resolve, sep } from 'node:path'
import type { Project } from '../project/project.ts'

export interface DockerFiles {
  dockerfile: string
  dockerignore: string
  /**
   * Dependencies installed from a path outside the project (`"svc": "file:../svc"`, as `svc new` writes it in a
   * checkout): outside the build context, the image cannot install them. Name and spec.
   */
  outsideContext: Array<{ name: string; spec: string }>
}

export const NODE_IMAGE = 'node:20-bookworm-slim'

export function dockerFiles(project: Project, port: number): DockerFiles {
  const manifest = readManifest(project.root)
  const lock = existsSync(join(project.root, 'package-lock.json'))
  const install = lock ? 'npm ci' : 'npm install'
  const hasBuild = typeof manifest.scripts?.build === 'string'
  const local = localDependencies(manifest, project.root)
  // A workspace's package.json lists folders npm needs before it installs, and a dependency installed from a path
  // in the project (a packed svc-0.1.0.tgz) must be there too: copy everything first then.
  const copyAllFirst = manifest.workspaces !== undefined || local.some((dependency) => dependency.inside)
  const storage = posix(relative(project.root, project.storageDir)) || 'storage'
  const bin = svcBinary(manifest)

  const dockerfile = `# syntax=docker/dockerfile:1
# Written by \`svc serve:prod --docker\`. Build: docker build -t app .
# Run: docker run --env-file .env.production -p ${port}:${port} -v app-storage:/app/${storage} app
# Secrets come from the environment at run time, never from the image.

FROM ${NODE_IMAGE} AS build
WORKDIR /app
${copyAllFirst ? 'COPY . .' : `COPY package.json ${lock ? 'package-lock.json ' : ''}./`}
RUN ${install}
${copyAllFirst ? '' : 'COPY . .\n'}${hasBuild ? 'RUN npm run build\n' : ''}RUN npm prune --omit=dev

FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production \\
    APP_ENV=production \\
    HOST=0.0.0.0 \\
    PORT=${port}
WORKDIR /app
COPY --from=build /app /app
RUN mkdir -p /app/${storage} && chown -R node:node /app/${storage}
VOLUME ["/app/${storage}"]
USER node
EXPOSE ${port}
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \\
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || ${port}) + '/health/live').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
CMD ["node", "${bin}", "serve:prod"]
`

  const dockerignore = `# Written by \`svc serve:prod --docker\`: what never goes into the image.
.git
node_modules
${storage}/*
!${storage}/.gitkeep
.env
.env.*
!.env.example
*.log
coverage
Dockerfile
.dockerignore
`
  return { dockerfile, dockerignore, outsideContext: local.filter((dependency) => !dependency.inside).map(({ name, spec }) => ({ name, spec })) }
}

interface Manifest {
  name?: string
  scripts?: Record<string, unknown>
  workspaces?: unknown
  bin?: unknown
  dependencies?: Record<string, unknown>
  devDependencies?: Record<string, unknown>
  optionalDependencies?: Record<string, unknown>
}

/** Dependencies npm installs from a path (`file:…`, `./…`, `../…`, `/…`), and whether that path is in the project. */
function localDependencies(manifest: Manifest, root: string): Array<{ name: string; spec: string; inside: boolean }> {
  const found: Array<{ name: string; spec: string; inside: boolean }> = []
  for (const group of [manifest.dependencies, manifest.devDependencies, manifest.optionalDependencies]) {
    for (const [name, spec] of Object.entries(group ?? {})) {
      if (typeof spec !== 'string') continue
      const path = spec.startsWith('file:') ? spec.slice('file:'.length) : /^(\.{1,2}\/|\/)/.test(spec) ? spec : undefined
      if (path === undefined) continue
      const from = relative(root, resolve(root, path))
      found.push({ name, spec, inside: from !== '' && !from.startsWith('..') && !isAbsolute(from) })
    }
  }
  return found
}

function readManifest(root: string): Manifest {
  try {
    return JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as Manifest
  } catch {
    return {}
  }
}

/** svc's binary inside the image: the project's dependency, or (svc's own repository) its built bin. */
function svcBinary(manifest: Manifest): string {
  if (manifest.name === 'svc' && typeof manifest.bin === 'object' && manifest.bin !== null) {
    const own = (manifest.bin as Record<string, unknown>).svc
    if (typeof own === 'string') return posix(own).replace(/^\.\//, '')
  }
  return 'node_modules/svc/dist/cli/bin.js'
}

function posix(path: string): string {
  return path.split(sep).join('/')
}

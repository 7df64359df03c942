/** RS256 key files in `storage/keys/` (`svc key:generate --rs256` writes them; the CLI's apps read them). */
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { PRIVATE_KEY_FILE, PUBLIC_KEY_FILE, type JwtKeyMaterial } from '../auth/keys.ts'

export function jwtKeysDir(storageDir: string): string {
  return join(storageDir, 'keys')
}

/** The PEM files that exist (none is fine: the keys may come from the environment). */
export function readJwtKeyFiles(storageDir: string): JwtKeyMaterial {
  const dir = jwtKeysDir(storageDir)
  const read = (file: string) => (existsSync(join(dir, file)) ? readFileSync(join(dir, file), 'utf8') : undefined)
  const privateKey = read(PRIVATE_KEY_FILE)
  const publicKey = read(PUBLIC_KEY_FILE)
  return { ...(privateKey === undefined ? {} : { privateKey }), ...(publicKey === undefined ? {} : { publicKey }) }
}

/** Writes the pair (private key readable by the owner only); returns the two paths. */
export function writeJwtKeyFiles(storageDir: string, keys: Required<JwtKeyMaterial>): { privateKey: string; publicKey: string } {
  const dir = jwtKeysDir(storageDir)
  mkdirSync(dir, { recursive: true, mode: 0o700 })
  const privateKey = join(dir, PRIVATE_KEY_FILE)
  const publicKey = join(dir, PUBLIC_KEY_FILE)
  writeFileSync(privateKey, keys.privateKey, { mode: 0o600 })
  chmodSync(privateKey, 0o600)
  writeFileSync(publicKey, keys.publicKey, { mode: 0o644 })
  return { privateKey, publicKey }
}

/** RS256 key files in `storage/keys/` (`svc key:generate --rs256` writes them; the CLI's apps read them). */
import { createPrivateKey, createPublicKey, type KeyObject } from 'node:crypto'
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { PRIVATE_KEY_FILE, PUBLIC_KEY_FILE, resolveKeyMaterial, type JwtKeyMaterial } from '../auth/keys.ts'
import { ConfigError, type AppConfig } from '../config/config.ts'

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

/**
 * Checks an RS256 key pair now, synchronously, with node:crypto: a key that
 * cannot be read, is not RSA, or a public key of another pair stops start-up
 * with a ConfigError (fetch runtimes find it when the keys are imported, and
 * report it in /health/ready).
 */
export function checkJwtKeyPair(config: AppConfig, files: JwtKeyMaterial): void {
  if (config.jwtAlgorithm !== 'RS256') return
  const material = resolveKeyMaterial(config, files)
  let privateKey: KeyObject
  try {
    privateKey = createPrivateKey(material.privateKey!)
  } catch (error) {
    throw new ConfigError('JWT_PRIVATE_KEY', `cannot read the RS256 private key: ${(error as Error).message}`)
  }
  if (privateKey.asymmetricKeyType !== 'rsa') {
    throw new ConfigError('JWT_PRIVATE_KEY', `RS256 needs an RSA key, got ${privateKey.asymmetricKeyType ?? 'another kind'}`)
  }
  if (material.publicKey === undefined) return
  let publicKey: KeyObject
  try {
    publicKey = createPublicKey(material.publicKey)
  } catch (error) {
    throw new ConfigError('JWT_PUBLIC_KEY', `cannot read the RS256 public key: ${(error as Error).message}`)
  }
  const modulus = (key: KeyObject) => (key.export({ format: 'jwk' }) as { n?: string }).n
  if (modulus(publicKey) !== modulus(createPublicKey(privateKey))) {
    throw new ConfigError('JWT_PUBLIC_KEY', 'does not match JWT_PRIVATE_KEY (they are not one key pair)')
  }
}

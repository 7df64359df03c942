/**
 * JWT keys, imported once per process as CryptoKeys (jose re-imports a raw
 * secret on every verify otherwise, about twice the cost of a verify).
 *
 * - HS256: `JWT_SECRET` (at least 32 characters).
 * - RS256: a PEM pair, `JWT_PRIVATE_KEY` (PKCS#8) and optionally
 *   `JWT_PUBLIC_KEY` (SPKI; derived from the private key when absent), from
 *   the environment or from `storage/keys/` (read by the Node side, written by
 *   `svc key:generate --rs256`). The public key is published as a JWKS.
 */
import { calculateJwkThumbprint, exportJWK, importJWK, importPKCS8, importSPKI, type JWK } from 'jose'
import { ConfigError, type AppConfig, type JwtAlgorithm } from '../config/config.ts'

/** PEM texts of an RS256 key pair. */
export interface JwtKeyMaterial {
  privateKey?: string
  publicKey?: string
}

export interface SigningKeys {
  algorithm: JwtAlgorithm
  signingKey: CryptoKey
  verificationKey: CryptoKey
  /** RS256 only: the key id (RFC 7638 thumbprint) put in token headers and the JWKS. */
  kid: string | undefined
  jwks: { keys: JWK[] } | undefined
}

export const PRIVATE_KEY_FILE = 'jwt-private.pem'
export const PUBLIC_KEY_FILE = 'jwt-public.pem'

/**
 * The key material the app will use: environment values win over files.
 * Throws a ConfigError (the app refuses to start) when it is missing or malformed.
 */
export function resolveKeyMaterial(config: AppConfig, files: JwtKeyMaterial = {}): JwtKeyMaterial {
  if (config.jwtAlgorithm === 'HS256') {
    if (config.jwtSecret === undefined) {
      throw new ConfigError(
        'JWT_SECRET',
        'is required to sign tokens with HS256 (at least 32 characters)',
        'run `svc key:generate` to write one to .env',
      )
    }
    return {}
  }
  const privateKey = pem(config.vars.JWT_PRIVATE_KEY) ?? pem(files.privateKey)
  const publicKey = pem(config.vars.JWT_PUBLIC_KEY) ?? (pem(config.vars.JWT_PRIVATE_KEY) ? undefined : pem(files.publicKey))
  if (privateKey === undefined) {
    throw new ConfigError(
      'JWT_PRIVATE_KEY',
      'JWT_ALGORITHM=RS256 needs a key pair: set JWT_PRIVATE_KEY (and JWT_PUBLIC_KEY) as PEM, or run `svc key:generate --rs256` to create storage/keys/' +
        PRIVATE_KEY_FILE,
    )
  }
  if (!privateKey.includes('-----BEGIN PRIVATE KEY-----')) {
    throw new ConfigError(
      'JWT_PRIVATE_KEY',
      privateKey.includes('BEGIN RSA PRIVATE KEY')
        ? 'is a PKCS#1 key; convert it to PKCS#8 (openssl pkcs8 -topk8 -nocrypt -in key.pem) or run `svc key:generate --rs256`'
        : 'expected a PEM "-----BEGIN PRIVATE KEY-----" (PKCS#8) block',
    )
  }
  if (publicKey !== undefined && !publicKey.includes('-----BEGIN PUBLIC KEY-----')) {
    throw new ConfigError('JWT_PUBLIC_KEY', 'expected a PEM "-----BEGIN PUBLIC KEY-----" (SPKI) block')
  }
  return publicKey === undefined ? { privateKey } : { privateKey, publicKey }
}

export async function importSigningKeys(config: AppConfig, material: JwtKeyMaterial): Promise<SigningKeys> {
  if (config.jwtAlgorithm === 'HS256') {
    const key = await crypto.subtle.importKey(
      'raw',
      new TextEncoder().encode(config.jwtSecret!),
      { name: 'HMAC', hash: 'SHA-256' },
      false,
      ['sign', 'verify'],
    )
    return { algorithm: 'HS256', signingKey: key, verificationKey: key, kid: undefined, jwks: undefined }
  }
  let signingKey: CryptoKey
  try {
    signingKey = await importPKCS8(material.privateKey!, 'RS256', { extractable: true })
  } catch (error) {
    throw new ConfigError('JWT_PRIVATE_KEY', `cannot import the RS256 private key: ${(error as Error).message}`)
  }
  const privateJwk = await exportJWK(signingKey)
  let publicJwk: JWK = { kty: 'RSA', n: privateJwk.n!, e: privateJwk.e! }
  let verificationKey: CryptoKey
  if (material.publicKey !== undefined) {
    try {
      verificationKey = await importSPKI(material.publicKey, 'RS256', { extractable: true })
    } catch (error) {
      throw new ConfigError('JWT_PUBLIC_KEY', `cannot import the RS256 public key: ${(error as Error).message}`)
    }
    const exported = await exportJWK(verificationKey)
    if (exported.n !== publicJwk.n || exported.e !== publicJwk.e) {
      throw new ConfigError('JWT_PUBLIC_KEY', 'does not match JWT_PRIVATE_KEY (they are not one key pair)')
    }
    publicJwk = { kty: 'RSA', n: exported.n!, e: exported.e! }
  } else {
    verificationKey = (await importJWK({ ...publicJwk, alg: 'RS256' }, 'RS256')) as CryptoKey
  }
  const kid = await calculateJwkThumbprint(publicJwk)
  return {
    algorithm: 'RS256',
    signingKey,
    verificationKey,
    kid,
    jwks: { keys: [{ ...publicJwk, kid, alg: 'RS256', use: 'sig' }] },
  }
}

/** A fresh 2048-bit RS256 key pair as PEM texts (PKCS#8 private, SPKI public). */
export async function generateRsaKeyPair(modulusLength = 2048): Promise<Required<JwtKeyMaterial>> {
  const pair = await crypto.subtle.generateKey(
    { name: 'RSASSA-PKCS1-v1_5', modulusLength, publicExponent: new Uint8Array([1, 0, 1]), hash: 'SHA-256' },
    true,
    ['sign', 'verify'],
  )
  return {
    privateKey: toPem('PRIVATE KEY', await crypto.subtle.exportKey('pkcs8', pair.privateKey)),
    publicKey: toPem('PUBLIC KEY', await crypto.subtle.exportKey('spki', pair.publicKey)),
  }
}

function toPem(label: string, der: ArrayBuffer): string {
  let binary = ''
  for (const byte of new Uint8Array(der)) binary += String.fromCharCode(byte)
  const body = btoa(binary).replace(/.{1,64}/g, '$&\n')
  return `-----BEGIN ${label}-----\n${body}-----END ${label}-----\n`
}

/** A PEM from an env value: `\n` escapes (one-line .env values) become newlines. */
function pem(value: string | undefined): string | undefined {
  const trimmed = value?.trim()
  if (trimmed === undefined || trimmed === '') return undefined
  return trimmed.replace(/\\n/g, '\n')
}

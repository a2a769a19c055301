// id_tokens of the CLI login callback, with jose: from a configured OpenID Connect issuer (its
// JWKS), or issued by Affix's own local sign-in (HS256 with a key derived from AFFIX_SECRET_KEY).
import { withoutControlCharacters } from '../core/names.js';
import { createHash } from 'node:crypto';
import { SignJWT, createRemoteJWKSet, jwtVerify } from 'jose';

export interface IdTokenConfig {
  publicUrl: string;
  secretKey: string | undefined;
  oidc?: { issuer: string; clientId: string; jwksUrl?: string };
}

export interface IdentityClaims {
  email: string;
  name: string | null;
}

const LOCAL_AUDIENCE = 'affix-cli';
const localKey = (secretKey: string) => createHash('sha256').update(`affix-id-token:${secretKey}`).digest();

export async function issueLocalIdToken(config: IdTokenConfig, email: string): Promise<string> {
  if (!config.secretKey) throw new Error('AFFIX_SECRET_KEY is required for local sign-in');
  return new SignJWT({ email })
    .setProtectedHeader({ alg: 'HS256' })
    .setIssuer(config.publicUrl)
    .setAudience(LOCAL_AUDIENCE)
    .setSubject(email)
    .setIssuedAt()
    .setExpirationTime('5m')
    .sign(localKey(config.secretKey));
}

/** The issuer's discovery document, read once (authorization endpoint and JWKS address). */
export async function discoverIssuer(issuer: string): Promise<{ authorizationEndpoint: string; jwksUri: string }> {
  const response = await fetch(`${issuer.replace(/\/+$/, '')}/.well-known/openid-configuration`);
  if (!response.ok) throw new Error(`OpenID Connect discovery failed: HTTP ${response.status}`);
  const document = (await response.json()) as { authorization_endpoint?: string; jwks_uri?: string };
  if (!document.authorization_endpoint || !document.jwks_uri) throw new Error('OpenID Connect discovery document lacks authorization_endpoint or jwks_uri');
  return { authorizationEndpoint: document.authorization_endpoint, jwksUri: document.jwks_uri };
}

/**
 * Verifies an id_token: against the configured issuer's keys (JWKS from AFFIX_OIDC_JWKS_URL or
 * discovery), or, without an issuer, as one issued by our own local sign-in. `nonce`, when
 * given, must match the token's nonce claim.
 */
export function createIdTokenVerifier(config: IdTokenConfig): (idToken: string, nonce?: string) => Promise<IdentityClaims> {
  if (config.oidc) {
    const { issuer, clientId } = config.oidc;
    let jwks: ReturnType<typeof createRemoteJWKSet> | undefined;
    return async (idToken, nonce) => {
      jwks ??= createRemoteJWKSet(new URL(config.oidc!.jwksUrl ?? (await discoverIssuer(issuer)).jwksUri));
      const { payload } = await jwtVerify(idToken, jwks, { issuer, audience: clientId });
      if (nonce !== undefined && payload.nonce !== nonce) throw new Error('id_token nonce does not match the login session');
      if (typeof payload.email !== 'string') throw new Error('id_token has no email claim');
      // The issuer's name becomes the account's (a mail's sender name): control characters become spaces.
      return { email: payload.email, name: typeof payload.name === 'string' ? withoutControlCharacters(payload.name) || null : null };
    };
  }
  return async (idToken) => {
    if (!config.secretKey) throw new Error('AFFIX_SECRET_KEY is required for local sign-in');
    const { payload } = await jwtVerify(idToken, localKey(config.secretKey), {
      issuer: config.publicUrl,
      audience: LOCAL_AUDIENCE,
      algorithms: ['HS256'],
    });
    if (typeof payload.email !== 'string') throw new Error('id_token has no email claim');
    return { email: payload.email, name: null };
  };
}

/** Where to send the browser for an implicit-flow sign-in whose id_token comes back by form_post. */
export async function issuerSignInUrl(oidc: NonNullable<IdTokenConfig['oidc']>, redirectUri: string, state: string): Promise<string> {
  const { authorizationEndpoint } = await discoverIssuer(oidc.issuer);
  const target = new URL(authorizationEndpoint);
  target.search = new URLSearchParams({
    response_type: 'id_token',
    response_mode: 'form_post',
    client_id: oidc.clientId,
    redirect_uri: redirectUri,
    scope: 'openid email profile',
    state,
    nonce: state,
  }).toString();
  return target.toString();
}

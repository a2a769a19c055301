// id_tokens of the CLI login callback, with jose: from a configured OpenID Connect issuer (its
// JWKS), or issued by Affix's own local sign-in (HS256 with a key derived from AFFIX_SECRET_KEY).
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

export function createIdTokenVerifier(config: IdTokenConfig): (idToken: string) => Promise<IdentityClaims> {
  if (config.oidc) {
    const { issuer, clientId } = config.oidc;
    const jwks = createRemoteJWKSet(new URL(config.oidc.jwksUrl ?? `${issuer.replace(/\/+$/, '')}/.well-known/jwks.json`));
    return async (idToken) => {
      const { payload } = await jwtVerify(idToken, jwks, { issuer, audience: clientId });
      if (typeof payload.email !== 'string') throw new Error('id_token has no email claim');
      return { email: payload.email, name: typeof payload.name === 'string' ? payload.name : null };
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

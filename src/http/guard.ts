// One guard for every route (src/core/permissions.ts): a router whose get/post/… take a route only
// when the permission map names it, and put the map's check in front of its handlers.
import type { NextFunction, Request, Response, Router } from 'express';
import { errors } from '../core/errors.js';
import { type Permission, type Role, allows, permissionOf } from '../core/permissions.js';

const METHODS = new Set(['get', 'post', 'put', 'patch', 'delete']);

/** Who is asking: a member's role, the operator, or null before sign-in (then only public routes answer). */
export type RoleOf = (res: Response) => Role | 'operator' | null;

export function requirePermission(permission: Permission, roleOf: RoleOf) {
  return (_req: Request, res: Response, next: NextFunction): void => {
    if (permission === 'public') return next();
    const role = roleOf(res);
    if (role === null) throw errors.unauthorized('Sign in first');
    if (!allows(role, permission)) throw errors.forbidden(`Your role (${role}) does not allow this. An owner of the account can change your role`);
    next();
  };
}

/** The router, with every route it registers checked against `routes` (a route missing from the map throws at start). */
export function securedRouter(router: Router, routes: Record<string, Permission>, roleOf: RoleOf): Router {
  return new Proxy(router, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      if (typeof property !== 'string' || !METHODS.has(property)) return value;
      return (path: string, ...handlers: unknown[]) => {
        const permission = permissionOf(routes, property, path);
        if (!permission) throw new Error(`${property.toUpperCase()} ${path} is not in the permission map (src/core/permissions.ts)`);
        return (value as (...args: unknown[]) => unknown).call(target, path, requirePermission(permission, roleOf), ...handlers);
      };
    },
  });
}

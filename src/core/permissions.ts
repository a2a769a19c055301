// The one permission map (docs/team.md): what each role may do, and which permission every route
// needs — dashboard pages and forms, the admin API, the CLI API. A route missing here cannot be
// registered (src/http/guard.ts), and a test walks every registered route with every role.

export const ROLES = ['owner', 'admin', 'finance', 'viewer'] as const;
export type Role = (typeof ROLES)[number];

export const ROLE_WORDS: Record<Role, string> = {
  owner: 'Owner: everything, the team and the account',
  admin: 'Admin: programs, partners, links, keys, webhooks',
  finance: 'Finance: commissions, approvals, payouts, exports; not API keys',
  viewer: 'Viewer: reads only, never partner emails, payout details or API keys',
};

const ALL: readonly Role[] = ROLES;
const MANAGE: readonly Role[] = ['owner', 'admin'];
const MONEY: readonly Role[] = ['owner', 'finance'];

export const PERMISSIONS = {
  /** Pages that show a program, its numbers and its settings (no partner email, no payout details). */
  read: ALL,
  /** Partner emails, payout details, exports of them, the audit log (it names people). */
  read_people: ['owner', 'admin', 'finance'],
  programs: MANAGE,
  partners: MANAGE,
  links: MANAGE,
  /** The API keys page and its forms: keys are for those who may manage them, so even their prefixes stay with owner and admin. */
  keys: MANAGE,
  webhooks: MANAGE,
  stripe: MANAGE,
  commissions: MONEY,
  payouts: MONEY,
  /** PayPal's and Wise's credentials on the Payouts page (write-only). */
  payout_providers: ['owner', 'admin', 'finance'],
  team: ['owner'],
  /** The team page's sign-ins: who is signed in, and ending them (see mayEndSignInsOf). */
  team_sign_ins: MANAGE,
} as const satisfies Record<string, readonly Role[]>;
export type Permission = keyof typeof PERMISSIONS | 'public' | 'signed_in' | 'operator';

/** `public`: anyone; `signed_in`: any member (their own sessions, the program list); `operator`: the admin token only. */
export function allows(role: Role | 'operator', permission: Permission): boolean {
  if (permission === 'public' || permission === 'signed_in') return true;
  if (role === 'operator') return true;
  if (permission === 'operator') return false;
  return (PERMISSIONS[permission] as readonly Role[]).includes(role);
}

/**
 * Whether a search of partners may match their emails and payout references: only for a role that
 * may read them. Any other role's search matches names alone, so it cannot learn whose an address is.
 */
export const searchMatchesPeople = (role: Role | 'operator'): boolean => allows(role, 'read_people');

/** Whose sessions and CLI tokens a role may end from the team page: an owner anyone's, an admin those below owner. */
export const mayEndSignInsOf = (role: Role, of: Role): boolean => role === 'owner' || (role === 'admin' && of !== 'owner');

const P = (method: string, path: string) => `${method} ${path}`;
const D = '/dashboard/programs/:id';

/** Every dashboard route (method and Express path) and the permission it needs. */
export const DASHBOARD_ROUTES: Record<string, Permission> = {
  [P('GET', '/dashboard/login')]: 'public',
  [P('GET', '/dashboard/login/sso')]: 'public',
  [P('POST', '/dashboard/login')]: 'public',
  [P('POST', '/dashboard/sso/callback')]: 'public',
  [P('POST', '/dashboard/logout')]: 'public',
  [P('GET', '/dashboard/join')]: 'public',
  [P('POST', '/dashboard/join')]: 'public',
  [P('GET', '/dashboard')]: 'signed_in',
  [P('GET', '/dashboard/account')]: 'signed_in',
  [P('POST', '/dashboard/account/tokens/:tokenId/revoke')]: 'signed_in',
  [P('POST', '/dashboard/account/sessions/:sessionId/revoke')]: 'signed_in',
  [P('POST', '/dashboard/account/mail')]: 'signed_in',
  [P('POST', '/dashboard/account/password')]: 'signed_in',
  [P('GET', '/dashboard/password/forgot')]: 'public',
  [P('POST', '/dashboard/password/forgot')]: 'public',
  [P('GET', '/dashboard/password/reset')]: 'public',
  [P('POST', '/dashboard/password/reset')]: 'public',
  [P('GET', '/dashboard/team')]: 'team_sign_ins',
  [P('POST', '/dashboard/team/:memberId/sign-ins/end')]: 'team_sign_ins',
  [P('POST', '/dashboard/team/invite')]: 'team',
  [P('POST', '/dashboard/team/:memberId/role')]: 'team',
  [P('POST', '/dashboard/team/:memberId/remove')]: 'team',
  [P('POST', '/dashboard/programs')]: 'programs',
  [P('GET', D)]: 'read',
  [P('GET', `${D}/setup`)]: 'read',
  [P('POST', `${D}/setup/test`)]: 'programs',
  [P('POST', `${D}/setup/currencies`)]: 'programs',
  [P('GET', `${D}/partners`)]: 'read',
  [P('GET', `${D}/applications`)]: 'read',
  [P('GET', `${D}/groups`)]: 'read',
  [P('GET', `${D}/discounts`)]: 'read',
  [P('GET', `${D}/links`)]: 'read',
  [P('GET', `${D}/activity`)]: 'read',
  [P('GET', `${D}/payouts`)]: 'read',
  [P('GET', `${D}/stripe`)]: 'read',
  [P('GET', `${D}/paddle`)]: 'read',
  [P('GET', `${D}/lemonsqueezy`)]: 'read',
  [P('GET', `${D}/inbox`)]: 'read',
  [P('GET', `${D}/webhooks`)]: 'read',
  [P('GET', `${D}/keys`)]: 'keys',
  [P('GET', `${D}/audit`)]: 'read_people',
  [P('GET', `${D}/settings`)]: 'read',
  [P('GET', `${D}/brand`)]: 'read',
  [P('GET', `${D}/activity.csv`)]: 'read_people',
  [P('GET', `${D}/audit.csv`)]: 'read_people',
  [P('GET', `${D}/partners.csv`)]: 'read_people',
  [P('GET', `${D}/applications.csv`)]: 'read_people',
  [P('GET', `${D}/payouts/batches/:batchId/export.csv`)]: 'payouts',
  [P('POST', `${D}/payouts/batches/:batchId/pay`)]: 'payouts',
  [P('POST', `${D}/payouts/providers/:provider`)]: 'payout_providers',
  [P('POST', `${D}/settings`)]: 'programs',
  [P('POST', `${D}/brand`)]: 'programs',
  [P('POST', `${D}/brand/logo`)]: 'programs',
  [P('POST', `${D}/brand/logo/remove`)]: 'programs',
  [P('POST', `${D}/questions`)]: 'partners',
  [P('POST', `${D}/partners`)]: 'partners',
  [P('POST', `${D}/partners/bulk`)]: 'partners',
  [P('GET', `${D}/partners/bulk/:bulkId`)]: 'read',
  [P('GET', `${D}/partners/import`)]: 'partners',
  [P('POST', `${D}/partners/import`)]: 'partners',
  [P('POST', `${D}/partners/import/:fileId`)]: 'partners',
  [P('GET', `${D}/partners/:partnerId`)]: 'read',
  [P('POST', `${D}/partners/:partnerId`)]: 'partners',
  [P('POST', `${D}/partners/:partnerId/action`)]: 'partners',
  [P('POST', `${D}/partners/:partnerId/override`)]: 'partners',
  [P('POST', `${D}/partners/:partnerId/override/remove`)]: 'partners',
  [P('POST', `${D}/partners/:partnerId/invite`)]: 'partners',
  [P('POST', `${D}/groups`)]: 'partners',
  [P('POST', `${D}/groups/:groupId`)]: 'partners',
  [P('POST', `${D}/discount`)]: 'partners',
  [P('POST', `${D}/groups/:groupId/discount/codes`)]: 'partners',
  [P('POST', `${D}/groups/:groupId/discount/remove`)]: 'partners',
  [P('POST', `${D}/processor-api-keys/:processor`)]: 'stripe',
  [P('POST', `${D}/applications/settings`)]: 'partners',
  [P('POST', `${D}/links`)]: 'links',
  [P('POST', `${D}/links/:linkId/toggle`)]: 'links',
  [P('POST', `${D}/promo-codes`)]: 'links',
  [P('POST', `${D}/promo-codes/:promoCodeId/toggle`)]: 'links',
  [P('GET', `${D}/keys/:keyId/regenerate`)]: 'keys',
  [P('POST', `${D}/keys`)]: 'keys',
  [P('POST', `${D}/keys/:keyId/regenerate`)]: 'keys',
  [P('POST', `${D}/keys/:keyId/rotate`)]: 'keys',
  [P('POST', `${D}/stripe`)]: 'stripe',
  [P('POST', `${D}/processors/:processor`)]: 'stripe',
  [P('GET', `${D}/stripe/connect`)]: 'stripe',
  [P('GET', '/dashboard/stripe/connect/callback')]: 'stripe',
  [P('POST', `${D}/events/:eventId/replay`)]: 'stripe',
  [P('POST', `${D}/webhooks`)]: 'webhooks',
  [P('POST', `${D}/webhooks/:endpointId/toggle`)]: 'webhooks',
  [P('POST', `${D}/webhooks/:endpointId/rotate`)]: 'webhooks',
  [P('POST', `${D}/webhooks/deliveries/:deliveryId/replay`)]: 'webhooks',
  [P('POST', `${D}/commissions/:commissionId/approve`)]: 'commissions',
  [P('POST', `${D}/commissions/:commissionId/unapprove`)]: 'commissions',
  [P('POST', `${D}/commissions/:commissionId/release`)]: 'commissions',
  [P('POST', `${D}/commissions/:commissionId/reject`)]: 'commissions',
  [P('POST', `${D}/commissions/bulk`)]: 'commissions',
  [P('POST', `${D}/payouts/run`)]: 'payouts',
  [P('POST', `${D}/payouts/remind`)]: 'payouts',
  [P('POST', `${D}/payouts/:payoutId/paid`)]: 'payouts',
  [P('POST', `${D}/payouts/:payoutId/stripe-transfer`)]: 'payouts',
  [P('POST', `${D}/payouts/:payoutId/cancel`)]: 'payouts',
  [P('POST', `${D}/payouts/:payoutId/fail`)]: 'payouts',
  [P('POST', `${D}/payouts/settings`)]: 'payouts',
  [P('GET', `${D}/payouts/statement-details`)]: 'payouts',
  [P('POST', `${D}/payouts/statement-details`)]: 'payouts',
  [P('GET', `${D}/payouts/:payoutId/statement`)]: 'payouts',
  [P('GET', `${D}/payouts/:payoutId/statement.csv`)]: 'payouts',
  [P('GET', `${D}/payouts/tax`)]: 'payouts',
  [P('POST', `${D}/payouts/tax`)]: 'payouts',
  [P('POST', `${D}/payouts/tax/remind`)]: 'payouts',
  [P('GET', `${D}/payouts/tax/:year/export.csv`)]: 'payouts',
  [P('GET', `${D}/settings/domains`)]: 'read',
  [P('POST', `${D}/settings/domains`)]: 'programs',
  [P('GET', `${D}/settings/mail-previews`)]: 'read',
  [P('GET', `${D}/payouts/bounties`)]: 'read',
  [P('POST', `${D}/payouts/bounties`)]: 'commissions',
  [P('POST', `${D}/payouts/bounties/:bountyId/archive`)]: 'commissions',
  [P('POST', `${D}/payouts/bounties/submissions/:submissionId/approve`)]: 'commissions',
  [P('POST', `${D}/payouts/bounties/submissions/:submissionId/reject`)]: 'commissions',
  [P('GET', `${D}/settings/mail-previews/referral-qr.png`)]: 'read',
  [P('GET', `${D}/rewards`)]: 'read',
  [P('GET', `${D}/rewards/backtest`)]: 'read',
  [P('GET', `${D}/rewards/rule`)]: 'programs',
  [P('POST', `${D}/rewards/rule`)]: 'programs',
  [P('POST', `${D}/rewards/rule/delete`)]: 'programs',
  [P('POST', `${D}/rewards/rule/move`)]: 'programs',
  [P('POST', `${D}/rewards/limits`)]: 'programs',
  [P('POST', `${D}/rewards/publish`)]: 'programs',
};

/** The CLI API routes a login token reaches: the token acts as its member, with that member's role. */
export const CLI_ROUTES: Record<string, Permission> = {
  [P('POST', '/api/v1/cli/init')]: 'programs',
  [P('GET', '/api/v1/cli/programs')]: 'read',
};

const A = '/api/v1/admin';

/** The admin API is the operator's (the AFFIX_ADMIN_TOKEN): every route, named here all the same, behind the same guard. */
export const ADMIN_ROUTES: Record<string, Permission> = {
  [P('POST', `${A}/accounts`)]: 'operator',
  [P('PATCH', `${A}/accounts/:id`)]: 'operator',
  [P('POST', `${A}/programs`)]: 'operator',
  [P('GET', `${A}/programs/:id`)]: 'operator',
  [P('PATCH', `${A}/programs/:id`)]: 'operator',
  [P('POST', `${A}/programs/:id/links`)]: 'operator',
  [P('PATCH', `${A}/links/:id`)]: 'operator',
  [P('POST', `${A}/programs/:id/keys`)]: 'operator',
  [P('GET', `${A}/programs/:id/keys`)]: 'operator',
  [P('POST', `${A}/keys/:id/regenerate`)]: 'operator',
  [P('POST', `${A}/keys/:id/rotation`)]: 'operator',
  [P('PATCH', `${A}/programs/:id/stripe`)]: 'operator',
  [P('GET', `${A}/programs/:id/processors/:processor`)]: 'operator',
  [P('PATCH', `${A}/programs/:id/processors/:processor`)]: 'operator',
  [P('GET', `${A}/webhook-events`)]: 'operator',
  [P('GET', `${A}/webhook-events/:id`)]: 'operator',
  [P('POST', `${A}/webhook-events/:id/replay`)]: 'operator',
  [P('GET', `${A}/audit-log`)]: 'operator',
  [P('GET', `${A}/audit-log.csv`)]: 'operator',
  [P('GET', `${A}/programs/:id/balances`)]: 'operator',
  [P('GET', `${A}/programs/:id/commissions`)]: 'operator',
  [P('POST', `${A}/programs/:id/commissions/:commissionId/approve`)]: 'operator',
  [P('POST', `${A}/programs/:id/commissions/:commissionId/unapprove`)]: 'operator',
  [P('POST', `${A}/programs/:id/commissions/:commissionId/release`)]: 'operator',
  [P('POST', `${A}/programs/:id/commissions/:commissionId/reject`)]: 'operator',
  [P('GET', `${A}/programs/:id/payout-settings`)]: 'operator',
  [P('PATCH', `${A}/programs/:id/payout-settings`)]: 'operator',
  [P('PATCH', `${A}/programs/:id/partners/:partnerId/payout-details`)]: 'operator',
  [P('POST', `${A}/programs/:id/payouts/run`)]: 'operator',
  [P('POST', `${A}/programs/:id/payouts/remind`)]: 'operator',
  [P('GET', `${A}/programs/:id/payouts`)]: 'operator',
  [P('POST', `${A}/programs/:id/payouts/:payoutId/paid`)]: 'operator',
  [P('POST', `${A}/programs/:id/payouts/:payoutId/stripe-transfer`)]: 'operator',
  [P('POST', `${A}/programs/:id/payouts/:payoutId/cancel`)]: 'operator',
  [P('POST', `${A}/programs/:id/payouts/:payoutId/fail`)]: 'operator',
  [P('GET', `${A}/programs/:id/payout-batches/:batchId/export`)]: 'operator',
  [P('GET', `${A}/programs/:id/tax-settings`)]: 'operator',
  [P('PATCH', `${A}/programs/:id/tax-settings`)]: 'operator',
  [P('GET', `${A}/programs/:id/tax-details/missing`)]: 'operator',
  [P('POST', `${A}/programs/:id/tax-details/remind`)]: 'operator',
  [P('GET', `${A}/programs/:id/tax-export`)]: 'operator',
  [P('POST', `${A}/programs/:id/payout-batches/:batchId/pay`)]: 'operator',
  [P('GET', `${A}/programs/:id/payout-providers`)]: 'operator',
  [P('PUT', `${A}/programs/:id/payout-providers/:provider`)]: 'operator',
  [P('POST', `${A}/programs/:id/partners/:partnerId/invite`)]: 'operator',
  [P('POST', `${A}/programs/:id/promo-codes`)]: 'operator',
  [P('GET', `${A}/programs/:id/promo-codes`)]: 'operator',
  [P('PATCH', `${A}/programs/:id/promo-codes/:promoCodeId`)]: 'operator',
  [P('GET', `${A}/programs/:id/discounts`)]: 'operator',
  [P('PUT', `${A}/programs/:id/groups/:groupId/discount`)]: 'operator',
  [P('DELETE', `${A}/programs/:id/groups/:groupId/discount`)]: 'operator',
  [P('POST', `${A}/programs/:id/groups/:groupId/discount/codes`)]: 'operator',
  [P('PUT', `${A}/programs/:id/processor-api-keys/:processor`)]: 'operator',
  [P('POST', `${A}/programs/:id/webhook-endpoints`)]: 'operator',
  [P('GET', `${A}/programs/:id/webhook-endpoints`)]: 'operator',
  [P('PATCH', `${A}/programs/:id/webhook-endpoints/:endpointId`)]: 'operator',
  [P('DELETE', `${A}/programs/:id/webhook-endpoints/:endpointId`)]: 'operator',
  [P('POST', `${A}/programs/:id/webhook-endpoints/:endpointId/rotate-secret`)]: 'operator',
  [P('GET', `${A}/programs/:id/webhook-endpoints/:endpointId/deliveries`)]: 'operator',
  [P('POST', `${A}/programs/:id/webhook-deliveries/:deliveryId/replay`)]: 'operator',
  [P('GET', `${A}/programs/:id/partners`)]: 'operator',
  [P('POST', `${A}/programs/:id/partners`)]: 'operator',
  [P('GET', `${A}/programs/:id/partners.csv`)]: 'operator',
  [P('POST', `${A}/programs/:id/partners/bulk`)]: 'operator',
  [P('GET', `${A}/programs/:id/bulk-actions/:bulkId`)]: 'operator',
  [P('POST', `${A}/programs/:id/partners/import`)]: 'operator',
  [P('GET', `${A}/programs/:id/partners/:partnerId`)]: 'operator',
  [P('PATCH', `${A}/programs/:id/partners/:partnerId`)]: 'operator',
  [P('PUT', `${A}/programs/:id/partners/:partnerId/override`)]: 'operator',
  [P('DELETE', `${A}/programs/:id/partners/:partnerId/override`)]: 'operator',
  [P('POST', `${A}/programs/:id/partners/:partnerId/:verb`)]: 'operator',
  [P('GET', `${A}/programs/:id/groups`)]: 'operator',
  [P('GET', `${A}/programs/:id/reward-rules`)]: 'operator',
  [P('PUT', `${A}/programs/:id/reward-rules/draft`)]: 'operator',
  [P('POST', `${A}/programs/:id/reward-rules/publish`)]: 'operator',
  [P('POST', `${A}/programs/:id/reward-rules/backtest`)]: 'operator',
  [P('GET', `${A}/programs/:id/bounties`)]: 'operator',
  [P('POST', `${A}/programs/:id/bounties`)]: 'operator',
  [P('POST', `${A}/programs/:id/bounties/:bountyId/archive`)]: 'operator',
  [P('GET', `${A}/programs/:id/bounty-submissions`)]: 'operator',
  [P('POST', `${A}/programs/:id/bounty-submissions/:submissionId/approve`)]: 'operator',
  [P('POST', `${A}/programs/:id/bounty-submissions/:submissionId/reject`)]: 'operator',
  [P('POST', `${A}/programs/:id/groups`)]: 'operator',
  [P('PUT', `${A}/programs/:id/groups/:groupId`)]: 'operator',
  [P('GET', `${A}/programs/:id/applications`)]: 'operator',
  [P('GET', `${A}/programs/:id/applications.csv`)]: 'operator',
  [P('GET', `${A}/programs/:id/application-settings`)]: 'operator',
  [P('PATCH', `${A}/programs/:id/application-settings`)]: 'operator',
  [P('GET', `${A}/programs/:id/brand`)]: 'operator',
  [P('PATCH', `${A}/programs/:id/brand`)]: 'operator',
  [P('GET', `${A}/programs/:id/domains`)]: 'operator',
  [P('PATCH', `${A}/programs/:id/domains`)]: 'operator',
  [P('POST', `${A}/programs/:id/commissions/bulk`)]: 'operator',
};

/** The permission a route needs, or undefined when the map lacks it (registration refuses it). */
export const permissionOf = (routes: Record<string, Permission>, method: string, path: string): Permission | undefined => routes[P(method.toUpperCase(), path)];

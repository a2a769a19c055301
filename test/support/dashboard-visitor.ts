// A tiny browser for the dashboard's pages: cookies kept (one a name, an emptied one dropped),
// the CSRF field read from the last page that had one and sent with each form.

export interface PageReply {
  status: number;
  text: string;
  location: string | null;
  headers: Headers;
}

export interface VisitorOptions {
  /** Sent as X-Forwarded-For (the sign-in limits count per address); none when absent. */
  ip?: string;
  /** A session cookie to start with (a sign-in made elsewhere). */
  sessionToken?: string | null;
  /** Forms carry the dashboard's own Origin, as a browser's do (default); false sends none. */
  origin?: boolean;
}

export interface PostOptions {
  /** false: the form without its CSRF field. */
  withToken?: boolean;
  headers?: Record<string, string>;
}

export function dashboardVisitor(baseUrl: string, options: VisitorOptions = {}) {
  const jar = new Map<string, string>();
  if (options.sessionToken) jar.set('affix_dashboard', options.sessionToken);
  let csrf = '';
  const remember = (response: Response) => {
    for (const cookie of response.headers.getSetCookie()) {
      const [pair] = cookie.split(';');
      const [name, ...value] = pair!.split('=');
      if (value.join('=') === '') jar.delete(name!);
      else jar.set(name!, value.join('='));
    }
  };
  const headers = (extra: Record<string, string> = {}) => ({
    Cookie: [...jar].map(([name, value]) => `${name}=${value}`).join('; '),
    ...(options.ip ? { 'X-Forwarded-For': options.ip } : {}),
    ...extra,
  });
  const reply = async (response: Response): Promise<PageReply> => {
    remember(response);
    return { status: response.status, text: await response.text(), location: response.headers.get('location'), headers: response.headers };
  };
  return {
    jar,
    async get(path: string): Promise<PageReply> {
      const page = await reply(await fetch(`${baseUrl}${path}`, { headers: headers(), redirect: 'manual' }));
      csrf = /name="_csrf" value="([^"]+)"/.exec(page.text)?.[1] ?? csrf;
      return page;
    },
    async post(path: string, fields: Record<string, string> = {}, post: PostOptions = {}): Promise<PageReply> {
      const body = new URLSearchParams({ ...(post.withToken === false ? {} : { _csrf: csrf }), ...fields }).toString();
      const form = { 'Content-Type': 'application/x-www-form-urlencoded', ...(options.origin === false ? {} : { Origin: baseUrl }), ...post.headers };
      return reply(await fetch(`${baseUrl}${path}`, { method: 'POST', headers: headers(form), body, redirect: 'manual' }));
    },
  };
}
export type DashboardVisitor = ReturnType<typeof dashboardVisitor>;

/** A visitor signed in to the dashboard with an email and password (throws when the sign-in is refused). */
export async function signedInVisitor(baseUrl: string, email: string, password: string, options: VisitorOptions = {}): Promise<DashboardVisitor> {
  const visitor = dashboardVisitor(baseUrl, options);
  await visitor.get('/dashboard/login');
  const login = await visitor.post('/dashboard/login', { email, password });
  if (login.status !== 303) throw new Error(`sign-in: ${login.status}`);
  return visitor;
}

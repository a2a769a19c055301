// What every route file of the dashboard is given by its composer (routes.ts): the forms' guards,
// the page sender, the caller's scope and the use cases' dependencies, built once per app.
import type { Request, RequestHandler, Response } from 'express';
import type { AccountScope } from '../../app/accounts/scope.js';
import type { ManagementDeps } from '../../app/programs/management.js';
import type { ProgramSection } from '../../app/programs/dashboard-pages.js';
import type { AppDeps } from '../deps.js';
import type { Html } from '../kit/html.js';
import type { PageExtra } from './program-page.js';

export interface DashboardKit {
  deps: AppDeps;
  /** Cookies marked Secure (the service is served over https). */
  secureCookies: boolean;
  /** A form post: its body read, its CSRF token checked, the caller's next pages read the primary. */
  form: RequestHandler[];
  /** `form` whose named fields are lists (ticked boxes of one name). */
  listForm: (...lists: string[]) => RequestHandler[];
  send: (res: Response, status: number, title: string, body: Html, flash?: string | null) => void;
  app: () => ManagementDeps;
  /** The signed-in account, acting from this request's address (the audit log records both). */
  scope: (res: Response) => AccountScope;
  now: () => Date;
}

/** A signed-in account's kit: its programs' pages too. */
export interface ProgramKit extends DashboardKit {
  /** The program of `:id`, refused unless the caller's account holds it. */
  ownProgram: (req: Request, res: Response) => Promise<number>;
  programPage: (req: Request, res: Response, section: ProgramSection, extra?: PageExtra) => Promise<void>;
  /** Post, redirect, get: back to the page the form was on, with what was done. */
  back: (res: Response, id: number, done: string, section: ProgramSection) => void;
}

// The Partners, Applications and Groups pages' forms, one partner's page and the import: each
// posts to a use case of src/app, then redirects back (or shows the page again with the
// refusal beside its field). A single partner's action is the bulk action of one.
import type { Request, Response, Router } from 'express';
import { updateApplicationSettings } from '../../app/partners/applications.js';
import { auditCsv } from '../../app/accounts/audit-log.js';
import { sendCsv } from '../csv-stream.js';
import type { ProgramSection } from '../../app/programs/dashboard-pages.js';
import { requestPartnerBulk, showBulkAction } from '../../app/partners/bulk-action-jobs.js';
import { type ImportReport, importFileColumns, importPartners, keepImportFile, keptImportFile } from '../../app/partners/import.js';
import * as partnerBulkActions from '../../app/partners/bulk-actions.js';
import * as partnerEnrollments from '../../app/partners/enrollments.js';
import * as partnerList from '../../app/partners/list.js';
import * as partnerGroups from '../../app/partners/groups.js';
import { AffixError } from '../../core/errors.js';
import { PARTNER_ACTIONS, PARTNER_ACTION_WORDS, type PartnerAction } from '../../core/partners.js';
import { allows } from '../../core/permissions.js';
import { fieldErrors, typedMinimums } from '../kit/forms.js';
import { REPORT_REFRESH_SECONDS, bulkActionBody, bulkActionTitle, isUnderWay } from './bulk-action-page.js';
import type { Html } from '../kit/html.js';
import type { MoneyRouteKit } from './money-routes.js';
import { type ImportFlow, importPageBody, partnerPageBody } from './partner-pages.js';
import { payingRuleSet } from '../../app/money/reward-rules.js';
import { sectionUrl, withProgramNav } from './program-page.js';
import { UPLOAD_FIELD, uploadBody } from './uploads.js';

export interface PartnerRouteKit extends MoneyRouteKit {
  send: (res: Response, status: number, title: string, body: Html, flash?: string | null) => void;
  /** The CSRF check of an upload, before its body is read (the token is in the form's action URL). */
  csrfBeforeBody: MoneyRouteKit['form'][number];
  publicUrl: string;
}

export const PARTNER_DONE: Record<string, string> = {
  partner: 'Partner added.',
  profile: 'Profile saved.',
  override: 'Own terms saved: they apply to commissions made from now on.',
  override_removed: 'Own terms removed.',
  group: 'Group saved.',
  application_page: 'Application page saved.',
  application_approved: 'Application approved: the partner has a referral link, and an invitation to the portal if they gave an email.',
  application_rejected: 'Application rejected: the applicant is told, with your reason.',
};

const text = (req: Request, name: string) => String((req.body as Record<string, unknown>)[name] ?? '').trim();

/** "Banned 3 partners; 1 left as it was." from the report (the numbers travel in the redirect, the words are ours). */
function bulkFlash(query: Record<string, unknown>): string | null {
  const action = PARTNER_ACTIONS.find((a) => a === query.action) ?? (['approve', 'release', 'reject'].includes(String(query.action)) ? String(query.action) : null);
  const changed = Number(query.changed);
  const skipped = Number(query.skipped);
  if (!action || !Number.isSafeInteger(changed) || !Number.isSafeInteger(skipped)) return null;
  const words = PARTNER_ACTION_WORDS[action as PartnerAction] ?? action;
  return `${words}: ${changed} changed${skipped ? `; ${skipped} left as they were (not in a state this action applies to)` : ''}.`;
}
export const bulkDone = bulkFlash;

export function registerPartnerRoutes(router: Router, kit: PartnerRouteKit): void {
  const { form, app, scope, ownProgram, programPage, back, send } = kit;
  const base = '/dashboard/programs/:id';
  const withMail = (): partnerBulkActions.PartnerDeps => ({ ...app(), mailLinks: { publicUrl: kit.publicUrl } });
  const toReport = (res: Response, id: number, section: ProgramSection, report: { action: string; changed: number; requested: number }) =>
    res.redirect(303, `${sectionUrl(id, section)}?done=bulk&action=${report.action}&changed=${report.changed}&skipped=${report.requested - report.changed}`);

  router.post(`${base}/partners`, ...form, async (req, res) => {
    const id = await ownProgram(req, res);
    try {
      await partnerEnrollments.addPartner(app(), scope(res), id, {
        name: text(req, 'partner_name'),
        email: text(req, 'partner_email') || null,
        group_id: text(req, 'partner_group') || null,
        tags: text(req, 'partner_tags'),
      });
    } catch (error) {
      const fields = fieldErrors(error, { name: 'partner_name', email: 'partner_email', tags: 'partner_tags', group_id: 'partner_group' });
      return programPage(req, res, 'partners', { status: 400, fieldErrors: fields, formValues: req.body as Record<string, string> });
    }
    back(res, id, 'partner', 'partners');
  });

  // The bulk bar of the Partners and Applications pages: the selected ids, or everything the page's search matches.
  router.post(`${base}/partners/bulk`, ...kit.listForm('partner_ids'), async (req, res) => {
    const id = await ownProgram(req, res);
    const body = req.body as Record<string, unknown>;
    const section: ProgramSection = body.back === 'applications' ? 'applications' : 'partners';
    const prefix = section === 'applications' ? 'app_' : '';
    const ids = ([] as unknown[]).concat(body.partner_ids ?? []).map(Number);
    const all = body.all_matching === 'on';
    const filter = Object.fromEntries(
      Object.entries({ q: body.filter_q, status: body.filter_status, group_id: body.filter_group_id_filter, tag: body.filter_tag }).filter(([, v]) => typeof v === 'string' && v !== ''),
    );
    try {
      if (!all && ids.length === 0) throw new AffixError(400, 'Select partners first (or apply to every partner the search matches).', { fields: { bulk: 'Select partners first (or apply to every partner the search matches).' } });
      const answer = await requestPartnerBulk(withMail(), scope(res), id, {
        action: body[`${prefix}action`] ?? body.action,
        ...(all ? { filter } : { partner_ids: ids }),
        reason: text(req, `${prefix}reason`) || undefined,
        group_id: text(req, 'group_id') || null,
        reapply: text(req, 'reapply') || undefined,
      });
      // Small: done, the flash says so. Large: the job runs it; its report page fills in.
      if ('done' in answer) toReport(res, id, section, answer.done);
      else res.redirect(303, `${sectionUrl(id, 'partners')}/bulk/${answer.queued.id}`);
    } catch (error) {
      const fields = fieldErrors(error, { reason: `${prefix}reason`, group_id: `${prefix}group_id`, partner_ids: 'bulk', action: `${prefix}action`, form: 'bulk' });
      return programPage(req, res, section, { status: (error as AffixError).status, fieldErrors: fields });
    }
  });
  router.get(`${base}/partners/bulk/:bulkId`, async (req, res) => {
    const id = await ownProgram(req, res);
    const report = await showBulkAction(app(), scope(res), id, Number(req.params.bulkId));
    const reloading = isUnderWay(report) && req.query.refresh !== 'off';
    if (reloading) res.setHeader('Refresh', String(REPORT_REFRESH_SECONDS));
    const pageUrl = `${sectionUrl(id, 'partners')}/bulk/${report.id}`;
    send(res, 200, bulkActionTitle(report), withProgramNav(id, 'partners', bulkActionBody(report, { partnersUrl: sectionUrl(id, 'partners'), pageUrl, reloading, people: allows(res.locals.account.role, 'read_people') })));
  });

  router.get(`${base}/partners.csv`, async (req, res) => {
    await sendCsv(res, `affix-partners-${req.params.id}.csv`, partnerList.exportPartnersCsv(app(), scope(res), Number(req.params.id), req.query));
  });
  router.get(`${base}/audit.csv`, async (req, res) => {
    await sendCsv(res, `affix-audit-${req.params.id}.csv`, auditCsv(app(), scope(res), { ...req.query, program_id: req.params.id, with_account: 'true' }));
  });
  router.get(`${base}/applications.csv`, async (req, res) => {
    await sendCsv(res, `affix-applications-${req.params.id}.csv`, partnerList.exportApplicationsCsv(app(), scope(res), Number(req.params.id)));
  });

  // ---- import: a file, (a mapping), a dry run that shows every row's problem, then the real run ----
  // The uploaded file is kept (its bytes, for an hour) and every later step names it: the confirm
  // imports exactly what the dry run checked, never a copy carried back by the form.
  const importPage = async (req: Request, res: Response, status: number, report: ImportReport | null, flow: ImportFlow | null, fe: Record<string, string> = {}, step: 'map' | 'report' = 'report') => {
    const id = await ownProgram(req, res);
    const body = importPageBody({ base: sectionUrl(id, 'overview'), publicUrl: kit.publicUrl, fieldErrors: fe, people: allows(res.locals.account.role, 'read_people') }, report, flow, step);
    send(res, status, step === 'map' ? 'Import partners: map the file' : 'Import partners', withProgramNav(id, 'partners', body, fe));
  };
  router.get(`${base}/partners/import`, (req, res) => importPage(req, res, 200, null, null));
  const programFirst = async (req: Request, res: Response, next: () => void) => {
    await ownProgram(req, res);
    next();
  };
  const uploadRefused = (req: Request, res: Response, error: AffixError) => importPage(req, res, error.status, null, null, { [UPLOAD_FIELD]: error.message });

  /** The brand's choices (the mapping form's fields) for this file, and the dry run or the import under them. */
  const importFlow = async (res: Response, id: number, fileId: string, csv: string, fields: Record<string, unknown>) => {
    const field = (name: string) => String(fields[name] ?? '').trim();
    // The header is read on its own only when columns are ignored (a file is parsed once otherwise).
    const ignoring = Object.keys(fields).some((name) => /^ignore_[0-9]+$/.test(name) && field(name));
    const header = ignoring ? importFileColumns(csv) : [];
    const ignored = new Set(header.flatMap((_, i) => (field(`ignore_${i}`) ? [i] : [])));
    const ignore_columns = [...ignored].map((i) => header[i]!);
    // Where each value goes without a choice (the file's values, in its order): the form's fields are by index into these.
    const plain = await importPartners(app(), scope(res), id, { csv, dry_run: true, ignore_columns });
    const fileColumns = plain.file_columns;
    const choices: Record<number, string> = {};
    const newNames: Record<number, string> = {};
    const group_mapping: Record<string, unknown> = {};
    plain.groups.forEach((s, i) => {
      const chosen = fields[`map_${i}`] === undefined ? (s.group_id === null ? '' : `group:${s.group_id}`) : field(`map_${i}`);
      choices[i] = chosen;
      newNames[i] = fields[`new_name_${i}`] === undefined ? s.source : field(`new_name_${i}`);
      if (chosen === 'none') group_mapping[s.source] = null;
      else if (chosen === 'new') group_mapping[s.source] = { new_group: newNames[i] };
      else if (chosen.startsWith('group:')) group_mapping[s.source] = { group: chosen.slice(6) };
    });
    const groups = (await partnerGroups.listGroups(app(), scope(res), id)).map((g) => ({ id: g.id, name: g.name }));
    const flow: ImportFlow = {
      action: `${sectionUrl(id, 'partners')}/import/${fileId}`,
      fileColumns,
      ignored,
      groupColumn: plain.columns.group ?? null,
      sources: plain.groups,
      choices,
      newNames,
      groups,
      readAs: Object.fromEntries(Object.entries(plain.columns).map(([f, header]) => [fileColumns.indexOf(header), f.replaceAll('_', ' ')])),
    };
    return { flow, plain, group_mapping, ignore_columns };
  };
  /** A mapping problem, beside the select or the name it is about. */
  const mappingErrors = (error: unknown, flow: ImportFlow): Record<string, string> => {
    const fields = fieldErrors(error, { csv: 'map_0', form: 'map_0', body: 'map_0' });
    const out: Record<string, string> = {};
    for (const [key, message] of Object.entries(fields)) {
      const index = flow.sources.findIndex((s) => key === `group_mapping.${s.source}` || key.startsWith(`group_mapping.${s.source}.`));
      if (index < 0) out[key.startsWith('group_mapping') ? 'map_0' : key] = message;
      else out[flow.choices[index] === 'new' ? `new_name_${index}` : `map_${index}`] = message;
    }
    return out;
  };

  router.post(`${base}/partners/import`, programFirst, kit.csrfBeforeBody, ...uploadBody(uploadRefused), async (req, res) => {
    const id = await ownProgram(req, res);
    try {
      if (!req.file) throw new AffixError(400, 'Choose a CSV file.', { fields: { csv: 'Choose a CSV file.' } });
      // The file's bytes are decoded by their byte order mark, else as UTF-8 (refused, in words, if they are not), and kept.
      const { fileId, csv } = await keepImportFile(app(), scope(res), id, req.file.buffer);
      const { flow, plain } = await importFlow(res, id, fileId, csv, {});
      // Values no group has: the mapping step first; else straight to the dry run.
      if (plain.groups.some((g) => g.maps_to === 'unmapped')) return importPage(req, res, 200, null, flow, {}, 'map');
      return importPage(req, res, 200, plain, flow);
    } catch (error) {
      return importPage(req, res, 400, null, null, fieldErrors(error, { csv: UPLOAD_FIELD, form: UPLOAD_FIELD, body: UPLOAD_FIELD }));
    }
  });
  router.post(`${base}/partners/import/:fileId`, ...form, async (req, res) => {
    const id = await ownProgram(req, res);
    const step = text(req, 'step');
    let flow: ImportFlow | null = null;
    try {
      const fileId = String(req.params.fileId);
      const csv = await keptImportFile(app(), scope(res), id, fileId);
      const shaped = await importFlow(res, id, fileId, csv, req.body as Record<string, unknown>);
      flow = shaped.flow;
      if (step === 'map') return importPage(req, res, 200, null, flow, {}, 'map');
      const report = await importPartners(app(), scope(res), id, { csv, dry_run: step !== 'confirm', group_mapping: shaped.group_mapping, ignore_columns: shaped.ignore_columns });
      return importPage(req, res, 200, report, report.dry_run ? flow : null);
    } catch (error) {
      if (flow) return importPage(req, res, 400, null, flow, mappingErrors(error, flow), 'map');
      return importPage(req, res, 400, null, null, fieldErrors(error, { csv: UPLOAD_FIELD, form: UPLOAD_FIELD, body: UPLOAD_FIELD }));
    }
  });

  // ---- one partner ----------------------------------------------------------------------------
  const partnerPage = async (req: Request, res: Response, status = 200, fe: Record<string, string> = {}, values?: Record<string, string>) => {
    const id = await ownProgram(req, res);
    const data = await partnerEnrollments.partnerPage(app(), scope(res), id, Number(req.params.partnerId));
    const query = req.query as Record<string, string>;
    const flash = status < 400 ? (PARTNER_DONE[query.done ?? ''] ?? bulkFlash(query)) : null;
    const rules = await payingRuleSet(app(), scope(res), id, data.partner);
    const body = partnerPageBody({ base: sectionUrl(id, 'overview'), publicUrl: kit.publicUrl, fieldErrors: fe, values, people: allows(res.locals.account.role, 'read_people'), rules }, data);
    send(res, status, data.partner.name, withProgramNav(id, 'partners', body, fe), flash);
  };
  const partnerUrl = (id: number, partnerId: number, done: string) => `${sectionUrl(id, 'partners')}/${partnerId}?${done}`;
  router.get(`${base}/partners/:partnerId`, (req, res) => partnerPage(req, res));

  router.post(`${base}/partners/:partnerId`, ...form, async (req, res) => {
    const id = await ownProgram(req, res);
    const partnerId = Number(req.params.partnerId);
    try {
      await partnerEnrollments.editPartner(app(), scope(res), id, partnerId, { name: text(req, 'name'), email: text(req, 'email') || null, tags: text(req, 'tags'), notes: text(req, 'notes') || null });
    } catch (error) {
      return partnerPage(req, res, 400, fieldErrors(error), req.body as Record<string, string>);
    }
    res.redirect(303, partnerUrl(id, partnerId, 'done=profile'));
  });

  router.post(`${base}/partners/:partnerId/action`, ...form, async (req, res) => {
    const id = await ownProgram(req, res);
    const partnerId = Number(req.params.partnerId);
    const action = PARTNER_ACTIONS.find((a) => a === text(req, 'action'));
    const fromApplications = text(req, 'back') === 'applications' && (action === 'approve' || action === 'reject');
    try {
      if (!action) throw new AffixError(400, 'Choose an action.', { fields: { action: 'Choose an action.' } });
      const { report } = await partnerBulkActions.partnerActionOfOne(withMail(), scope(res), id, partnerId, action, {
        reason: text(req, 'reason') || undefined,
        group_id: text(req, 'group_id') || null,
        reapply: text(req, 'reapply') || undefined,
      });
      // Decided from the Applications page: back to it, the next application in view.
      if (fromApplications) return res.redirect(303, `${sectionUrl(id, 'applications')}?done=application_${action === 'approve' ? 'approved' : 'rejected'}`);
      res.redirect(303, partnerUrl(id, partnerId, `done=bulk&action=${action}&changed=${report.changed}&skipped=0`));
    } catch (error) {
      // The refusal beside the reason of the form that was sent (each action has its own).
      const reasonField = fromApplications ? (action === 'reject' ? `reject_reason_${partnerId}` : `application-${partnerId}`) : `${action ?? 'action'}_reason`;
      const fields = fieldErrors(error, { form: reasonField, reason: reasonField });
      if (fromApplications) return programPage(req, res, 'applications', { status: (error as AffixError).status ?? 400, fieldErrors: fields });
      return partnerPage(req, res, (error as AffixError).status ?? 400, fields);
    }
  });

  router.post(`${base}/partners/:partnerId/override`, ...form, async (req, res) => {
    const id = await ownProgram(req, res);
    const partnerId = Number(req.params.partnerId);
    try {
      await partnerGroups.setOverride(app(), scope(res), id, partnerId, {
        commission_type: text(req, 'commission_type'), commission_rate: text(req, 'commission_rate'), duration_months: text(req, 'duration_months') || null, source: text(req, 'source'),
      });
    } catch (error) {
      return partnerPage(req, res, 400, fieldErrors(error));
    }
    res.redirect(303, partnerUrl(id, partnerId, 'done=override'));
  });
  router.post(`${base}/partners/:partnerId/override/remove`, ...form, async (req, res) => {
    const id = await ownProgram(req, res);
    await partnerGroups.removeOverride(app(), scope(res), id, Number(req.params.partnerId));
    res.redirect(303, partnerUrl(id, Number(req.params.partnerId), 'done=override_removed'));
  });

  // ---- groups and the application page ------------------------------------------------------
  const groupInput = (req: Request, prefix: string) => ({
    name: text(req, `${prefix}name`),
    slug: text(req, `${prefix}slug`),
    commission_type: text(req, `${prefix}commission_type`),
    commission_rate: text(req, `${prefix}commission_rate`),
    duration_months: text(req, `${prefix}duration_months`) || null,
    hold_days: text(req, `${prefix}hold_days`),
    payout_minimums_cents: typedMinimums(req.body as Record<string, unknown>, `${prefix}minimum_`),
    partners_can_create_links: text(req, 'partners_can_create_links') === 'on',
    applications_open: text(req, 'applications_open') === 'on',
    auto_approve: text(req, 'auto_approve') === 'on',
  });
  const prefixed = (prefix: string) => (error: unknown) => {
    const fields = fieldErrors(error);
    return Object.fromEntries(Object.entries(fields).map(([f, m]) => [`${prefix}${f.startsWith('payout_minimums_cents.') ? `minimum_${f.split('.')[1]}` : f}`, m]));
  };
  router.post(`${base}/groups`, ...form, async (req, res) => {
    const id = await ownProgram(req, res);
    try {
      await partnerGroups.createGroup(app(), scope(res), id, groupInput(req, 'new_'));
    } catch (error) {
      return programPage(req, res, 'groups', { status: 400, fieldErrors: prefixed('new_')(error) });
    }
    back(res, id, 'group', 'groups');
  });
  router.post(`${base}/groups/:groupId`, ...form, async (req, res) => {
    const id = await ownProgram(req, res);
    const prefix = `g${Number(req.params.groupId)}_`;
    try {
      await partnerGroups.updateGroup(app(), scope(res), id, Number(req.params.groupId), groupInput(req, prefix));
    } catch (error) {
      return programPage(req, res, 'groups', { status: (error as AffixError).status ?? 400, fieldErrors: prefixed(prefix)(error) });
    }
    back(res, id, 'group', 'groups');
  });
  router.post(`${base}/applications/settings`, ...form, async (req, res) => {
    const id = await ownProgram(req, res);
    try {
      await updateApplicationSettings(app(), scope(res), id, {
        applications_open: text(req, 'applications_open') === 'on',
        slug: text(req, 'slug'),
        terms_text: String((req.body as Record<string, unknown>).terms_text ?? ''),
        partner_resources: String((req.body as Record<string, unknown>).partner_resources ?? ''),
        // The questions are set on the Brand page's editor; an older form posting lines still sets them.
        field_lines: (req.body as Record<string, unknown>).field_lines === undefined ? undefined : String((req.body as Record<string, unknown>).field_lines),
      });
    } catch (error) {
      return programPage(req, res, 'applications', { status: 400, fieldErrors: fieldErrors(error, { form: 'slug' }), formValues: req.body as Record<string, string> });
    }
    back(res, id, 'application_page', 'applications');
  });
}

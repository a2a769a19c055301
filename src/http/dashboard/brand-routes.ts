// The Brand page's forms (issue 44, item 1): the brand's texts and colour, the logo (a small
// multipart upload, its type read from its bytes by src/core/brand.ts), and the question editor.
import type { Request, Response, Router } from 'express';
import multer from 'multer';
import { editQuestions, removeLogo, updateBrand, uploadLogo } from '../../app/programs/brand.js';
import { type QuestionRow, readEditorAction } from '../../core/application-form.js';
import { LOGO_MAX_BYTES } from '../../core/brand.js';
import { refuseRepeatedFields, refuseUnstorableBody } from '../input-guard.js';
import { fieldErrors } from '../kit/forms.js';
import type { PartnerRouteKit } from './partner-routes.js';

export const BRAND_DONE: Record<string, string> = {
  brand: 'Brand saved: the application page and the portal show it now.',
  logo: 'Logo saved.',
  logo_removed: 'Logo removed.',
  questions: 'Questions saved: the application page asks them in this order.',
};

// One image, at most 200 KB (one byte more is read to tell "too large" from "just fits"), and the form's few fields.
const readLogo = multer({ storage: multer.memoryStorage(), limits: { fileSize: LOGO_MAX_BYTES + 1, files: 1, fields: 4, fieldSize: 1024 } }).single('logo');

const body = (req: Request) => req.body as Record<string, unknown>;
const text = (req: Request, name: string) => String(body(req)[name] ?? '');

/** The editor's rows as posted (`rows` of them), and the row being added. */
function postedRows(req: Request): { rows: QuestionRow[]; added: QuestionRow } {
  const count = Math.min(Math.max(Number(text(req, 'rows')) || 0, 0), 50);
  const row = (prefix: string, suffix: string): QuestionRow => ({
    key: text(req, `key${suffix}`),
    label: text(req, `${prefix}label${suffix}`),
    type: text(req, `${prefix}type${suffix}`),
    required: text(req, `${prefix}required${suffix}`) === 'on',
    options: text(req, `${prefix}options${suffix}`),
  });
  return { rows: Array.from({ length: count }, (_, i) => row('', `_${i}`)), added: row('new_', '') };
}

export function registerBrandRoutes(router: Router, kit: PartnerRouteKit): void {
  const { form, app, scope, ownProgram, programPage, back } = kit;
  const base = '/dashboard/programs/:id';

  router.post(`${base}/brand`, ...form, async (req, res) => {
    const id = await ownProgram(req, res);
    try {
      await updateBrand(app(), scope(res), id, { brand_name: text(req, 'brand_name'), pitch: text(req, 'pitch'), reward_summary: text(req, 'reward_summary'), accent_color: text(req, 'accent_color'), ...(text(req, 'customer_label') ? { customer_label: text(req, 'customer_label') } : {}) });
    } catch (error) {
      return programPage(req, res, 'brand', { status: 400, fieldErrors: fieldErrors(error, { form: 'brand_name' }), formValues: req.body as Record<string, string> });
    }
    back(res, id, 'brand', 'brand');
  });

  const logoRefused = (req: Request, res: Response, message: string, status = 400) => programPage(req, res, 'brand', { status, fieldErrors: { logo: message } });
  router.post(
    `${base}/brand/logo`,
    async (req, res, next) => {
      await ownProgram(req, res);
      next();
    },
    kit.csrfBeforeBody,
    (req, res, next) => {
      readLogo(req, res, (error?: unknown) => {
        res.removeHeader('Connection');
        if (!error) return next();
        if (error instanceof multer.MulterError) {
          const message = error.code === 'LIMIT_FILE_SIZE' ? `The logo is larger than ${LOGO_MAX_BYTES / 1024} KB: at most ${LOGO_MAX_BYTES / 1024} KB.` : 'Send one image, in the logo field.';
          return void logoRefused(req, res, message, error.code === 'LIMIT_FILE_SIZE' ? 413 : 400).catch(next);
        }
        next(error);
      });
    },
    refuseRepeatedFields(),
    refuseUnstorableBody,
    async (req, res) => {
      const id = await ownProgram(req, res);
      try {
        await uploadLogo(app(), scope(res), id, req.file?.buffer);
      } catch (error) {
        return programPage(req, res, 'brand', { status: 400, fieldErrors: fieldErrors(error, { form: 'logo' }) });
      }
      back(res, id, 'logo', 'brand');
    },
  );
  router.post(`${base}/brand/logo/remove`, ...form, async (req, res) => {
    const id = await ownProgram(req, res);
    await removeLogo(app(), scope(res), id);
    back(res, id, 'logo_removed', 'brand');
  });

  // Twenty questions of five fields each: more fields than a plain form takes.
  router.post(`${base}/questions`, ...kit.listForm('op'), async (req, res) => {
    const id = await ownProgram(req, res);
    const { rows, added } = postedRows(req);
    const result = await editQuestions(app(), scope(res), id, rows, added, readEditorAction(body(req).op));
    if (!result.saved) {
      // The added row failed: it stays in the "Add a question" fields; other rows show as edited.
      const adding = readEditorAction(body(req).op).kind === 'add' && !result.problems.new_label;
      return programPage(req, res, 'brand', {
        status: 400,
        fieldErrors: result.problems,
        formValues: req.body as Record<string, string>,
        questionRows: adding ? result.rows.slice(0, -1) : result.rows,
      });
    }
    back(res, id, 'questions', 'brand');
  });
}

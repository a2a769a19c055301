// A file sent from a dashboard form (the partner import's CSV): multipart/form-data, read by multer
// only after the session, the program and the CSRF token (carried by the form's action URL) were
// checked. Each limit is answered 400 or 413 with the limit named, never 500.
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import multer from 'multer';
import { AffixError } from '../../core/errors.js';
import { refuseRepeatedFields, refuseUnstorableBody } from '../input-guard.js';

export const UPLOAD_FIELD = 'file';
export const UPLOAD_MAX_MB = 20;
export const UPLOAD_MAX_FIELDS = 10;
const MAX_BYTES = UPLOAD_MAX_MB * 1024 * 1024;
// The form's other fields are short (dry_run): the checked file is kept server-side, never sent back as text.
const MAX_TEXT_BYTES = 64 * 1024;
/** Larger than any body an accepted form sends (the framing and the other fields included). */
const MAX_BODY_BYTES = MAX_BYTES + 1024 * 1024;

const read = multer({
  storage: multer.memoryStorage(),
  limits: { fileSize: MAX_BYTES, fieldSize: MAX_TEXT_BYTES, files: 1, fields: UPLOAD_MAX_FIELDS },
}).single(UPLOAD_FIELD);

const tooLarge = () => new AffixError(413, `The file is larger than ${UPLOAD_MAX_MB} MB: split it into files of at most ${UPLOAD_MAX_MB} MB.`);

/** What a refused upload is told (multer's own words name no limit), or null for a failure of ours. */
export function uploadRefusal(error: unknown): AffixError | null {
  if (error instanceof multer.MulterError) {
    const field = String(error.field ?? '').slice(0, 40);
    switch (error.code) {
      case 'LIMIT_FILE_SIZE':
        return tooLarge();
      case 'LIMIT_FIELD_VALUE':
        return new AffixError(413, `The field "${field}" is larger than 64 KB: this form takes one CSV file, in its field "${UPLOAD_FIELD}", and short fields.`);
      case 'LIMIT_FILE_COUNT':
        return new AffixError(400, 'Send one file at a time: this form takes one CSV file.');
      case 'LIMIT_UNEXPECTED_FILE':
        return field === UPLOAD_FIELD
          ? new AffixError(400, 'Send one file at a time: this form takes one CSV file.')
          : new AffixError(400, `A file came in the field "${field}": this form takes one CSV file, in its field "${UPLOAD_FIELD}".`);
      case 'LIMIT_FIELD_COUNT':
        return new AffixError(400, `More than ${UPLOAD_MAX_FIELDS} fields were sent: this form takes at most ${UPLOAD_MAX_FIELDS}.`);
      default:
        return new AffixError(400, `The form could not be read: ${error.message.toLowerCase()}.`);
    }
  }
  // busboy's own refusals (no boundary, a part cut short): the body is not a form.
  if (error instanceof Error && /^(Multipart|Malformed|Unexpected end of form)/.test(error.message)) {
    return new AffixError(400, 'The form could not be read (a multipart/form-data body was expected). Choose the file again and send it.');
  }
  return null;
}

/**
 * Reads the form (its file in memory, at most 20 MB). A refused upload goes to `refused` after
 * multer drained the body (so the browser, still sending, sees the answer); the form's text fields
 * then pass the same guards as every other form.
 */
export function uploadBody(refused: (req: Request, res: Response, error: AffixError) => Promise<void>): RequestHandler[] {
  const readForm: RequestHandler = (req, res, next) => {
    read(req, res, (error?: unknown) => {
      res.removeHeader('Connection'); // read to its end: the connection may serve the next request
      if (!error) return next();
      const refusal = uploadRefusal(error);
      if (!refusal) return next(error);
      refused(req, res, refusal).catch(next);
    });
  };
  return [readForm, refuseRepeatedFields(), refuseUnstorableBody];
}

/**
 * Before anything else on a multipart post: a body too large for any upload (or of unknown
 * length) that is refused before it is read (no session, no token, another brand's program) is
 * not read at all: the connection closes after the answer. A smaller one is discarded as it
 * arrives, so a browser still sending sees the answer.
 */
export function closeUnreadLargeUploads(req: Request, res: Response, next: NextFunction): void {
  if (req.method === 'POST' && req.is('multipart/form-data')) {
    const declared = Number(req.headers['content-length']);
    if (!Number.isFinite(declared) || declared > MAX_BODY_BYTES) res.setHeader('Connection', 'close');
  }
  next();
}

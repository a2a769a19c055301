// The fields a partner request shares (adding, editing, a bulk action): tags, an optional
// email, the partner's name and a group reference, each with the words its refusal shows.
import { z } from 'zod';
import { NO_CONTROL_CHARACTERS, hasControlCharacter } from '../../core/names.js';

export const TAG = z.string().trim().toLowerCase().min(1).max(40, 'A tag is at most 40 characters.');
export const tagsField = z
  .union([z.array(TAG), z.string().transform((text) => text.split(',').map((t) => t.trim().toLowerCase()).filter(Boolean))])
  .pipe(z.array(TAG).max(20, 'At most 20 tags.'));
export const optionalEmail = z
  .union([z.literal('').transform(() => null), z.email('Partner email must be an email address.').max(320)])
  .nullish();
export const partnerName = z
  .string({ error: 'Partner name is required.' })
  .trim()
  .min(1, 'Partner name is required.')
  .max(255, 'Partner name is at most 255 characters.')
  .refine((text) => !hasControlCharacter(text), `Partner name ${NO_CONTROL_CHARACTERS}.`);
export const groupRef = z.union([z.coerce.number().int().positive(), z.literal('').transform(() => null), z.null()]).optional();

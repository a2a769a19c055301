// Test-mode rules shared by click, lead and sale (spec §1 conventions, §4.1).
import { MESSAGES, errors } from './errors.js';

export interface AdditionalData {
  test_mode?: unknown;
  program_id?: unknown;
  [key: string]: unknown;
}

export const isTestMode = (data: AdditionalData | null | undefined): boolean => data?.test_mode === true;

/**
 * In test mode, a Bearer key and `additional_data.program_id` naming different programs is a 403.
 * Without a key (browser mode) nothing is checked.
 */
export function assertTestProgramMatchesKey(data: AdditionalData | null | undefined, keyProgramId: number | null): void {
  if (!isTestMode(data) || keyProgramId === null) return;
  const claimed = data?.program_id;
  if (claimed === undefined || claimed === null || claimed === '') return;
  if (String(claimed).trim() !== String(keyProgramId)) throw errors.forbidden(MESSAGES.programMismatch);
}

// The bytes of an uploaded CSV as text (docs/partners.md, "Encodings"). A UTF-8 byte order mark is
// dropped; a UTF-16 one (little or big endian, as Excel's "Unicode text" writes) is decoded. Bytes
// that are not UTF-8 without a mark are refused, in words that name the fix: guessing
// Windows-1252 would silently turn another code page's names into wrong letters.
import { errors } from './errors.js';

const NOT_UTF8 =
  'The file is not UTF-8 (it looks like Latin-1/Windows-1252): save it as UTF-8 ("CSV UTF-8" in Excel, "Unicode (UTF-8)" in LibreOffice or Numbers) and upload it again.';

/** The file's text, or a refusal (400) naming the encoding problem and its fix. */
export function decodeCsvBytes(bytes: Uint8Array): string {
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return utf8(bytes.subarray(3));
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return new TextDecoder('utf-16le').decode(bytes.subarray(2));
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return new TextDecoder('utf-16be').decode(bytes.subarray(2));
  // Without a mark, a NUL in the first two bytes is UTF-16 (a CSV's first letter is never NUL).
  if (bytes.length >= 2 && bytes[1] === 0 && bytes[0] !== 0) return new TextDecoder('utf-16le').decode(bytes);
  if (bytes.length >= 2 && bytes[0] === 0 && bytes[1] !== 0) return new TextDecoder('utf-16be').decode(bytes);
  return utf8(bytes);
}

function utf8(bytes: Uint8Array): string {
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    throw errors.invalid(NOT_UTF8, { csv: NOT_UTF8 });
  }
}

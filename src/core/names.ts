// Names travel into mail headers (a program's or an account's is the sender's name; partners',
// groups' and programs' are in subjects): a line break there would start a header of its own.
// Every name a person types refuses control characters, beside its field.

/** C0 and C1 control characters (CR, LF and tab among them), DEL, and the Unicode line and paragraph separators. */
const CONTROL_CHARACTER = /[\p{Cc}\u2028\u2029]/u;

export const hasControlCharacter = (text: string): boolean => CONTROL_CHARACTER.test(text);

/** The words of the refusal, after the field's own words ("Partner name …", "name …"). */
export const NO_CONTROL_CHARACTERS = 'must not contain line breaks, tabs or other control characters';

/** A name from elsewhere (an identity provider's claim): each run of control characters becomes one space. */
export const withoutControlCharacters = (text: string): string => text.replace(/[\p{Cc}\u2028\u2029]+/gu, ' ').trim();

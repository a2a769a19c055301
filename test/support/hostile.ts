// Values a hostile or broken client sends: odd text (NUL, lone surrogates, number-like strings),
// numbers past the safe range, and nesting; for the property tests of every door.
import fc from 'fast-check';

export const hostileText = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.constantFrom('\u0000', '\ud800', '\udfff', '%ZZ', '1e308', '-0', '-1', '2900.5', '', '💸', ' '.repeat(3)),
);

export const hostileValue = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    hostileText,
    fc.double(),
    fc.constantFrom(2 ** 63, -(2 ** 53), 1e308, 0.5, 0, 2900, Number.MAX_SAFE_INTEGER + 2),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie('value'), { maxLength: 3 }),
    fc.dictionary(hostileText, tie('value'), { maxKeys: 3 }),
  ),
})).value;

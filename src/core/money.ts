// Commission and refund arithmetic in integer cents (BigInt inside, so no float ever touches money).
import { refundedTotalCents } from './disputes.js';
import { minorUnitDigits } from './iso-4217.js';
import type { CommissionStatus, CommissionType, Currency } from './types.js';

const RATE_SCALE = 10_000n;

/**
 * The largest amount Affix accepts, in the currency's smallest unit: 10^12 (ten billion dollars
 * or euros, a trillion dong). Far beyond any real payment, and low enough that sums over many
 * sales stay exact. Larger amounts are refused with a reason, never rounded.
 */
export const MAX_AMOUNT_CENTS = 1_000_000_000_000;

/** Why an amount from outside (an API body, a processor's object) is not usable, or null. */
export function amountProblem(value: unknown, options: { allowZero?: boolean } = {}): string | null {
  if (typeof value !== 'number' || !Number.isSafeInteger(value)) return 'is not a whole number of cents';
  if (value < 0 || (value === 0 && !options.allowZero)) return 'is not positive';
  if (value > MAX_AMOUNT_CENTS) return `is larger than the maximum of ${MAX_AMOUNT_CENTS}`;
  return null;
} // commission_rate is stored with 4 decimals

/** "12.5" -> 125000n (rate x 10^4). Throws on anything that is not a plain positive decimal. */
export function parseRate(rate: string): bigint {
  const match = /^(\d+)(?:\.(\d{1,4}))?$/.exec(rate.trim());
  if (!match) throw new Error(`commission rate ${rate} is not a decimal with at most 4 places`);
  const whole = BigInt(match[1]!);
  const fraction = BigInt((match[2] ?? '').padEnd(4, '0'));
  return whole * RATE_SCALE + fraction;
}

/** Rounds numerator/denominator to the nearest integer, halves away from zero (both positive here). */
function divideRoundHalfUp(numerator: bigint, denominator: bigint): bigint {
  return (numerator * 2n + denominator) / (denominator * 2n);
}

export interface CommissionInput {
  type: CommissionType;
  rate: string;
  amountCents: number;
  currency: Currency;
}

/**
 * percent / recurring_percent: amount x rate / 100, rounded half up to a whole cent.
 * fixed / recurring_fixed: the rate is an amount in the sale currency's major unit
 * in its own minor unit (10 = 10.00 USD = 1000 cents; 10 = 10 JPY; 10 = 10.000 KWD = 10000),
 * never more than the sale itself.
 */
export function computeCommissionCents({ type, rate, amountCents, currency }: CommissionInput): number {
  const scaledRate = parseRate(rate);
  const amount = BigInt(amountCents);
  if (type === 'percent' || type === 'recurring_percent') {
    return Number(divideRoundHalfUp(amount * scaledRate, 100n * RATE_SCALE));
  }
  const minor = 10n ** BigInt(minorUnitDigits(currency));
  const fixed = divideRoundHalfUp(scaledRate * minor, RATE_SCALE);
  return Number(fixed < amount ? fixed : amount);
}

/** The most a flat lead or click amount may be, in major units (far beyond any real reward; keeps every day's sum exact). */
export const MAX_FLAT_REWARD_MAJOR = 1_000_000;

/**
 * A flat amount (major units, up to 4 decimals) times a count, in the currency's minor unit,
 * rounded once, half up: 0.005 USD × 1000 = 500 cents (never a rounded 0.01 × 1000 = 1000).
 * Exact (BigInt) throughout; a product beyond a safe integer is bounded to it (caps then decide).
 */
export function flatTimesCount(rate: string, count: number, currency: Currency): number {
  if (!Number.isSafeInteger(count) || count < 0) throw new Error(`count ${count} is not a whole number`);
  const minor = 10n ** BigInt(minorUnitDigits(currency));
  const cents = divideRoundHalfUp(parseRate(rate) * minor * BigInt(count), RATE_SCALE);
  return cents > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : Number(cents);
}

/** Whether a flat amount is exact in the currency's minor unit ("0.10" USD is; "0.005" USD is not). */
export function flatIsWholeMinor(rate: string, currency: Currency): boolean {
  return (parseRate(rate) * 10n ** BigInt(minorUnitDigits(currency))) % RATE_SCALE === 0n;
}

export interface RefundState {
  saleAmountCents: number;
  commissionAmountCents: number;
  /** Refunds and chargebacks together (src/core/disputes.ts refundedTotalCents), never more than the sale. */
  refundedTotalCents: number;
  /** Of all refunded, what refunds count by their own amounts; chargebacks count the rest. */
  refundsCents: number;
  deductedCents: number;
  status: CommissionStatus;
}

/** A refund counts by its own amount within what other refunds left; a chargeback only what is left of the sale. */
export type RefundKind = 'refund' | 'chargeback';

export type RefundOutcome =
  | { kind: 'skipped' }
  | {
      kind: 'applied';
      refundCents: number;
      refundedTotalCents: number;
      deductionCents: number;
      deductedCents: number;
      status: Extract<CommissionStatus, 'refunded' | 'reversed'>;
    };

/** The commission's deduction on a running refunded total: round(C x T / S), all of it once the sale is refunded. */
function deductionAt(state: RefundState, refundedTotalCents: number): number {
  if (refundedTotalCents >= state.saleAmountCents) return state.commissionAmountCents;
  return Number(divideRoundHalfUp(BigInt(state.commissionAmountCents) * BigInt(refundedTotalCents), BigInt(state.saleAmountCents)));
}

export interface RefundedCommission {
  refundedTotalCents: number;
  deductedCents: number;
  /** Deduction given back to the commission (when the total went down). */
  restoredCents: number;
  status: CommissionStatus;
}

/**
 * The commission at a new running refunded total: the deduction follows the total (never less
 * than was deducted when the total grows, never more when it shrinks), so any sequence of
 * refunds, chargebacks and their reversals ends exactly where the total says.
 */
export function commissionAtRefundedTotal(state: RefundState, refundedTotalCents: number): RefundedCommission {
  const status: CommissionStatus =
    refundedTotalCents >= state.saleAmountCents ? 'reversed' : refundedTotalCents > 0 ? 'refunded' : 'pending';
  const target = deductionAt(state, refundedTotalCents);
  const deductedCents =
    refundedTotalCents >= state.refundedTotalCents ? Math.max(target, state.deductedCents) : Math.min(target, state.deductedCents);
  return { refundedTotalCents, deductedCents, restoredCents: Math.max(0, state.deductedCents - deductedCents), status };
}

/**
 * Applies one refund or chargeback. `requestedCents` undefined or 0 takes everything it may. A
 * refund is counted by its own amount within the sale less the other refunds, even while
 * chargebacks cover the whole sale (then the total stays at the sale: the chargebacks count
 * less); a chargeback counts only what is not yet refunded. The commission deduction is
 * computed on the running total (round(C x T / S) minus what was already deducted), so any
 * sequence of partial refunds ends exactly at the commission.
 */
export function applyRefund(state: RefundState, requestedCents: number | undefined, kind: RefundKind = 'refund'): RefundOutcome {
  const chargebacksCents = state.refundedTotalCents - state.refundsCents;
  const room = state.saleAmountCents - (kind === 'refund' ? state.refundsCents : state.refundedTotalCents);
  if (room <= 0) return { kind: 'skipped' };
  const refundCents = requestedCents ? Math.min(requestedCents, room) : room;
  const refundedTotal =
    kind === 'refund'
      ? refundedTotalCents(state.saleAmountCents, state.refundsCents + refundCents, chargebacksCents)
      : refundedTotalCents(state.saleAmountCents, state.refundsCents, chargebacksCents + refundCents);
  const next = commissionAtRefundedTotal(state, refundedTotal);
  return {
    kind: 'applied',
    refundCents,
    refundedTotalCents: next.refundedTotalCents,
    deductionCents: next.deductedCents - state.deductedCents,
    deductedCents: next.deductedCents,
    status: next.status === 'reversed' ? 'reversed' : 'refunded',
  };
}

/**
 * Takes a refund that failed back out of the running total: the deduction is recomputed on
 * the smaller total (the same rule as applyRefund), never more than was deducted.
 */
export function reverseRefund(state: RefundState, failedCents: number): RefundedCommission {
  return commissionAtRefundedTotal(state, Math.max(0, state.refundedTotalCents - failedCents));
}

/** Minor units in the currency's major unit, as a plain decimal: "1234.50", "-0.05", "250000" (VND), "12.345" (KWD). */
export function majorUnits(cents: string | number, currency: Currency): string {
  return decimalText(BigInt(cents), minorUnitDigits(currency));
}

/** An integer count of 10^-digits as a plain decimal: (123450n, 2) → "1234.50"; (5n, 0) → "5". */
export function decimalText(value: bigint, digits: number): string {
  const sign = value < 0n ? '-' : '';
  const abs = value < 0n ? -value : value;
  if (digits === 0) return `${sign}${abs}`;
  const unit = 10n ** BigInt(digits);
  return `${sign}${abs / unit}.${(abs % unit).toString().padStart(digits, '0')}`;
}

const MONEY_FORMATS = new Map<Currency, Intl.NumberFormat>();

/**
 * Cents as people read them, through Intl.NumberFormat: "$1,234.50", "€12.00", "₫250,000" (no
 * decimals where the currency has none). Exact for any size: the decimal string goes in, never a
 * float.
 */
export function formatMoney(cents: string | number, currency: Currency): string {
  let format = MONEY_FORMATS.get(currency);
  if (!format) {
    const digits = minorUnitDigits(currency);
    format = new Intl.NumberFormat('en-US', { style: 'currency', currency, minimumFractionDigits: digits, maximumFractionDigits: digits });
    MONEY_FORMATS.set(currency, format);
  }
  // The string form keeps every digit (Intl.NumberFormat v3 reads decimal strings exactly).
  return format.format(majorUnits(cents, currency) as unknown as number);
}

/**
 * An amount typed in the currency's major unit ("50", "50.5", "1,000.00") as its smallest unit
 * (5000, 5050, 100000); null when it is not such an amount (more decimals than the currency has,
 * a sign, letters). VND and JPY have no decimals, KWD three.
 */
export function parseMajorUnits(text: string, currency: Currency): number | null {
  const digits = minorUnitDigits(currency);
  const plain = text.trim().replaceAll(',', '');
  const match = (digits === 0 ? /^(\d+)$/ : new RegExp(`^(\\d+)(?:\\.(\\d{1,${digits}}))?$`)).exec(plain);
  if (!match) return null;
  const cents = BigInt(match[1]!) * 10n ** BigInt(digits) + BigInt((match[2] ?? '').padEnd(digits, '0') || '0');
  return cents <= BigInt(MAX_AMOUNT_CENTS) ? Number(cents) : null;
}

// Command-line argument parsers shared by the commands.
import { InvalidArgumentError } from 'commander';

export const positiveInt = (value: string): number => {
  if (!/^\d+$/.test(value) || Number(value) <= 0) throw new InvalidArgumentError('expected a positive integer');
  return Number(value);
};
export const positiveNumber = (value: string): number => {
  const parsed = Number(value);
  if (!Number.isFinite(parsed) || parsed <= 0) throw new InvalidArgumentError('expected a positive number');
  return parsed;
};

/** `--minimum USD=5000`, repeatable: one minimum per currency, in its smallest unit. */
export function minimumFlag(value: string, previous: Record<string, number>): Record<string, number> {
  const match = /^([A-Za-z]{3})=(\d+)$/.exec(value.trim());
  if (!match) throw new InvalidArgumentError('give CURRENCY=cents, like USD=5000');
  return { ...previous, [match[1]!.toUpperCase()]: Number(match[2]) };
}

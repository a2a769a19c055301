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

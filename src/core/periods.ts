// The dashboard's periods: the presets people pick, the period before one (to compare with),
// and the change between two numbers in words. Days are UTC; `to` is exclusive.

const DAY = 86_400_000;

export interface Period {
  from: Date;
  to: Date;
}

export type PresetKey = '7d' | '30d' | '90d' | 'month' | 'year';
export const PRESETS: { key: PresetKey; words: string }[] = [
  { key: '7d', words: 'Last 7 days' },
  { key: '30d', words: 'Last 30 days' },
  { key: '90d', words: 'Last 90 days' },
  { key: 'month', words: 'This month' },
  { key: 'year', words: 'This year' },
];

const startOfDay = (d: Date) => new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate()));

/** A preset's days, up to and including today. */
export function presetPeriod(key: PresetKey, now: Date): Period {
  const to = new Date(startOfDay(now).getTime() + DAY);
  if (key === 'month') return { from: new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1)), to };
  if (key === 'year') return { from: new Date(Date.UTC(now.getUTCFullYear(), 0, 1)), to };
  const days = { '7d': 7, '30d': 30, '90d': 90 }[key];
  return { from: new Date(to.getTime() - days * DAY), to };
}

/** The preset these days are, if any (the page marks it). */
export function presetOf(period: Period, now: Date): PresetKey | null {
  return PRESETS.find(({ key }) => {
    const preset = presetPeriod(key, now);
    return preset.from.getTime() === period.from.getTime() && preset.to.getTime() === period.to.getTime();
  })?.key ?? null;
}

/** As many days, just before. */
export function previousPeriod({ from, to }: Period): Period {
  return { from: new Date(from.getTime() - (to.getTime() - from.getTime())), to: from };
}

/** "+12%", "−5%", "no change", "new" (nothing before), or "" when there is nothing either time. */
export function changeInWords(now: number, before: number): string {
  if (now === before) return now === 0 ? '' : 'no change';
  if (before === 0) return 'new';
  const percent = Math.round(((now - before) / before) * 100);
  if (percent === 0) return now > before ? '+<1%' : '−<1%';
  return percent > 0 ? `+${percent}%` : `−${Math.abs(percent)}%`;
}

/**
 * Choosing searches to compare in the sidebar, and how a comparison is named
 * and summed up. Pure functions.
 */

import { MAX_COMPARED, type ICompared } from './api';
import { formatScore } from './format';

/** Whether this many ticked searches make a comparison: two or more, up to the server's limit. */
export function canCompare(count: number): boolean {
  return count >= 2 && count <= MAX_COMPARED;
}

/** Adds `name` to the ticked list, or takes it out when it is there. */
export function toggle(checked: string[], name: string): void {
  const index = checked.indexOf(name);
  if (index >= 0) {
    checked.splice(index, 1);
  } else {
    checked.push(name);
  }
}

/** `a vs b vs c`, shortened past three names. */
export function comparisonTitle(names: readonly string[]): string {
  return names.length <= 3 ? names.join(' vs ') : `${names.slice(0, 3).join(' vs ')} +${names.length - 3}`;
}

/**
 * What the comparison says of searches with several objectives: a search has
 * no one best value to follow, so it is compared by its first objective, and
 * the view says so, naming the others.
 */
export function severalObjectivesNote(searches: readonly ICompared[]): string {
  const several = searches.filter(search => (search.objectives?.length ?? 0) > 1);
  if (!several.length) {
    return '';
  }
  const each = several.map(search => `${search.name} (${(search.objectives ?? []).map(o => o.name).join(', ')})`);
  const verb = several.length === 1 ? 'has' : 'have';
  return `${each.join(' and ')} ${verb} several objectives: compared here by the first objective alone; open a search for its Pareto front.`;
}

/** One row per search: its name, metric and mode, finished trials, final best. */
export function comparisonRows(searches: readonly ICompared[]): string[][] {
  return searches.map(search => [
    search.name,
    `${search.mode} ${search.metric}${(search.objectives?.length ?? 0) > 1 ? ` (first of ${search.objectives?.length} objectives)` : ''}`,
    String(search.trial_ids.length),
    formatScore(search.best.length ? search.best[search.best.length - 1] : null)
  ]);
}


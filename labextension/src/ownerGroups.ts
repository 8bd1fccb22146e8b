import type { IExperimentSummary } from './api';

/**
 * The entries of `shown`: yours (and those stored before owners were kept), then the team's,
 * each group under a heading when a shared store has both; no heading for one person's store.
 */
export function groupByOwner<T>(
  shown: IExperimentSummary[],
  item: (experiment: IExperimentSummary) => T,
  heading: (text: string) => T
): T[] {
  const team = shown.filter(experiment => experiment.group === 'team');
  if (team.length === 0) {
    return shown.map(item);
  }
  const mine = shown.filter(experiment => experiment.group !== 'team');
  return [...(mine.length ? [heading('Mine'), ...mine.map(item)] : []), heading("The team's"), ...team.map(item)];
}

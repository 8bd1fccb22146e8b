/**
 * Ranking of trials by score, aware of the search's mode (min or max).
 */

/** The fields of a trial the leaderboard needs. */
export interface IRankable {
  trial_id: number;
  score: number | null;
}

/** Optimisation direction of a search. */
export type Mode = 'min' | 'max';

function isScore(value: number | null | undefined): value is number {
  return typeof value === 'number' && Number.isFinite(value);
}

/**
 * Trials sorted best first: ascending scores for `min`, descending for `max`;
 * trials without a score come last, in trial order. The input is not changed.
 */
export function rankTrials<T extends IRankable>(trials: readonly T[], mode: Mode): T[] {
  const sign = mode === 'max' ? -1 : 1;
  return [...trials].sort((a, b) => {
    const aScored = isScore(a.score);
    const bScored = isScore(b.score);
    if (aScored && bScored) {
      const diff = sign * ((a.score as number) - (b.score as number));
      return diff !== 0 ? diff : a.trial_id - b.trial_id;
    }
    if (aScored !== bScored) {
      return aScored ? -1 : 1;
    }
    return a.trial_id - b.trial_id;
  });
}

/** Names of all parameters seen in any trial, sorted. */
export function parameterNames(trials: readonly { params: Record<string, unknown> }[]): string[] {
  const names = new Set<string>();
  for (const trial of trials) {
    for (const key of Object.keys(trial.params ?? {})) {
      names.add(key);
    }
  }
  return [...names].sort();
}

/**
 * The ranks of a trial that spans several workers, as the view shows them: "2 ranks" in its
 * leaderboard row, and a line per rank (its worker and state) in its log panel. Pure functions
 * over what the routes send (`ranks` of a leaderboard row and of a trial's log).
 */

import { stateClass } from './format';
import type { ITrialRanks } from './viewTypes';

/** A rank's line in the log panel: its number, the host of its worker, its state and the badge's class. */
export interface IRankLine {
  rank: string;
  host: string;
  state: string;
  badge: string;
}

/** The trial state whose colour a rank's state takes (a rank still starting keeps the plain badge). */
const AS_TRIAL_STATE: Record<string, string> = {
  running: 'RUNNING',
  completed: 'COMPLETED',
  failed: 'FAILED',
  stopped: 'STOPPED',
  lost: 'FAILED'
};

/** What a trial's row says of its gang: `2 ranks`. */
export function rankCountLabel(ranks: ITrialRanks): string {
  const count = ranks.ranks.length;
  return `${count} rank${count === 1 ? '' : 's'}`;
}

/** The heading of the ranks in the log panel: `2 ranks`, with the attempt after a retry. */
export function ranksHeading(ranks: ITrialRanks): string {
  const label = rankCountLabel(ranks);
  return ranks.attempt > 0 ? `${label} · attempt ${ranks.attempt + 1}` : label;
}

/** The class of a rank's state badge, coloured as the trial state it is most like. */
export function rankBadgeClass(state: string): string {
  const like = AS_TRIAL_STATE[state];
  return `hpnb-badge hpnb-rank-state ${like ? stateClass(like) : 'hpnb-state-starting'}`;
}

/** One line per rank, in rank order. */
export function rankLines(ranks: ITrialRanks): IRankLine[] {
  return [...ranks.ranks]
    .sort((a, b) => a.rank - b.rank)
    .map(rank => ({ rank: String(rank.rank), host: rank.host, state: rank.state, badge: rankBadgeClass(rank.state) }));
}

/** Whether `shown` and `now` differ (a rank changed state or worker, or a new attempt began). */
export function ranksChanged(shown: ITrialRanks | null | undefined, now: ITrialRanks | null | undefined): boolean {
  return JSON.stringify(shown ?? null) !== JSON.stringify(now ?? null);
}

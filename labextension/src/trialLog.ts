/**
 * The panel of the selected trial: its parameters and what it printed
 * (stdout, stderr, its traceback), the worker it ran on and its peak memory; for a trial that
 * spans several workers, each rank's worker and state.
 */

import type { HpnbClient, IArtifact, ITrialLog, ITrialRanks } from './api';
import { formatBytes, formatParams, logSummary } from './format';
import { rankLines, ranksChanged, ranksHeading } from './ranks';
import { element } from './resume';

function block(title: string, text: string, className: string): HTMLElement {
  const box = element('div', `hpnb-log-block ${className}`);
  box.append(element('div', 'hpnb-log-title', title), element('pre', 'hpnb-log-text', text));
  return box;
}

/** The ranks of a trial that spans several workers: a heading, then a row per rank (worker, state). */
function ranksBlock(ranks: ITrialRanks): HTMLElement {
  const box = element('div', 'hpnb-log-block hpnb-ranks');
  box.title = ranks.summary;
  const table = element('table', 'hpnb-ranks-table');
  const head = table.createTHead().insertRow();
  for (const title of ['rank', 'worker', 'state']) {
    head.append(element('th', '', title));
  }
  const body = table.createTBody();
  for (const line of rankLines(ranks)) {
    const row = body.insertRow();
    row.dataset.rank = line.rank;
    row.insertCell().textContent = line.rank;
    row.insertCell().append(element('code', '', line.host));
    row.insertCell().append(element('span', line.badge, line.state));
  }
  box.append(element('div', 'hpnb-log-title', ranksHeading(ranks)), table);
  return box;
}

/** Shows one trial's log; `show` again for another trial, `clear` when none is selected. */
export class TrialLogPanel {
  readonly node = element('section', 'hpnb-section hpnb-trial-panel');
  private shown: number | null = null;
  /** The ranks shown (of the trial shown), and where; null when it has none. */
  private ranks: { data: ITrialRanks | null; node: HTMLElement } | null = null;

  constructor(
    private readonly client: HpnbClient,
    private readonly experimentName: string
  ) {
    this.node.hidden = true;
  }

  /** Fetches and shows the log of `trialId` with its parameters. */
  async show(trialId: number, params: Record<string, unknown> | null): Promise<void> {
    this.shown = trialId;
    this.ranks = null;
    this.node.hidden = false;
    const heading = element('h3', '', `Trial ${trialId}`);
    const paramsLine = element('div', 'hpnb-trial-params', params ? formatParams(params) : '');
    this.node.replaceChildren(heading, paramsLine, element('div', 'hpnb-log-status', 'Loading its output…'));
    // asked beside the log: a store without artifacts to show answers with an error, and the log is all there is
    const artifacts = this.client.trialArtifacts(this.experimentName, trialId).catch((): IArtifact[] => []);
    let log: ITrialLog;
    try {
      log = await this.client.trialLog(this.experimentName, trialId);
    } catch (error) {
      if (this.shown === trialId) {
        this.node.replaceChildren(heading, paramsLine, element('div', 'hpnb-error', `Cannot load the log: ${(error as Error).message}`));
      }
      return;
    }
    if (this.shown !== trialId) {
      return; // another trial was selected meanwhile
    }
    const parts: HTMLElement[] = [heading, paramsLine, element('div', 'hpnb-log-summary', logSummary(log))];
    if (log.note) {
      parts.push(element('div', 'hpnb-log-note', log.note));
    }
    const ranks = log.ranks ? ranksBlock(log.ranks) : element('div', 'hpnb-ranks-none');
    this.ranks = { data: log.ranks ?? null, node: ranks };
    parts.push(ranks);
    if (log.truncated) {
      parts.push(element('div', 'hpnb-log-note', 'Only the end of its output is kept.'));
    }
    if (log.traceback) {
      parts.push(block('Traceback', log.traceback, 'hpnb-log-traceback'));
    }
    parts.push(block('stdout', log.stdout || '(nothing printed)', 'hpnb-log-stdout'));
    if (log.stderr) {
      parts.push(block('stderr', log.stderr, 'hpnb-log-stderr'));
    }
    this.node.replaceChildren(...parts);
    this.showArtifacts(trialId, await artifacts);
  }

  /**
   * The ranks of `trialId` as the view's last poll read them (its leaderboard row's): redrawn
   * when the trial is the one shown and they changed.
   */
  updateRanks(trialId: number, ranks: ITrialRanks | null): void {
    if (this.shown !== trialId || !this.ranks || !ranksChanged(this.ranks.data, ranks)) {
      return;
    }
    const node = ranks ? ranksBlock(ranks) : element('div', 'hpnb-ranks-none');
    this.ranks.node.replaceWith(node);
    this.ranks = { data: ranks, node };
  }

  /** Adds the trial's artifacts under its log: a download link each, images shown. */
  private showArtifacts(trialId: number, artifacts: IArtifact[]): void {
    if (this.shown !== trialId || artifacts.length === 0) {
      return;
    }
    const box = element('div', 'hpnb-log-block hpnb-artifacts');
    box.append(element('div', 'hpnb-log-title', 'Artifacts'));
    for (const artifact of artifacts) {
      const line = element('div', 'hpnb-artifact');
      const link = element('a', '', artifact.name);
      link.href = artifact.url;
      const image = /\.(png|jpe?g|gif|webp)$/i.test(artifact.name);
      if (image) {
        link.target = '_blank';
        link.rel = 'noopener';
      } else {
        link.download = artifact.name.split('/').pop() ?? artifact.name; // saved, not opened in a tab
      }
      line.append(link, element('span', 'hpnb-artifact-size', ` ${formatBytes(artifact.size)}`));
      if (image) {
        const image = element('img', 'hpnb-artifact-image');
        image.src = artifact.url;
        image.alt = artifact.name;
        line.append(image);
      }
      box.append(line);
    }
    this.node.append(box);
  }

  /** Hides the panel. */
  clear(): void {
    this.shown = null;
    this.ranks = null;
    this.node.hidden = true;
    this.node.replaceChildren();
  }
}

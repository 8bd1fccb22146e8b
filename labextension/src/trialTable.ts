/**
 * The leaderboard of the experiment view: a table of one page of trials,
 * sorted by the server by any column (click a header; again to reverse),
 * states as coloured badges, the selected trial's row highlighted.
 */

import type { ILeaderboardPage, ILeaderboardRow } from './api';
import { patchChildren } from './domPatch';
import { formatClock, formatDuration, formatParam, stateClass } from './format';
import {
  DEFAULT_SORT,
  leaderboardColumns,
  nextSort,
  pageLabel,
  rankText,
  scoreCell,
  scoreText,
  type IColumn,
  type ISortState
} from './leaderboard';
import { rankCountLabel } from './ranks';
import { element } from './resume';

/** Rows per page of the leaderboard. */
export const PAGE_ROWS = 100;

function cellContent(row: ILeaderboardRow, column: IColumn, now: number): HTMLElement | string {
  switch (column.key) {
    case 'rank':
      return rankText(row);
    case 'trial':
      return String(row.trial_id);
    case 'score': {
      const cell = scoreCell(scoreText(row.score, row.partial), row);
      if (!cell.title) {
        return cell.text;
      }
      const marked = element('span', 'hpnb-infeasible', cell.text);
      marked.title = cell.title;
      return marked;
    }
    case 'state': {
      const badge = element('span', `hpnb-badge ${stateClass(row.state)}`, row.state.toLowerCase());
      if (!row.ranks) {
        return badge;
      }
      const cell = element('span', 'hpnb-state-cell');
      const count = element('span', 'hpnb-rank-count', ` ${rankCountLabel(row.ranks)}`);
      count.title = row.ranks.summary;
      cell.append(badge, count);
      return cell;
    }
    case 'duration':
      return formatDuration(row.duration);
    case 'start':
      return formatClock(row.start, now);
    case 'pareto':
      return typeof row.pareto_rank === 'number' ? String(row.pareto_rank) : '—';
    default: {
      if (column.key.startsWith('objective:')) {
        return scoreText(row.values?.[column.key.slice('objective:'.length)] ?? null, row.partial);
      }
      const name = column.key.slice('param:'.length);
      return name in row.params ? formatParam(row.params[name]) : '';
    }
  }
}

/** The table, its pager, and what was asked of it. */
export class TrialTable {
  readonly node = element('div', 'hpnb-table-box');
  sort: ISortState = { ...DEFAULT_SORT };
  offset = 0;
  private readonly pager = element('div', 'hpnb-pager');
  private readonly table = element('table', 'hpnb-leaderboard');
  private total = 0;

  /**
   * @param onQuery - the sort or page changed: fetch the page again
   * @param onSelect - a row was clicked (its trial id)
   */
  constructor(
    private readonly onQuery: () => void,
    private readonly onSelect: (trialId: number) => void
  ) {
    this.node.append(this.pager, this.table);
    this.table.addEventListener('click', event => this.onClick(event));
    this.pager.addEventListener('click', event => this.onPage(event));
  }

  /** Draws a page from the server, the `selected` trial's row highlighted. */
  render(page: ILeaderboardPage, selected: number | null, now: number): void {
    this.total = page.total;
    const columns = leaderboardColumns(page.metric, page.columns, page.objectives ?? []);
    const head = document.createElement('thead');
    const headRow = head.insertRow();
    for (const column of columns) {
      const th = element('th', 'hpnb-sortable', column.label);
      th.dataset.sort = column.key;
      th.title = `Sort by ${column.label}`;
      if (column.key === page.sort) {
        th.classList.add(`hpnb-sorted-${page.order}`);
        th.setAttribute('aria-sort', page.order === 'asc' ? 'ascending' : 'descending');
      }
      headRow.append(th);
    }
    const body = document.createElement('tbody');
    for (const row of page.rows) {
      const tr = body.insertRow();
      tr.dataset.trial = String(row.trial_id);
      tr.classList.toggle('hpnb-row-selected', row.trial_id === selected);
      for (const column of columns) {
        const td = tr.insertCell();
        td.append(cellContent(row, column, now));
      }
    }
    patchChildren(this.table, [head, body]); // in place: a click across a refresh still counts
    this.renderPager(page.offset, page.rows.length, page.total);
  }

  /** Moves the highlight to `selected` without fetching anything. */
  highlight(selected: number | null): void {
    this.table.querySelectorAll<HTMLTableRowElement>('tbody tr').forEach(row => {
      row.classList.toggle('hpnb-row-selected', row.dataset.trial === String(selected));
    });
  }

  private renderPager(offset: number, shown: number, total: number): void {
    const previous = element('button', 'hpnb-page-previous jp-mod-styled', '‹ Previous');
    previous.disabled = offset === 0;
    previous.dataset.page = '-1';
    const next = element('button', 'hpnb-page-next jp-mod-styled', 'Next ›');
    next.disabled = offset + shown >= total;
    next.dataset.page = '1';
    const label = element('span', 'hpnb-page-label', pageLabel(offset, shown, total));
    patchChildren(this.pager, [previous, label, next]);
    this.pager.hidden = total <= PAGE_ROWS;
  }

  private onClick(event: MouseEvent): void {
    const target = event.target as HTMLElement;
    const header = target.closest<HTMLElement>('th[data-sort]');
    if (header?.dataset.sort) {
      this.sort = nextSort(this.sort, header.dataset.sort);
      this.offset = 0;
      this.onQuery();
      return;
    }
    const row = target.closest<HTMLElement>('tr[data-trial]');
    if (row?.dataset.trial) {
      this.onSelect(Number(row.dataset.trial));
    }
  }

  private onPage(event: MouseEvent): void {
    const button = (event.target as HTMLElement).closest<HTMLButtonElement>('button[data-page]');
    if (!button || button.disabled) {
      return;
    }
    const moved = this.offset + Number(button.dataset.page) * PAGE_ROWS;
    this.offset = Math.max(0, Math.min(moved, Math.max(0, this.total - 1)));
    this.onQuery();
  }
}

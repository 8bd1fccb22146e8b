/** Types of look.js: how hpnb's dashboards look (colours, digits, axis rules). */
export interface ILook {
  colors: {
    best: string;
    selected: string;
    running: string;
    completed: string;
    faded: string;
    states: Record<string, string>;
  };
  numbers: { significant: number };
  axes: { log_tick_format: string; log_title_suffix: string };
}

export const LOOK: ILook;

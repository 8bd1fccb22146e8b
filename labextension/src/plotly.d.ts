/** The part of plotly.js that the views use. */
declare module 'plotly.js-dist-min' {
  export function react(
    root: HTMLElement,
    data: unknown[],
    layout?: Record<string, unknown>,
    config?: Record<string, unknown>
  ): Promise<HTMLElement>;
  export function restyle(root: HTMLElement, update: Record<string, unknown[]>, traces: number[]): Promise<HTMLElement>;
  export function purge(root: HTMLElement): void;
  export const Plots: { resize(root: HTMLElement): Promise<void> };
}

/**
 * The Resume… action of an interrupted search. The browser cannot run the
 * search's objective, so it explains the two ways to continue it (a line magic
 * in a notebook whose kernel defines the objective, or `hpnb resume` in a
 * terminal) and copies the notebook command where the browser allows.
 */

import { Dialog, showDialog } from '@jupyterlab/apputils';
import { Widget } from '@lumino/widgets';

import { resumeCommands } from './format';

/** Label of the Resume… buttons of the sidebar and the experiment view. */
export const RESUME_LABEL = 'Resume…';

/**
 * Copies `text` to the system clipboard; false when the browser does not allow
 * it (no Clipboard API outside secure contexts, a denied permission, …).
 */
export async function copyText(text: string): Promise<boolean> {
  try {
    if (navigator.clipboard?.writeText) {
      await navigator.clipboard.writeText(text);
      return true;
    }
  } catch {
    // denied: try the older way below
  }
  const area = document.createElement('textarea');
  area.value = text;
  area.readOnly = true;
  area.style.position = 'fixed';
  area.style.opacity = '0';
  document.body.append(area);
  area.select();
  try {
    return document.execCommand('copy');
  } catch {
    return false;
  } finally {
    area.remove();
  }
}

/** A new element with a class and, optionally, its text. */
export function element<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  className: string,
  text?: string
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  node.className = className;
  if (text !== undefined) {
    node.textContent = text;
  }
  return node;
}

/** A Resume… button for the search `name`; the caller handles its click. */
export function resumeButton(name: string, className = ''): HTMLButtonElement {
  const button = element('button', `hpnb-resume jp-mod-styled jp-mod-accept ${className}`.trim(), RESUME_LABEL);
  button.type = 'button';
  button.title = `How to continue ${name}: its driver stopped without finishing it`;
  return button;
}

/**
 * Shows how to continue the interrupted search `name`, copying the notebook
 * command to the clipboard first (while the click still counts as a user gesture).
 */
export async function showResumeDialog(name: string): Promise<void> {
  const commands = resumeCommands(name);
  const copied = copyText(commands.notebook);

  const body = element('div', 'hpnb-resume-dialog');
  body.append(
    element(
      'p',
      'hpnb-resume-intro',
      `The process that drove ${name} stopped without finishing it. Finished trials are kept; ` +
        'interrupted ones run again. The browser cannot run the objective, so continue it in one of two ways:'
    )
  );
  const status = element('p', 'hpnb-resume-status');
  const ways: [string, string, string][] = [
    ['notebook', 'In a notebook whose kernel defines the objective:', commands.notebook],
    ['terminal', 'Or in a terminal, naming the objective as module:function (e.g. train:train):', commands.terminal]
  ];
  for (const [key, label, command] of ways) {
    const way = element('div', `hpnb-resume-way hpnb-resume-${key}`);
    const line = element('div', 'hpnb-resume-line');
    const code = element('code', 'hpnb-resume-command', command);
    const copy = element('button', 'hpnb-resume-copy jp-mod-styled', 'Copy');
    copy.type = 'button';
    copy.title = `Copy ${command}`;
    copy.addEventListener('click', () => {
      void copyText(command).then(ok => {
        status.textContent = ok ? `Copied ${command}` : 'The browser did not allow copying: select the command instead.';
      });
    });
    line.append(code, copy);
    way.append(element('div', 'hpnb-resume-label', label), line);
    body.append(way);
  }
  body.append(status);
  void copied.then(ok => {
    if (ok && !status.textContent) {
      status.textContent = `Copied ${commands.notebook} to the clipboard.`;
    }
  });

  await showDialog({
    title: `Resume ${name}`,
    body: new Widget({ node: body }),
    buttons: [Dialog.okButton({ label: 'Close' })]
  });
}

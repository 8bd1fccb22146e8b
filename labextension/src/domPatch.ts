/**
 * Redraws a part of the page in place. A list redrawn by replacing its rows
 * loses a click whose press and release fall on either side of the redraw:
 * the browser sends the click to what the two share, and the pressed row is
 * gone. Patching keeps every node whose kind did not change and updates only
 * its attributes and text, so a click always reaches the row it was pressed on.
 *
 * Nodes are matched by position; an element matches only one with the same
 * {@link IDENTITY} attributes, so a row is never turned into another search's
 * or another trial's row.
 */

/** The attributes that say which thing an element shows: a search's name, a trial's id. */
export const IDENTITY = ['data-name', 'data-trial'];

/** Makes `target`'s children look like `fresh`, keeping the nodes of the same kind. */
export function patchChildren(target: Node, fresh: readonly Node[]): void {
  fresh.forEach((node, index) => {
    const old = target.childNodes[index];
    if (old === undefined) {
      target.appendChild(node);
    } else if (!patchNode(old, node)) {
      target.replaceChild(node, old);
    }
  });
  while (target.childNodes.length > fresh.length) {
    target.removeChild(target.childNodes[fresh.length]);
  }
}

/** Updates `old` to look like `fresh`; false when they differ in kind (`old` must be replaced). */
function patchNode(old: Node, fresh: Node): boolean {
  if (old.nodeType === Node.TEXT_NODE && fresh.nodeType === Node.TEXT_NODE) {
    if (old.nodeValue !== fresh.nodeValue) {
      old.nodeValue = fresh.nodeValue;
    }
    return true;
  }
  if (!(old instanceof HTMLElement && fresh instanceof HTMLElement) || !sameKind(old, fresh)) {
    return false;
  }
  patchAttributes(old, fresh);
  if (old instanceof HTMLInputElement && fresh instanceof HTMLInputElement) {
    old.checked = fresh.checked; // a property: the attribute is only its default
    if (old.value !== fresh.value) {
      old.value = fresh.value;
    }
  }
  patchChildren(old, Array.from(fresh.childNodes));
  return true;
}

function sameKind(old: HTMLElement, fresh: HTMLElement): boolean {
  return old.tagName === fresh.tagName && IDENTITY.every(name => old.getAttribute(name) === fresh.getAttribute(name));
}

function patchAttributes(old: Element, fresh: Element): void {
  for (const name of old.getAttributeNames()) {
    if (!fresh.hasAttribute(name)) {
      old.removeAttribute(name);
    }
  }
  for (const name of fresh.getAttributeNames()) {
    const value = fresh.getAttribute(name) as string;
    if (old.getAttribute(name) !== value) {
      old.setAttribute(name, value);
    }
  }
}

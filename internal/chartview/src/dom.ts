// Building elements. Text from an answer only ever becomes text nodes and
// attribute values, never markup.

const svgNS = "http://www.w3.org/2000/svg";

type Attrs = Record<string, string | number | boolean | undefined>;
type Child = Node | string | null | undefined | false;

function fill<E extends Element>(e: E, attrs: Attrs, children: Child[]): E {
  for (const [k, v] of Object.entries(attrs)) {
    if (v !== undefined && v !== false) {
      e.setAttribute(k, v === true ? "" : String(v));
    }
  }
  for (const c of children) {
    if (c !== null && c !== undefined && c !== false) {
      e.append(c);
    }
  }
  return e;
}

/** An HTML element. */
export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Attrs = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
  return fill(document.createElement(tag), attrs, children);
}

/** An SVG element. */
export function s<K extends keyof SVGElementTagNameMap>(tag: K, attrs: Attrs = {}, ...children: Child[]): SVGElementTagNameMap[K] {
  return fill(document.createElementNS(svgNS, tag), attrs, children);
}

let ids = 0;

/** A fresh element id with a readable prefix. */
export function uid(prefix: string): string {
  ids++;
  return `${prefix}-${ids}`;
}

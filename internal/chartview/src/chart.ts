// The SVG charts: one panel per metric. Bars start at zero and stand for the
// figures exactly as returned; a partial figure is hatched, a null is a gap
// marked "no data", and a ratio is the returned ratio (its summed parts are
// in the tooltip and the table, never divided again here).

import type { Point, Series, Target } from "./answer";
import { h, s, uid } from "./dom";
import { attainment, before, day, figure, tick, unitName, week } from "./format";

const W = 640;
const M = { top: 18, right: 16, bottom: 46, left: 64 };

/** What a point's mark says about it. */
function state(p: Point): "final" | "partial" | "gap" {
  return p.value === null ? "gap" : p.partial ? "partial" : "final";
}

function keyLabel(grouping: string, key: string): string {
  return grouping === "day" ? day(key) : grouping === "week" ? week(key) : key;
}

function tooltip(p: Point, sr: Series, label: string): string {
  let t = `${label}: ${figure(p.value, sr.info.unit)}`;
  if (sr.ratio && p.value !== null) {
    t += ` (${figure(p.numerator ?? null, "")} of ${figure(p.denominator ?? null, "")})`;
  }
  if (p.value !== null && p.partial) {
    t += ", not final";
  }
  return t;
}

/** The top of an axis: a round number at or above every figure drawn. */
export function niceMax(values: number[]): number {
  const max = Math.max(0, ...values);
  if (max === 0) {
    return 1;
  }
  const step = Math.pow(10, Math.floor(Math.log10(max)));
  // Tops whose quarters are round too, for the four grid lines.
  for (const m of [1, 1.2, 1.6, 2, 2.4, 3.2, 4, 6, 8, 10]) {
    if (m * step >= max) {
      return m * step;
    }
  }
  return 10 * step;
}

function hatch(id: string): SVGPatternElement {
  return s(
    "pattern",
    { id, class: "hatch", patternUnits: "userSpaceOnUse", width: 6, height: 6, patternTransform: "rotate(45)" },
    s("line", { x1: 0, y1: 0, x2: 0, y2: 6 }),
  );
}

function svgFrame(sr: Series, height: number, title: string, desc: string) {
  const titleId = uid("title");
  const descId = uid("desc");
  const hatchId = uid("hatch");
  const svg = s(
    "svg",
    { viewBox: `0 0 ${W} ${height}`, role: "img", "aria-labelledby": `${titleId} ${descId}`, "data-metric": sr.metric },
    s("title", { id: titleId }, title),
    s("desc", { id: descId }, desc),
    s("defs", {}, hatch(hatchId)),
  );
  return { svg, hatchFill: `url(#${hatchId})` };
}

/** What a row's target says: its value and the attainment, or that none is set. */
function targetText(sr: Series, tg: Target): string {
  return tg.value === null ? "no target set" : `target: ${figure(tg.value, sr.info.unit)}, ${attainment(tg.attainment, tg.gapPoints)}`;
}

/** The previous figure and the target a row's tooltip states beside its own, when the answer has them. */
function beside(sr: Series, i: number): string {
  const parts: string[] = [];
  const prev = sr.previous?.[i];
  if (prev) {
    parts.push(tooltip(prev, sr, before(sr.grouping)));
  }
  const tg = sr.targets?.[i];
  if (tg) {
    parts.push(targetText(sr, tg));
  }
  return parts.length ? ` (${parts.join("; ")})` : "";
}

/**
 * A time series (by day or week) as vertical bars. When the answer compares,
 * each row's previous figure stands left of its bar as a hollow, dashed bar;
 * when it sets figures beside targets, each row's target is a step across
 * its bars, and a row without a target has none.
 */
export function columns(sr: Series, title: string): SVGSVGElement {
  const H = 250;
  const plotW = W - M.left - M.right;
  const plotH = H - M.top - M.bottom;
  const unit = sr.info.unit;
  const values = [...sr.points, ...(sr.previous ?? []), ...(sr.targets ?? [])].flatMap((p) => (p.value === null ? [] : [p.value]));
  const top = niceMax(values);
  const y = (v: number) => M.top + plotH - (v / top) * plotH;
  const band = plotW / Math.max(1, sr.points.length);
  const paired = sr.previous !== undefined;
  const barW = paired ? Math.max(2, Math.min(32, band * 0.36)) : Math.max(2, Math.min(48, band * 0.7));
  const label = (p: Point) => keyLabel(sr.grouping, p.key);
  const tip = (p: Point, i: number) => tooltip(p, sr, label(p)) + beside(sr, i);
  const { svg, hatchFill } = svgFrame(sr, H, title, sr.points.map(tip).join("; ") + ".");

  const axis = s("g", { class: "axis" });
  for (let i = 0; i <= 4; i++) {
    const v = (top * i) / 4;
    axis.append(
      s("line", { class: i === 0 ? "baseline" : "grid", x1: M.left, x2: W - M.right, y1: y(v), y2: y(v) }),
      s("text", { class: "tick", x: M.left - 6, y: y(v) + 4, "text-anchor": "end" }, tick(v, unit)),
    );
  }
  axis.append(
    s(
      "text",
      { class: "axis-title", transform: `translate(14 ${M.top + plotH / 2}) rotate(-90)`, "text-anchor": "middle" },
      `${sr.info.label} (${unitName(unit)})`,
    ),
  );
  svg.append(axis);

  // A bar of a figure centred on x, or for a null a gap: nothing stands on
  // the baseline; a dashed stub (and for the row's own figure the words) says why.
  const bar = (p: Point, x: number, cls: string, words: boolean): SVGElement[] => {
    const base = y(0);
    if (p.value === null) {
      const stub = s("line", { class: "gap-mark", x1: x, x2: x, y1: base, y2: base - 14 });
      return words ? [stub, s("text", { class: "gap-label", x, y: base - 18, "text-anchor": "middle" }, "no data")] : [stub];
    }
    const yTop = y(p.value);
    return [
      s("rect", {
        class: p.partial ? `${cls} partial` : cls,
        x: x - barW / 2,
        y: yTop,
        width: barW,
        height: base - yTop,
        fill: p.partial ? hatchFill : undefined,
      }),
    ];
  };

  const every = Math.ceil(sr.points.length / 12);
  const showValues = sr.points.length <= 16;
  sr.points.forEach((p, i) => {
    const cx = M.left + band * i + band / 2;
    const x = paired ? cx + barW / 2 + 1 : cx;
    const prev = sr.previous?.[i];
    if (prev) {
      const px = cx - barW / 2 - 1;
      svg.append(
        s(
          "g",
          { class: "previous", "data-key": prev.key, "data-state": state(prev), "data-value": prev.value ?? "null" },
          s("title", {}, tooltip(prev, sr, `${label(p)}, ${before(sr.grouping)}`)),
          ...bar(prev, px, "prev-bar", false),
        ),
      );
    }
    const g = s("g", { class: "point", "data-key": p.key, "data-state": state(p), "data-value": p.value ?? "null" });
    g.append(s("title", {}, tip(p, i)), ...bar(p, x, "bar", true));
    if (p.value !== null && showValues) {
      // Above the previous bar too when it is the taller, clear of its outline.
      const above = Math.min(y(p.value), prev?.value != null ? y(prev.value) : Infinity);
      g.append(s("text", { class: "value", x, y: above - 4, "text-anchor": "middle" }, figure(p.value, unit)));
    }
    if (i % every === 0) {
      // A week's tick drops its "wk of" where the bands are too narrow for it.
      const text = sr.grouping === "week" && band * every < 84 ? label(p).replace(/^wk of /, "") : label(p);
      g.append(s("text", { class: "tick", x: cx, y: H - M.bottom + 16, "text-anchor": "middle" }, text));
    }
    svg.append(g);
    const tg = sr.targets?.[i];
    if (tg && tg.value !== null) {
      // The step spans the row's bars, a little wider.
      const half = (paired ? barW + 1 : barW / 2) + 4;
      svg.append(
        s(
          "g",
          { class: "target", "data-key": tg.key, "data-value": tg.value },
          s("title", {}, `${label(p)}, ${targetText(sr, tg)}`),
          s("line", { class: "target-line", x1: cx - half, x2: cx + half, y1: y(tg.value), y2: y(tg.value) }),
        ),
      );
    }
  });
  return svg;
}

/**
 * Ranked rows (a league) as horizontal bars, in the order returned, with the
 * whole floor's figure marked: as a line across the bars when it is a ratio
 * (comparable with each team's), as a stated figure when it is a sum of the
 * teams' (it would dwarf them). Each team's target, when the answer has
 * them, is a tick across its bar; a team without a target has none.
 */
export function ranking(sr: Series, title: string): SVGSVGElement {
  const rowH = 30;
  const left = 150;
  const floor = sr.total;
  const floorLine = sr.ratio && floor?.value != null;
  const H = M.top + 14 + rowH * sr.points.length + 40;
  const plotW = W - left - 90;
  const values = [...sr.points, ...(sr.targets ?? [])].flatMap((p) => (p.value === null ? [] : [p.value]));
  if (floorLine) {
    values.push(floor!.value!);
  }
  const top = niceMax(values);
  const x = (v: number) => left + (v / top) * plotW;
  const label = (p: Point) => p.label;
  const tip = (p: Point, i: number) => tooltip(p, sr, label(p)) + beside(sr, i);
  const { svg, hatchFill } = svgFrame(sr, H, title, sr.points.map(tip).join("; ") + "." + (floor ? ` ${tooltip(floor, sr, "Whole floor")}.` : ""));
  const y0 = M.top + 14;

  svg.append(s("line", { class: "baseline", x1: x(0), x2: x(0), y1: y0 - 4, y2: y0 + rowH * sr.points.length }));
  sr.points.forEach((p, i) => {
    const y = y0 + rowH * i;
    const g = s("g", { class: "point", "data-key": p.key, "data-state": state(p), "data-value": p.value ?? "null" });
    g.append(
      s("title", {}, tip(p, i)),
      s("text", { class: "row-label", x: left - 8, y: y + rowH / 2 + 4, "text-anchor": "end" }, `${i + 1}. ${p.label}`),
    );
    if (p.value === null) {
      g.append(
        s("line", { class: "gap-mark", x1: x(0), x2: x(0) + 14, y1: y + rowH / 2, y2: y + rowH / 2 }),
        s("text", { class: "gap-label", x: x(0) + 18, y: y + rowH / 2 + 4 }, "no data"),
      );
    } else {
      g.append(
        s("rect", {
          class: p.partial ? "bar partial" : "bar",
          x: x(0),
          y: y + 5,
          width: x(p.value) - x(0),
          height: rowH - 10,
          fill: p.partial ? hatchFill : undefined,
        }),
        s("text", { class: "value", x: x(p.value) + 6, y: y + rowH / 2 + 4 }, figure(p.value, sr.info.unit)),
      );
    }
    svg.append(g);
    const tg = sr.targets?.[i];
    if (tg && tg.value !== null) {
      svg.append(
        s(
          "g",
          { class: "target", "data-key": tg.key, "data-value": tg.value },
          s("title", {}, `${label(p)}, ${targetText(sr, tg)}`),
          s("line", { class: "target-line", x1: x(tg.value), x2: x(tg.value), y1: y + 1, y2: y + rowH - 1 }),
        ),
      );
    }
  });

  if (floor) {
    const yEnd = y0 + rowH * sr.points.length;
    const text = `◆ Whole floor: ${figure(floor.value, sr.info.unit)}${floor.partial && floor.value !== null ? " (not final)" : ""}`;
    const g = s("g", { class: "floor", "data-value": floor.value ?? "null" }, s("title", {}, tooltip(floor, sr, "Whole floor")));
    if (floorLine) {
      g.append(s("line", { class: "floor-line", x1: x(floor.value!), x2: x(floor.value!), y1: y0 - 10, y2: yEnd + 4 }));
    }
    g.append(s("text", { class: "floor-label", x: left, y: yEnd + 24 }, text));
    svg.append(g);
  }
  svg.append(s("text", { class: "tick", x: x(top), y: M.top, "text-anchor": "end" }, `${sr.info.label} (${unitName(sr.info.unit)})`));
  return svg;
}

/** A panel: a chart with its caption. */
export function panel(chart: SVGSVGElement, caption: string): HTMLElement {
  return h("figure", { class: "panel" }, chart, h("figcaption", {}, caption));
}

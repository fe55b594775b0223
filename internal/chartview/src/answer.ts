// The answers plumbline's report tools return, and what the chart makes of
// them. Nothing here computes a figure: every value drawn is a cell of the
// answer, and "partial" is read from partial_metrics and each metric's
// data_through, as the answer states them.

export type Cell = string | number | null;

export interface DataThrough {
  runs_to: string | null;
  complete_through: string | null;
}

export interface MetricInfo {
  label: string;
  unit: string;
  definition?: string;
  definition_ref?: string;
  formula?: string;
  source?: string;
  sales_basis?: string;
  data_through: DataThrough;
}

export interface PeriodInfo {
  start: string;
  end: string;
  days: number;
  time_zone: string;
  named?: string;
}

export interface Echo {
  tool: string;
  who?: { kind: string; key?: string; name: string; team?: string };
  day?: string;
  weeks?: number;
  metrics?: string[];
  group_by?: string;
  sort?: { metric: string; direction: string };
  rank_by?: string;
}

export interface Governed {
  request: Echo;
  metrics: Record<string, MetricInfo>;
  period: PeriodInfo;
  /** The period compared with (compare_to previous_period), as resolved dates. */
  previous_period?: PeriodInfo;
  data_through: Record<string, DataThrough>;
  notes: string[];
  /** Standing notes the caller already has, as ID@catalog_version (known_definitions). */
  note_refs?: string[];
  partial: boolean;
  partial_metrics: string[];
  catalog_version: string;
}

/** One table of figures: a report's rows, or one section of a canned report. */
export interface Table {
  id?: string;
  title?: string;
  columns: string[];
  rows: Cell[][];
  total?: Cell[];
  truncated: boolean;
}

export interface ReportAnswer extends Governed, Table {}

export interface CannedAnswer extends Governed {
  sections: Table[];
}

export interface RefusalAnswer {
  error: { argument: string; rule: string; choices: string[] };
}

export interface CandidatesAnswer {
  argument: string;
  candidates: { agent_key?: string; name: string; team?: string }[];
  notes: string[];
}

/** Any answer a tool linked to the chart may give. */
export type Answer = ReportAnswer | CannedAnswer | RefusalAnswer | CandidatesAnswer;

export const isCanned = (a: Answer): a is CannedAnswer => "sections" in a;
export const isReport = (a: Answer): a is ReportAnswer => "rows" in a && "metrics" in a;
export const isRefusal = (a: Answer): a is RefusalAnswer => "error" in a;
export const isCandidates = (a: Answer): a is CandidatesAnswer => "candidates" in a;

/** The columns that name what a row is about, in the order they come. */
const keyColumns = ["day", "week", "team", "agent"];

/** A grouping by day or by week: a time series. */
export const isTimeGrouping = (g: string | undefined): g is "day" | "week" => g === "day" || g === "week";

/** One figure of one metric, as the answer gives it. */
export interface Point {
  key: string; // the day, week, team or agent
  label: string;
  value: number | null; // null: no data
  partial: boolean;
  numerator?: Cell;
  denominator?: Cell;
}

/** A figure's target, as the answer states it beside the figure. */
export interface Target {
  key: string; // the row's day, week, team or agent
  value: number | null; // null: no target is set, which is not zero
  attainment: Cell; // the figure over its target, or for a rate the gap in points
  gapPoints: boolean; // attainment is a gap in percentage points
}

/** One metric's figures over the rows of one table. */
export interface Series {
  metric: string;
  info: MetricInfo;
  ratio: boolean; // drawn from a returned ratio, with its summed parts beside it
  grouping: string; // day, week, team or agent
  points: Point[];
  total?: Point; // the table's total row, when the answer has one
  /** Each row's previous figure (the row just before it), when the answer compares. */
  previous?: Point[];
  /** Each row's target, when the answer sets figures beside targets. */
  targets?: Target[];
}

/** The metrics a table's columns hold, in column order. */
export function metricsOf(t: Table, g: Governed): string[] {
  return t.columns.filter((c) => c in g.metrics);
}

/** The column a table's rows are keyed by. */
export function groupingOf(t: Table): string | undefined {
  return keyColumns.find((c) => t.columns.includes(c));
}

/** Every metric's series over a table. */
export function seriesOf(t: Table, g: Governed): Series[] {
  const grouping = groupingOf(t) ?? "";
  const at = (name: string) => t.columns.indexOf(name);
  const keyAt = at(grouping);
  const nameAt = at(grouping + "_name");
  return metricsOf(t, g).map((metric) => {
    const info = g.metrics[metric];
    const ratio = t.columns.includes(metric + "_numerator");
    // A figure of column col (the metric's, or its previous figure's), its
    // summed parts beside it when it is a ratio.
    const point = (col: string, row: Cell[], key: string, label: string, span: Span): Point => {
      const v = row[at(col)];
      const p: Point = { key, label, value: typeof v === "number" ? v : null, partial: isPartial(metric, span, g) };
      if (ratio) {
        p.numerator = row[at(col + "_numerator")];
        p.denominator = row[at(col + "_denominator")];
      }
      return p;
    };
    const keyOf = (row: Cell[]) => String(row[keyAt] ?? "");
    const nameOf = (row: Cell[]) => (nameAt >= 0 && row[nameAt] != null ? String(row[nameAt]) : keyOf(row));
    const s: Series = {
      metric,
      info,
      ratio,
      grouping,
      points: t.rows.map((row) => point(metric, row, keyOf(row), nameOf(row), spanOf(grouping, keyOf(row), g.period))),
    };
    const previous = metric + "_previous";
    if (t.columns.includes(previous)) {
      s.previous = t.rows.map((row) => point(previous, row, keyOf(row), nameOf(row), spanBefore(grouping, keyOf(row), g.previous_period ?? g.period)));
    }
    if (t.columns.includes(metric + "_target")) {
      const gapPoints = t.columns.includes(metric + "_target_gap_points");
      const attainment = at(metric + (gapPoints ? "_target_gap_points" : "_attainment"));
      s.targets = t.rows.map((row) => {
        const v = row[at(metric + "_target")];
        return { key: keyOf(row), value: typeof v === "number" ? v : null, attainment: attainment >= 0 ? row[attainment] : null, gapPoints };
      });
    }
    if (t.total) {
      const name = nameAt >= 0 && t.total[nameAt] != null ? String(t.total[nameAt]) : "total";
      s.total = point(metric, t.total, "total", name, { from: g.period.start, to: g.period.end });
    }
    return s;
  });
}

export interface Span {
  from: string;
  to: string;
}

/** The days a row's figure covers: its day, its week within the period, or the whole period. */
export function spanOf(grouping: string, key: string, p: PeriodInfo): Span {
  if (grouping === "day") {
    return { from: key, to: key };
  }
  if (grouping === "week") {
    const end = addDays(key, 6);
    return { from: key < p.start ? p.start : key, to: end > p.end ? p.end : end };
  }
  return { from: p.start, to: p.end };
}

/**
 * The days a row's previous figure covers: the day or the week just before
 * it, or the whole previous period.
 */
export function spanBefore(grouping: string, key: string, p: PeriodInfo): Span {
  if (grouping === "day") {
    return { from: addDays(key, -1), to: addDays(key, -1) };
  }
  if (grouping === "week") {
    return { from: addDays(key, -7), to: addDays(key, -1) };
  }
  return { from: p.start, to: p.end };
}

/**
 * Whether a figure covers days that are not final: its metric is listed
 * partial, and the days it covers reach past the metric's complete_through
 * (or the metric has no final day at all).
 */
export function isPartial(metric: string, span: Span, g: Governed): boolean {
  if (!g.partial_metrics.includes(metric)) {
    return false;
  }
  const through = g.metrics[metric]?.data_through.complete_through;
  return through == null || span.to > through;
}

/** A YYYY-MM-DD date n days later. */
export function addDays(date: string, n: number): string {
  const d = new Date(date + "T00:00:00Z");
  d.setUTCDate(d.getUTCDate() + n);
  return d.toISOString().slice(0, 10);
}

/** The counting bases the answer's metrics are on, each with the metrics on it. */
export function basesOf(g: Governed): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const [id, m] of Object.entries(g.metrics)) {
    if (m.sales_basis) {
      out.set(m.sales_basis, [...(out.get(m.sales_basis) ?? []), id]);
    }
  }
  return out;
}

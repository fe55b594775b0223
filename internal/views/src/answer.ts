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
}

export interface Governed {
  request: Echo;
  metrics: Record<string, MetricInfo>;
  period: PeriodInfo;
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

/** One metric's figures over the rows of one table. */
export interface Series {
  metric: string;
  info: MetricInfo;
  ratio: boolean; // drawn from a returned ratio, with its summed parts beside it
  grouping: string; // day, week, team or agent
  points: Point[];
  total?: Point; // the table's total row, when the answer has one
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
    const point = (row: Cell[], key: string, label: string, span: Span): Point => {
      const v = row[at(metric)];
      const p: Point = { key, label, value: typeof v === "number" ? v : null, partial: isPartial(metric, span, g) };
      if (ratio) {
        p.numerator = row[at(metric + "_numerator")];
        p.denominator = row[at(metric + "_denominator")];
      }
      return p;
    };
    const s: Series = {
      metric,
      info,
      ratio,
      grouping,
      points: t.rows.map((row) => {
        const key = String(row[keyAt] ?? "");
        const name = nameAt >= 0 && row[nameAt] != null ? String(row[nameAt]) : key;
        return point(row, key, name, spanOf(grouping, key, g.period));
      }),
    };
    if (t.total) {
      const name = nameAt >= 0 && t.total[nameAt] != null ? String(t.total[nameAt]) : "total";
      s.total = point(t.total, "total", name, { from: g.period.start, to: g.period.end });
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

package directory

import (
	"cmp"
	"slices"
	"strings"
	"time"

	"plumbline/reports/ask"
)

// This file finds a team's targets. Targets are data, set by a person and
// dated: a team's target for a metric over a target period, the latest
// version holding. A floor of hundreds of teams has targets by the tens of
// thousands, every week of every team, so the directory keeps them
// compactly: their texts once each, their first days as days.

// target is a target version as the directory keeps it: 56 bytes, where
// an ask.TargetSet takes 136. Its texts are indexes into Directory.texts.
type target struct {
	team, metric, kind, setBy, reason int32
	start                             epochDay
	value                             float64
	setAt                             time.Time
}

// keepTargets moves the roster's targets into the directory's compact
// form, sorted by team, metric, target period and when set, and lets the
// rows as read go.
func (d *Directory) keepTargets() {
	at := map[string]int32{}
	text := func(s string) int32 {
		i, ok := at[s]
		if !ok {
			i = int32(len(d.texts))
			at[s] = i
			d.texts = append(d.texts, s)
		}
		return i
	}
	d.targets = make([]target, len(d.Targets))
	for i, t := range d.Targets {
		d.targets[i] = target{team: text(t.Team), metric: text(t.Metric), kind: text(t.Kind), setBy: text(t.SetBy),
			reason: text(t.Reason), start: epochDayOf(t.Start), value: t.Value, setAt: t.SetAt}
	}
	d.Targets = nil
	slices.SortStableFunc(d.targets, func(a, b target) int {
		return cmp.Or(d.compareTargetTo(a, d.texts[b.team], d.texts[b.metric], d.texts[b.kind], b.start), a.setAt.Compare(b.setAt))
	})
}

// compareTargetTo orders a target version against a team's target of a
// metric over the target period of kind from start.
func (d *Directory) compareTargetTo(t target, team, metric, kind string, start epochDay) int {
	return cmp.Or(strings.Compare(d.texts[t.team], team), strings.Compare(d.texts[t.metric], metric),
		strings.Compare(d.texts[t.kind], kind), cmp.Compare(t.start, start))
}

// Target returns the versions of a team's target for a metric over the
// target period of kind (a week or a month) from start, in the order they
// were set: the last one holds.
func (d *Directory) Target(team, metric, kind string, start time.Time) []ask.TargetSet {
	day := epochDayOf(start)
	of := func(t target, day epochDay) int { return d.compareTargetTo(t, team, metric, kind, day) }
	lo, found := slices.BinarySearchFunc(d.targets, day, of)
	if !found {
		return nil
	}
	hi := lo + 1
	for hi < len(d.targets) && of(d.targets[hi], day) == 0 {
		hi++
	}
	out := make([]ask.TargetSet, hi-lo)
	for i, t := range d.targets[lo:hi] {
		out[i] = ask.TargetSet{Team: d.texts[t.team], Metric: d.texts[t.metric], Kind: d.texts[t.kind], Start: t.start.date(),
			Value: t.value, SetBy: d.texts[t.setBy], SetAt: t.setAt, Reason: d.texts[t.reason]}
	}
	return out
}

package catalog

import (
	"fmt"
	"strconv"
)

// Note is a standing note: how figures are counted, said beside every
// answer whose figures it applies to. An answer to a caller that already
// holds the catalogue's texts (known_definitions) names a standing note by
// its ID instead of repeating it, so every note's text is part of the
// catalogue's version: a change to one changes the version, and callers
// holding the old one get every text again.
type Note struct {
	ID   string
	Text string
}

// IDs of the standing notes every catalogue has. Sources add their own
// (SourceNotes), and a catalogue that names an activity metric adds
// NoteNoActivity.
const (
	NoteNull       = "null"        // null is no data, never zero
	NoteFloor      = "floor"       // which teams make the floor, day by day
	NoteTeamOfDay  = "team_of_day" // an agent-day counts for that day's team
	NoteRatios     = "ratios"      // ratios are sums over sums, parts beside them
	NoteLeftOut    = "left_out"    // agent-days with an unknown part are left out
	NoteBases      = "bases"       // never mix counting bases
	NoteNoActivity = "no_activity" // what the no_activity column says
	NoteTeamDay    = "team_day"    // how team_day's sections read
	NoteTeamWeeks  = "team_weeks"  // how team_weeks' sections read
	NoteLeague     = "league"      // how a league ranks
)

// standingNotes are the notes every catalogue has, in the order answers
// say them.
var standingNotes = []Note{
	{NoteNull, "Null means no data, never zero. A day the source is loaded for with no rows had no activity, and counts zero."},
	{NoteFloor, "The floor is the teams that counted as sales teams on each day; a team that joined or left the floor counts only for its days on it."},
	{NoteTeamOfDay, "Each agent's day counts for the team the agent was on that day."},
	{NoteRatios, "Ratios are sums divided by sums over each row's group, never averages of rates; the summed numerator and denominator stand beside each ratio, " +
		"both over the same agent-days. A ratio is null when there is nothing to divide by."},
	{NoteLeftOut, "An agent-day on which a part of a figure is not known yet is left out of every part of that figure, and left_out in its metric says how many; " +
		"unknown is never counted as zero."},
	{NoteBases, "These figures count sales on different bases (each metric names its sales_basis); never add or compare figures across bases."},
	{NoteTeamDay, "Each section lists one row per agent of the team (per team for the floor), and its total is the team's (the floor's) figure for the day."},
	{NoteTeamWeeks, "Each section lists one row per whole week, and its total covers every week listed."},
	{NoteLeague, "Teams are ranked by the sort metric (request.sort), counting only the days each team was on the floor; tied teams share a rank, " +
		"and a team with no figure has none. total is the whole floor's figure over the same days."},
}

// buildNotes lists every standing note of the catalogue: plumbline's own,
// the activity metric's, then each source's.
func (c *Catalog) buildNotes() {
	c.notes = append([]Note{}, standingNotes...)
	if a := c.activity; a != nil {
		c.notes = append(c.notes, Note{NoteNoActivity, "no_activity is true for a day with zero " + a.ID +
			" (a day the source is loaded for with no row counts zero), false when there was some, and null when " + a.ID + " is not in yet or not loaded."})
	}
	for _, s := range c.Sources() {
		for i, text := range s.Notes {
			c.notes = append(c.notes, Note{sourceNoteID(s, i), text})
		}
	}
	for _, p := range c.Periods() {
		c.notes = append(c.notes, Note{p.NoteID(), fmt.Sprintf("%s runs from %s to %s every year: %s Asked for by name, it is its latest run that has begun, through today while it lasts.",
			p.ID, monthDayWords(p.From), monthDayWords(p.To), p.Definition)})
	}
}

// NoteID names the standing note that defines a period; its colon never
// stands in plumbline's own notes' IDs or a relation's.
func (p *Period) NoteID() string { return "period:" + p.ID }

// monthDayWords writes a day of the calendar as 15 October.
func monthDayWords(d MonthDay) string { return fmt.Sprintf("%d %s", d.Day, d.Month) }

// sourceNoteID names a source's i-th note by its relation, which holds a
// dot and so never clashes with plumbline's own notes.
func sourceNoteID(s *Source, i int) string {
	if i == 0 {
		return s.Relation
	}
	return s.Relation + "#" + strconv.Itoa(i+1)
}

// Notes lists every standing note an answer over this catalogue may carry.
func (c *Catalog) Notes() []Note { return c.notes }

// Note returns the standing note with an ID.
func (c *Catalog) Note(id string) (Note, bool) {
	for _, n := range c.notes {
		if n.ID == id {
			return n, true
		}
	}
	return Note{}, false
}

// SourceNotes are the IDs of a source's standing notes.
func (c *Catalog) SourceNotes(s *Source) []string {
	ids := make([]string, len(s.Notes))
	for i := range s.Notes {
		ids[i] = sourceNoteID(s, i)
	}
	return ids
}

package demofloor

import (
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"strings"
	"time"
	"unicode"

	"golang.org/x/text/runes"
	"golang.org/x/text/transform"
	"golang.org/x/text/unicode/norm"
	"plumbline/reports/ask"
)

// The nightly build loads day D at NightlyHour on D+1, New York time: each
// nightly relation's run starts at NightlyStart and finishes before then.
const (
	NightlyHour  = 5
	NightlyStart = 4*time.Hour + 30*time.Minute
)

// NightlyRelations are the relations the nightly build loads, each with a
// run per day in metrics.load_runs.
var NightlyRelations = []string{"metrics.agent_time_daily", "metrics.agent_sales_daily", "metrics.agent_quality_daily"}

// Holidays are days the whole floor is closed: no hours, no sales, no board
// entries, but the nightly builds load them like any other day.
var Holidays = []time.Time{
	date(2025, 11, 27), date(2025, 12, 25), date(2026, 1, 1), date(2026, 5, 25),
	date(2026, 7, 3), date(2026, 9, 7), date(2026, 11, 26), date(2026, 12, 25),
}

// Zone is the floor's time zone.
const Zone = "America/New_York"

// Defaults for Options.
const (
	DefaultSeed   = 20261118
	DefaultAgents = 96
	DefaultDays   = 400
)

// Options choose the floor to generate.
type Options struct {
	Seed   uint64    // if zero, DefaultSeed
	Now    time.Time // required: the moment the floor is generated up to
	Agents int       // if zero, DefaultAgents; at least 16
	Days   int       // if zero, DefaultDays; at least 120
}

// Floor is a generated floor, ready to load.
type Floor struct {
	Today       time.Time // the floor's current day (a date at 00:00 UTC)
	LastNightly time.Time // the newest day the nightly tables hold
	Start       time.Time // the first day of history

	Teams       []Team
	Agents      []Agent
	Memberships []ask.Membership    // rows of analytics.agent_team_history
	Decisions   []ask.FloorDecision // rows of analytics.team_floor_history
	Time        []TimeRow
	Sales       []SalesRow
	Quality     []QualityRow
	Board       []BoardEntry
	Loads       []LoadRun
	Calls       []MemberCall
	Targets     []Target
}

// Target is a row of analytics.targets: a team's target for a metric over
// a week or a month. A revision is another row, set later.
type Target struct {
	Team, Metric string
	Kind         string // "week" or "month"
	Start        time.Time
	Value        float64
	SetBy        string
	SetAt        time.Time
	Reason       string
}

// LoadRun is a row of metrics.load_runs: one run of the nightly build for one
// relation and one day. A run still going has no Finished time.
type LoadRun struct {
	Relation          string
	Day               time.Time
	Started, Finished time.Time // Finished is zero while the run goes on
	Rows              int
}

// Team is a row of analytics.dim_team.
type Team struct{ Key, Name, Lead string }

// Agent is a row of analytics.dim_agent.
type Agent struct {
	Key, Name, Email string
	Hired            time.Time
	Left             *time.Time
}

// TimeRow is a row of metrics.agent_time_daily; nil hours are not in yet.
type TimeRow struct {
	Agent                   string
	Day                     time.Time
	Logged, Available, Talk *float64
}

// SalesRow is a row of metrics.agent_sales_daily; a nil Approved has not settled.
type SalesRow struct {
	Agent           string
	Day             time.Time
	Submitted, Lost int
	Approved        *int
}

// QualityRow is a row of metrics.agent_quality_daily.
type QualityRow struct {
	Agent          string
	Day            time.Time
	Passed, Failed int
}

// BoardEntry is a row of live.sales_board.
type BoardEntry struct {
	Agent     string
	EnteredAt time.Time
	Sales     int
}

// MemberCall is a row of crm.member_calls: member data, never granted.
type MemberCall struct {
	ID                       int64
	Agent, MemberName, Phone string
	DateOfBirth              time.Time
	Transcript, RecordingURL string
}

type floorRule int

const (
	alwaysFloor floorRule = iota
	joinsFloor
	leavesFloor
	neverFloor
)

type teamSpec struct {
	key, name string
	rule      floorRule
}

var baseTeams = []teamSpec{
	{"falcons", "Falcons", alwaysFloor},
	{"hawks", "Hawks", alwaysFloor},
	{"ospreys", "Ospreys", alwaysFloor},
	{"kestrels", "Kestrels", joinsFloor},
	{"harriers", "Harriers", leavesFloor},
	{"retention", "Retention & Service", neverFloor},
}

// trap is an agent planted to catch a naive engine.
type trap struct {
	name, team string
	hired      int // days before today; 0 means long before the history starts
	left       int // days before today; 0 means still here
	moveTo     string
	moveAt     func(weekStart time.Time) time.Time
}

func dayOf(weekStart time.Time, weeksBack, weekday int) time.Time {
	return weekStart.AddDate(0, 0, -7*weeksBack+weekday)
}

var traps = []trap{
	{name: "Maria Lopez", team: "falcons"},
	{name: "Maria Lopes", team: "hawks"},
	{name: "Jamal Carter", team: "ospreys"},
	{name: "Jamal Reed", team: "kestrels"},
	{name: "José Peña", team: "falcons"},
	{name: "Priya Raman", team: "hawks", left: 50},
	{name: "Noah Whitaker", team: "ospreys", hired: 20},
	// Moves on the Wednesday of the week two weeks back: a complete week split
	// between two teams.
	{name: "Tom Becker", team: "hawks", moveTo: "falcons",
		moveAt: func(ws time.Time) time.Time { return dayOf(ws, 2, 2) }},
	{name: "Sam Ortega", team: "ospreys", moveTo: "harriers",
		moveAt: func(ws time.Time) time.Time { return dayOf(ws, 14, 3) }},
	{name: "Lee Whitfield", team: "harriers", moveTo: "retention",
		moveAt: func(ws time.Time) time.Time { return dayOf(ws, 4, 1) }},
}

// profile is an agent's temperament, drawn once.
type profile struct {
	saturdays bool
	sundays   bool    // on the Sunday crew
	evening   bool    // on the evening shift, which posts until 01:00
	pace      float64 // conversations per talk hour
	close     float64 // share of conversations that end in a submission
	decline   float64 // share of submissions the carrier declines
	fails     float64 // share of audits failed
}

type agentPlan struct {
	Agent
	index int
	prof  profile
}

// Generate builds the floor described by opts.
func Generate(opts Options) (*Floor, error) {
	opts, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	loc, err := time.LoadLocation(Zone)
	if err != nil {
		return nil, err
	}
	now := opts.Now.In(loc)
	start, today := span(opts, now)
	f := &Floor{Today: today, Start: start}
	f.LastNightly = today.AddDate(0, 0, -1)
	if now.Hour() < NightlyHour {
		f.LastNightly = today.AddDate(0, 0, -2)
	}
	g := &generator{opts: opts, loc: loc, now: now, floor: f, weekStart: mondayOf(today)}
	g.teams()
	g.targets()
	plans := g.agents()
	for _, p := range plans {
		g.days(p)
	}
	g.loads()
	return f, nil
}

func (o Options) withDefaults() (Options, error) {
	if o.Seed == 0 {
		o.Seed = DefaultSeed
	}
	if o.Agents == 0 {
		o.Agents = DefaultAgents
	}
	if o.Days == 0 {
		o.Days = DefaultDays
	}
	switch {
	case o.Now.IsZero():
		return o, fmt.Errorf("demo floor: a now is required")
	case o.Agents < 16:
		return o, fmt.Errorf("demo floor: agents must be at least 16, the planted traps need room")
	case o.Days < 120:
		return o, fmt.Errorf("demo floor: days must be at least 120, the floor changes need room")
	}
	return o, nil
}

// Span returns the first day of history and the current day (dates at
// 00:00 UTC) of the floor Generate makes with opts.
func Span(opts Options) (start, today time.Time, err error) {
	if opts, err = opts.withDefaults(); err != nil {
		return start, today, err
	}
	loc, err := time.LoadLocation(Zone)
	if err != nil {
		return start, today, err
	}
	start, today = span(opts, opts.Now.In(loc))
	return start, today, nil
}

func span(opts Options, now time.Time) (start, today time.Time) {
	today = date(now.Year(), now.Month(), now.Day())
	return today.AddDate(0, 0, 1-opts.Days), today
}

type generator struct {
	opts      Options
	loc       *time.Location
	now       time.Time
	floor     *Floor
	weekStart time.Time
	teamKeys  []string
	callID    int64
}

func (g *generator) teams() {
	specs := append([]teamSpec(nil), baseTeams...)
	// Larger floors get more sales squads, so teams keep a realistic size.
	for i := len(specs); i < g.opts.Agents/16; i++ {
		specs = append(specs, teamSpec{fmt.Sprintf("squad%02d", i+1), fmt.Sprintf("Squad %d", i+1), alwaysFloor})
	}
	director := "Dana Whitfield (floor director)"
	start := g.floor.Start
	joinAt := dayOf(g.weekStart, 8, 3)  // a Thursday eight weeks back
	leaveAt := dayOf(g.weekStart, 5, 1) // a Tuesday five weeks back
	for _, s := range specs {
		g.teamKeys = append(g.teamKeys, s.key)
		g.floor.Teams = append(g.floor.Teams, Team{Key: s.key, Name: s.name})
		decide := func(from time.Time, counts bool, reason string) {
			g.floor.Decisions = append(g.floor.Decisions, ask.FloorDecision{Team: s.key, From: from, CountsAsSales: counts, DecidedBy: director, Reason: reason})
		}
		switch s.rule {
		case alwaysFloor:
			decide(start, true, "inbound Medicare sales team")
		case joinsFloor:
			decide(start, false, "new-hire training pod; figures are practice")
			decide(joinAt, true, "graduated from training; takes live inbound sales calls")
		case leavesFloor:
			decide(start, true, "inbound Medicare sales team")
			decide(leaveAt, false, "moved to renewals outreach; no new sales")
		case neverFloor:
			decide(start, false, "retention and member service; not a sales team")
		}
	}
}

// targets sets the sales teams' targets: applications submitted each week
// and each month, and a close rate each month (never by week), over the last
// sixteen weeks and four months. Each week's and each month's figure differs
// from the one before, so a rule that reads the wrong period's target shows.
// The Kestrels, who join the floor on a Thursday, get weekly targets from
// that week on, but none by month and none yet for last week or this week;
// the Harriers none for a period that starts after they leave the floor; the
// team that never counts as sales none. Three targets were revised after
// they were set: the Falcons' submitted target for last month in the middle
// of the month, the Hawks' for the week three weeks back on its Wednesday,
// and the Falcons' for this week on its Monday.
func (g *generator) targets() {
	f := g.floor
	director := "Dana Whitfield (floor director)"
	month := time.Date(f.Today.Year(), f.Today.Month(), 1, 0, 0, 0, 0, time.UTC)
	joinAt, leaveAt := dayOf(g.weekStart, 8, 3), dayOf(g.weekStart, 5, 1)
	for i, t := range f.Teams {
		if t.Key == "retention" {
			continue
		}
		set := func(metric, kind string, start time.Time, value float64, at time.Time, reason string) {
			switch {
			case start.Before(f.Start), t.Key == "harriers" && !start.Before(leaveAt):
			case t.Key == "kestrels" && (kind == "month" || start.Before(mondayOf(joinAt)) || !start.Before(g.weekStart.AddDate(0, 0, -7))):
			default:
				f.Targets = append(f.Targets, Target{t.Key, metric, kind, start, value, director, at, reason})
			}
		}
		base := float64(110 + 10*i)
		for w := 15; w >= 0; w-- {
			start := g.weekStart.AddDate(0, 0, -7*w)
			// A plan that moves with the season: up to 20 more some weeks.
			weekly := base + float64(5*((w*3+i)%5))
			at := time.Date(start.Year(), start.Month(), start.Day()-3, 17, 0, 0, 0, g.loc)
			set("submitted_sales", "week", start, weekly, at, "weekly plan")
			switch {
			case w == 3 && t.Key == "hawks":
				raised := time.Date(start.Year(), start.Month(), start.Day()+2, 10, 30, 0, 0, g.loc)
				set("submitted_sales", "week", start, weekly+25, raised, "raised mid-week for a carrier promotion")
			case w == 0 && t.Key == "falcons":
				cut := time.Date(start.Year(), start.Month(), start.Day(), 9, 0, 0, 0, g.loc)
				if cut.Before(g.now) {
					set("submitted_sales", "week", start, weekly-15, cut, "cut for a training morning")
				}
			}
		}
		for m := 3; m >= 0; m-- {
			start := month.AddDate(0, -m, 0)
			at := time.Date(start.Year(), start.Month(), start.Day()-1, 17, 0, 0, 0, g.loc)
			set("submitted_sales", "month", start, 4*base+20+float64(15*((m+i)%3)), at, "monthly plan")
			set("close_rate", "month", start, round2(0.2+0.01*float64(i)+0.01*float64(m%2)), at, "monthly plan")
			if m == 1 && t.Key == "falcons" {
				raised := time.Date(start.Year(), start.Month(), 15, 11, 0, 0, 0, g.loc)
				set("submitted_sales", "month", start, 4*base+80, raised, "raised mid-month after the new carrier plan launched")
			}
		}
	}
}

func (g *generator) agents() []*agentPlan {
	f := g.floor
	used := map[string]bool{}
	var plans []*agentPlan
	width := len(fmt.Sprint(g.opts.Agents))
	if width < 3 {
		width = 3
	}
	for i := 0; i < g.opts.Agents; i++ {
		rng := rand.New(rand.NewPCG(g.opts.Seed, uint64(i)+1))
		key := fmt.Sprintf("a%0*d", width, i+1)
		p := &agentPlan{index: i, prof: drawProfile(rng)}
		// Shifts are dealt by position, so that every floor size has both.
		p.prof.evening = i%5 == 3
		p.prof.sundays = i%7 == 2 || i%7 == 3
		p.Key = key
		team := g.teamKeys[i%len(g.teamKeys)]
		p.Hired = f.Start.AddDate(0, 0, -30-rng.IntN(900))
		var moveTo string
		var moveAt time.Time
		if i < len(traps) {
			t := traps[i]
			p.Name, team = t.name, t.team
			if t.hired > 0 {
				p.Hired = f.Today.AddDate(0, 0, -t.hired)
			}
			if t.left > 0 {
				left := f.Today.AddDate(0, 0, -t.left)
				p.Left = &left
			}
			moveTo = t.moveTo
			if t.moveAt != nil {
				moveAt = t.moveAt(g.weekStart)
			}
		} else {
			p.Name = g.inventName(rng, used)
			g.drawCareer(rng, p, team, &moveTo, &moveAt)
		}
		used[p.Name] = true
		p.Email = emailFor(p.Name)
		if team == "retention" {
			p.prof.close /= 5
		}
		f.Agents = append(f.Agents, p.Agent)
		f.Memberships = append(f.Memberships, ask.Membership{Agent: key, Team: team, From: p.Hired})
		if moveTo != "" {
			f.Memberships = append(f.Memberships, ask.Membership{Agent: key, Team: moveTo, From: moveAt})
		}
		if f.Teams[i%len(f.Teams)].Lead == "" && i >= len(traps) {
			f.Teams[i%len(f.Teams)].Lead = key
		}
		plans = append(plans, p)
	}
	return plans
}

// drawCareer gives an invented agent a hire date, and for a few a departure
// or a transfer.
func (g *generator) drawCareer(rng *rand.Rand, p *agentPlan, team string, moveTo *string, moveAt *time.Time) {
	f := g.floor
	if rng.Float64() < 0.10 {
		p.Hired = f.Start.AddDate(0, 0, rng.IntN(g.opts.Days-90))
	}
	switch r := rng.Float64(); {
	case r < 0.05:
		tenure := int(f.Today.Sub(p.Hired).Hours()/24) - 31
		if tenure < 1 {
			return
		}
		left := p.Hired.AddDate(0, 0, 30+rng.IntN(tenure))
		if left.Before(f.Today.AddDate(0, 0, -1)) {
			p.Left = &left
		}
	case r < 0.13:
		for {
			to := g.teamKeys[rng.IntN(len(g.teamKeys))]
			if to != team {
				*moveTo = to
				break
			}
		}
		first := maxDate(p.Hired, f.Start).AddDate(0, 0, 30)
		span := int(f.Today.Sub(first).Hours()/24) - 1
		if span < 1 {
			*moveTo = ""
			return
		}
		*moveAt = first.AddDate(0, 0, rng.IntN(span))
	}
}

func drawProfile(rng *rand.Rand) profile {
	return profile{
		saturdays: rng.Float64() < 0.15,
		pace:      1.2 + rng.Float64(),
		close:     0.12 + 0.2*rng.Float64(),
		decline:   0.05 + 0.15*rng.Float64(),
		fails:     0.03 + 0.17*rng.Float64(),
	}
}

// inventName draws a name for an invented agent that no agent has yet.
// The pools hold 5,184 first and last name pairs. After many draws of names
// already taken (on a floor with thousands of agents) a drawn pair takes
// the first middle initial not yet taken with it, so that any size of floor
// gets unique names; the floors small enough never to get there are as
// they were.
func (g *generator) inventName(rng *rand.Rand, used map[string]bool) string {
	for tries := 0; ; tries++ {
		first, last := firstNames[rng.IntN(len(firstNames))], lastNames[rng.IntN(len(lastNames))]
		if name := first + " " + last; !used[name] {
			return name
		}
		if tries < 50 {
			continue
		}
		for initial := 'A'; initial <= 'Z'; initial++ {
			if name := first + " " + string(initial) + ". " + last; !used[name] {
				return name
			}
		}
	}
}

// seasonStream tells the season's draws apart from the day's own.
const seasonStream = 0x5ea5_0aeb

// season is how much busier a day's conversations are than usual: a third
// more in the Medicare Annual Enrollment Period, 15 October to 7 December,
// which the demo catalogue names aep.
func season(d time.Time) float64 {
	if md := int(d.Month())*100 + d.Day(); md >= 1015 && md <= 1207 {
		return 1.35
	}
	return 1
}

// days generates every day of one agent's history.
func (g *generator) days(p *agentPlan) {
	f := g.floor
	first := maxDate(p.Hired, f.Start)
	last := f.Today
	if p.Left != nil && p.Left.Before(last) {
		last = *p.Left
	}
	for d := first; !d.After(last); d = d.AddDate(0, 0, 1) {
		g.day(p, d)
	}
}

func (g *generator) day(p *agentPlan, d time.Time) {
	wd := d.Weekday()
	if (wd == time.Sunday && !p.prof.sundays) || (wd == time.Saturday && !p.prof.saturdays) || isHoliday(d) {
		return
	}
	rng := rand.New(rand.NewPCG(g.opts.Seed, dayStream(p.Key, d)))
	f := g.floor
	r := rng.Float64()
	if r < 0.03 {
		return // off sick: no rows at all
	}
	zero := r < 0.05 // on the schedule, but nothing logged
	var logged, available, talk float64
	if !zero {
		logged = round2(6.5 + 2.5*rng.Float64())
		available = round2(logged * (0.78 + 0.14*rng.Float64()))
		talk = round2(available * (0.55 + 0.23*rng.Float64()))
	}
	conversations := int(math.Round(talk * p.prof.pace))
	submitted := binomial(rng, conversations, p.prof.close)
	approvedValue := submitted - binomial(rng, submitted, p.prof.decline)
	if extra := int(math.Round(talk * p.prof.pace * (season(d) - 1))); extra > 0 {
		// The season's extra conversations are drawn from a stream of their
		// own, so that every other figure of the day is what it would be.
		busy := rand.New(rand.NewPCG(g.opts.Seed, dayStream(p.Key, d)^seasonStream))
		more := binomial(busy, extra, p.prof.close)
		conversations, submitted = conversations+extra, submitted+more
		approvedValue += more - binomial(busy, more, p.prof.decline)
	}
	approvalLag := 3 + rng.IntN(10)
	notInYet := rng.Float64() < 0.12
	if !d.After(f.LastNightly) {
		row := TimeRow{Agent: p.Key, Day: d}
		if !(d.Equal(f.LastNightly) && notInYet) {
			row.Logged, row.Available, row.Talk = &logged, &available, &talk
		}
		f.Time = append(f.Time, row)
		sales := SalesRow{Agent: p.Key, Day: d, Submitted: submitted, Lost: conversations - submitted}
		if !d.AddDate(0, 0, approvalLag).After(f.LastNightly) {
			sales.Approved = &approvedValue
		}
		f.Sales = append(f.Sales, sales)
		if !zero && rng.Float64() < 0.35 {
			audits := 1 + rng.IntN(3)
			failed := binomial(rng, audits, p.prof.fails)
			f.Quality = append(f.Quality, QualityRow{p.Key, d, audits - failed, failed})
		}
		if !zero && rng.Float64() < 0.05 {
			g.memberCall(rng, p.Key, d)
		}
	}
	g.board(rng, p, d, submitted)
}

func isHoliday(d time.Time) bool {
	for _, h := range Holidays {
		if h.Equal(d) {
			return true
		}
	}
	return false
}

// loads records the nightly build's runs: for every day of history up to
// the last one loaded, one finished run per nightly relation, and the run
// still going when now falls between its start and NightlyHour.
func (g *generator) loads() {
	f := g.floor
	rows := map[string]map[time.Time]int{}
	for _, rel := range NightlyRelations {
		rows[rel] = map[time.Time]int{}
	}
	for _, r := range f.Time {
		rows["metrics.agent_time_daily"][r.Day]++
	}
	for _, r := range f.Sales {
		rows["metrics.agent_sales_daily"][r.Day]++
	}
	for _, r := range f.Quality {
		rows["metrics.agent_quality_daily"][r.Day]++
	}
	for d := f.Start; !d.After(f.LastNightly.AddDate(0, 0, 1)); d = d.AddDate(0, 0, 1) {
		next := d.AddDate(0, 0, 1)
		for i, rel := range NightlyRelations {
			started := time.Date(next.Year(), next.Month(), next.Day(), 0, 0, 0, 0, g.loc).Add(NightlyStart + time.Duration(i)*time.Minute)
			if started.After(g.now) {
				continue
			}
			run := LoadRun{Relation: rel, Day: d, Started: started, Rows: rows[rel][d]}
			if !d.After(f.LastNightly) {
				run.Finished = started.Add(time.Duration(5+dayStream(rel, d)%20) * time.Minute)
			}
			f.Loads = append(f.Loads, run)
		}
	}
}

// board posts a day's sales to the live board. Reps post most sales once;
// now and then one is posted twice or never, so the board and the nightly
// build disagree a little, as they do on a real floor.
//
// The day shift posts from 09:00 to 18:00, the evening shift from 15:00 to
// 01:00: past midnight UTC every evening, and past midnight New York in its
// last hour, when an entry belongs to the next day.
func (g *generator) board(rng *rand.Rand, p *agentPlan, d time.Time, submitted int) {
	entries := submitted
	switch r := rng.Float64(); {
	case r < 0.1 && entries > 0:
		entries--
	case r < 0.2:
		entries++
	}
	start, hours := 9, 9
	if p.prof.evening {
		start, hours = 15, 10
	}
	for i := 0; i < entries; i++ {
		minute := rng.IntN(hours * 60)
		at := time.Date(d.Year(), d.Month(), d.Day(), start, minute, rng.IntN(60), 0, g.loc)
		if at.After(g.now) {
			continue
		}
		g.floor.Board = append(g.floor.Board, BoardEntry{p.Key, at, 1})
	}
}

func (g *generator) memberCall(rng *rand.Rand, agent string, d time.Time) {
	g.callID++
	member := firstNames[rng.IntN(len(firstNames))] + " " + lastNames[rng.IntN(len(lastNames))]
	g.floor.Calls = append(g.floor.Calls, MemberCall{
		ID:           g.callID,
		Agent:        agent,
		MemberName:   member,
		Phone:        fmt.Sprintf("555%07d", rng.IntN(10_000_000)),
		DateOfBirth:  date(1940+rng.IntN(20), time.Month(1+rng.IntN(12)), 1+rng.IntN(28)),
		Transcript:   "Member asked about switching plans during the enrolment period.",
		RecordingURL: fmt.Sprintf("https://recordings.floor.example/%d.wav", g.callID),
	})
}

func dayStream(agent string, d time.Time) uint64 {
	h := fnv.New64a()
	fmt.Fprintf(h, "%s/%s", agent, d.Format(time.DateOnly))
	return h.Sum64()
}

func binomial(rng *rand.Rand, n int, p float64) int {
	k := 0
	for i := 0; i < n; i++ {
		if rng.Float64() < p {
			k++
		}
	}
	return k
}

func round2(x float64) float64 { return math.Round(x*100) / 100 }

func date(y int, m time.Month, d int) time.Time { return time.Date(y, m, d, 0, 0, 0, 0, time.UTC) }

func mondayOf(d time.Time) time.Time {
	return d.AddDate(0, 0, -((int(d.Weekday()) + 6) % 7))
}

func maxDate(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// emailFor builds an ASCII address from a name: "José Peña" → jose.pena@floor.example.
func emailFor(name string) string {
	t := transform.Chain(norm.NFD, runes.Remove(runes.In(unicode.Mn)), norm.NFC)
	plain, _, _ := transform.String(t, name)
	plain = strings.ReplaceAll(plain, ".", "") // a middle initial's
	return strings.ToLower(strings.ReplaceAll(plain, " ", ".")) + "@floor.example"
}

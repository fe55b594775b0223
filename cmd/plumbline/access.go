package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	"plumbline/internal/members"
	"plumbline/reports/ask"
)

// accessCmd keeps reach: plumbline access grant, revoke and list.
func accessCmd(ctx context.Context, args []string, s *streams) error {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" {
		args = []string{"list", "-h"}
	}
	action, rest := args[0], args[1:]
	f := newFlags("access "+action, helpText("access"), s)
	open := directoryFlags(f)
	var person, group, sees, team, from, to, by, reason, on, def *string
	switch action {
	case "grant", "revoke":
		person = f.string("person", "", "the `id` of the person (service:NAME for a service identity)")
		group = f.string("group", "", "the `name` of a group of the directory")
		by = f.string("by", "", "who sets it, such as a name or a ticket (`who`, required)")
	case "list":
		on = f.string("on", "", "the `day` to show, YYYY-MM-DD (default: today)")
		def = f.choice("default-reach", ask.SeesFloor, "what a person with no row in force sees, as serve's --default-reach: floor or none",
			ask.SeesFloor, ask.SeesNone)
	default:
		return fmt.Errorf("%w: unknown action %q: use grant, revoke or list", errUsage, action)
	}
	switch action {
	case "grant":
		sees = f.choice("sees", "", "what they see (required): floor, team (with --team), own (their own agent's rows), totals (the floor's totals, not each team's) or none", "",
			ask.SeesFloor, ask.SeesTeam, ask.SeesOwn, ask.SeesTotals, ask.SeesNone)
		team = f.string("team", "", "team `keys`, separated by commas, for --sees team")
		from = f.string("from", "", "first `day` it holds, YYYY-MM-DD (default: today)")
		to = f.string("to", "", "last `day` it holds, YYYY-MM-DD (default: no end)")
		reason = f.string("reason", "", "why, in a sentence (`text`, required)")
	case "revoke":
		team = f.string("team", "", "end only the grants of this team `key`")
		on = f.string("on", "", "first `day` it no longer holds, YYYY-MM-DD (default: today)")
	}
	pos, err := f.parse(rest)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return fmt.Errorf("%w: access %s takes no arguments, only flags", errUsage, action)
	}
	day := func(name string, text *string, or time.Time) (time.Time, error) {
		if text == nil || *text == "" {
			return or, nil
		}
		d, err := time.Parse(time.DateOnly, *text)
		if err != nil {
			return time.Time{}, fmt.Errorf("%w: --%s must be a day, YYYY-MM-DD", errUsage, name)
		}
		return d, nil
	}
	now := time.Now()
	today := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, time.UTC)
	if action != "list" {
		if (*person == "") == (*group == "") {
			return fmt.Errorf("%w: name one --person or one --group", errUsage)
		}
		if *by == "" {
			return fmt.Errorf("%w: --by must say who sets it", errUsage)
		}
	}
	if action == "grant" && *sees == "" {
		return fmt.Errorf("%w: --sees must say what they see: floor, team, own, totals or none", errUsage)
	}
	if action == "grant" && *reason == "" {
		return fmt.Errorf("%w: --reason must say why", errUsage)
	}
	store, closeStore, err := open(ctx)
	if err != nil {
		return err
	}
	defer closeStore()
	switch action {
	case "grant":
		g := members.Grant{Person: *person, Group: *group, Sees: *sees, SetBy: *by, Reason: *reason}
		if g.From, err = day("from", from, today); err != nil {
			return err
		}
		if *to != "" {
			end, err := day("to", to, today)
			if err != nil {
				return err
			}
			g.To = &end
		}
		teams := []string{""}
		if *sees == ask.SeesTeam {
			if teams = splitList(*team); len(teams) == 0 {
				return fmt.Errorf("%w: --sees team needs --team KEY[,KEY]", errUsage)
			}
		} else if *team != "" {
			return fmt.Errorf("%w: --team goes with --sees team", errUsage)
		}
		for _, t := range teams {
			g.Team = t
			id, err := store.AddGrant(ctx, g)
			if errors.Is(err, members.ErrNoGroup) {
				return fmt.Errorf("%w: --group: no group has this name (the directory's groups come from SCIM or members import)", errUsage)
			}
			if err != nil {
				return err
			}
			fmt.Fprintf(s.out, "Granted %d: %s sees %s from %s%s.\n", id, g.Subject(), seesText(g.Sees, g.Team), g.From.Format(time.DateOnly), until(g.To))
		}
		return nil
	case "revoke":
		d, err := day("on", on, today)
		if err != nil {
			return err
		}
		n, err := store.EndGrants(ctx, *person, *group, *team, d, *by)
		if errors.Is(err, members.ErrNoGroup) {
			return fmt.Errorf("%w: --group: no group has this name", errUsage)
		}
		if err != nil {
			return err
		}
		fmt.Fprintf(s.out, "Ended %d grant(s) as of %s; they hold through the day before, and stay on record.\n", n, d.Format(time.DateOnly))
		return nil
	}
	d, err := day("on", on, today)
	if err != nil {
		return err
	}
	defReach, _ := ask.ParseReach(*def)
	grants, err := store.Grants(ctx, d)
	if err != nil {
		return err
	}
	seen, err := store.Reaches(ctx, d, defReach)
	if err != nil {
		return err
	}
	fmt.Fprintf(s.out, "Grants in force on %s:\n", d.Format(time.DateOnly))
	tw := tabwriter.NewWriter(s.out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tFOR\tSEES\tFROM\tTO\tSET BY\tREASON")
	for _, g := range grants {
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\t%s\n", g.ID, g.Subject(), seesText(g.Sees, g.Team), g.From.Format(time.DateOnly),
			dayOr(g.To, "-"), g.SetBy, g.Reason)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(s.out, "\nWho sees what on %s (no grant in force: the default, %s):\n", d.Format(time.DateOnly), defReach)
	tw = tabwriter.NewWriter(s.out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "PERSON\tNAME\tSTATUS\tSEES")
	for _, v := range seen {
		what := v.Reach.String()
		if v.Default {
			what += " (default)"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", v.Person, dash(v.Name), dash(v.Status), what)
	}
	return tw.Flush()
}

// seesText names what a grant gives: floor, own, totals, none or team:KEY.
func seesText(sees, team string) string {
	if sees == ask.SeesTeam {
		return sees + ":" + team
	}
	return sees
}

func until(to *time.Time) string {
	if to == nil {
		return ""
	}
	return " through " + to.Format(time.DateOnly)
}

func dayOr(t *time.Time, or string) string {
	if t == nil {
		return or
	}
	return t.Format(time.DateOnly)
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// splitList splits a comma-separated list, dropping empty items.
func splitList(text string) []string {
	var out []string
	for _, p := range strings.Split(text, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

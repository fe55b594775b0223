package members

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/mail"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"
)

// Row is one member as an export lists them.
type Row struct {
	PersonID    string `json:"person_id"`
	Email       string `json:"email"`
	DisplayName string `json:"display_name"`
	Status      string `json:"status"`
	// Groups are the names of the groups the member is in; nil when the
	// export says nothing of groups, which leaves them as they are.
	Groups []string `json:"groups"`
	// Line is where the row is in its file: the line of a CSV file, the
	// place in a JSON array from 1.
	Line int `json:"-"`
}

// place is where the row is in file: its line, or its entry in a JSON
// array.
func (r Row) place(file string) string {
	if strings.EqualFold(filepath.Ext(file), ".json") {
		return fmt.Sprintf("entry %d", r.Line)
	}
	return fmt.Sprintf("line %d", r.Line)
}

// columns are an export's columns; status (active) and groups (left as
// they are) may be left out. In a CSV file, groups are separated by ";".
var columns = []string{"person_id", "email", "display_name", "status", "groups"}

// RowError is a bad row of an export: the file, the row's place, the
// column and the rule. It never repeats the value.
type RowError struct {
	File, Place, Column, Rule string
}

func (e *RowError) Error() string {
	s := e.File
	if e.Place != "" {
		s += ": " + e.Place
	}
	if e.Column != "" {
		s += ": " + e.Column
	}
	return s + ": " + e.Rule + "; fix the file and run the import again (nothing was changed)"
}

// ReadFile reads an export: a CSV file with a header row (person_id,
// email, display_name and, if wanted, status) or a JSON array of objects
// with those keys. Every row is checked; the first bad one is refused.
func ReadFile(path string) ([]Row, error) {
	name := filepath.Base(path)
	b, err := os.ReadFile(path)
	if err != nil {
		why := err.Error()
		var pe *fs.PathError
		if errors.As(err, &pe) {
			why = pe.Err.Error()
		}
		return nil, &RowError{File: name, Rule: "cannot be read (" + why + ")"}
	}
	var rows []Row
	switch strings.ToLower(filepath.Ext(path)) {
	case ".csv":
		rows, err = readCSV(name, b)
	case ".json":
		rows, err = readJSON(name, b)
	default:
		return nil, &RowError{File: name, Rule: "an export is a .csv file with a header row or a .json array of objects; name the file so"}
	}
	if err != nil {
		return nil, err
	}
	return rows, check(name, rows)
}

func readCSV(name string, b []byte) ([]Row, error) {
	r := csv.NewReader(bytes.NewReader(bytes.TrimPrefix(b, []byte("\ufeff"))))
	r.FieldsPerRecord = -1
	header, err := r.Read()
	if err != nil {
		return nil, &RowError{File: name, Place: "line 1", Rule: "must be a header row naming the columns " + strings.Join(columns, ", ")}
	}
	index := map[string]int{}
	for i, h := range header {
		h = strings.ToLower(strings.TrimSpace(h))
		if !slices.Contains(columns, h) {
			return nil, &RowError{File: name, Place: "line 1", Column: fmt.Sprintf("column %d", i+1),
				Rule: "is not one of the columns " + strings.Join(columns, ", ")}
		}
		if _, dup := index[h]; dup {
			return nil, &RowError{File: name, Place: "line 1", Column: h, Rule: "is named twice"}
		}
		index[h] = i
	}
	for _, c := range columns[:3] {
		if _, ok := index[c]; !ok {
			return nil, &RowError{File: name, Place: "line 1", Column: c, Rule: "is missing; the header names " + strings.Join(columns[:3], ", ") + " at least"}
		}
	}
	var rows []Row
	for {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			return rows, nil
		}
		var pe *csv.ParseError
		if errors.As(err, &pe) {
			return nil, &RowError{File: name, Place: fmt.Sprintf("line %d", pe.Line), Rule: "is not valid CSV (" + pe.Err.Error() + ")"}
		}
		line, _ := r.FieldPos(0)
		if len(rec) != len(header) {
			return nil, &RowError{File: name, Place: fmt.Sprintf("line %d", line), Rule: fmt.Sprintf("has %d fields, and the header %d", len(rec), len(header))}
		}
		get := func(c string) string {
			if i, ok := index[c]; ok {
				return strings.TrimSpace(rec[i])
			}
			return ""
		}
		row := Row{PersonID: get("person_id"), Email: get("email"), DisplayName: get("display_name"), Status: get("status"), Line: line}
		if _, ok := index["groups"]; ok {
			row.Groups = []string{}
			for _, g := range strings.Split(get("groups"), ";") {
				if g = strings.TrimSpace(g); g != "" {
					row.Groups = append(row.Groups, g)
				}
			}
		}
		rows = append(rows, row)
	}
}

func readJSON(name string, b []byte) ([]Row, error) {
	var raw []json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		return nil, &RowError{File: name, Rule: "must be one JSON array of objects, each with the keys " + strings.Join(columns, ", ")}
	}
	rows := make([]Row, len(raw))
	for i, r := range raw {
		d := json.NewDecoder(bytes.NewReader(r))
		d.DisallowUnknownFields()
		if err := d.Decode(&rows[i]); err != nil {
			return nil, &RowError{File: name, Place: fmt.Sprintf("entry %d", i+1),
				Rule: "must be an object whose keys are among " + strings.Join(columns, ", ") + ", each a string but groups, a list of names"}
		}
		rows[i].Line = i + 1
	}
	return rows, nil
}

// check checks every row and fills in the status left out.
func check(name string, rows []Row) error {
	place := func(r Row) string { return r.place(name) }
	seen, emails := map[string]Row{}, map[string]Row{}
	for i := range rows {
		r := &rows[i]
		bad := func(column, rule string) error {
			return &RowError{File: name, Place: place(*r), Column: column, Rule: rule}
		}
		if r.Status == "" {
			r.Status = StatusActive
		}
		a, err := mail.ParseAddress(r.Email)
		switch {
		case r.PersonID == "":
			return bad("person_id", "is empty; every member needs the id plumbline knows them by (their agent key on the floor)")
		case strings.HasPrefix(strings.ToLower(r.PersonID), "service:"):
			return bad("person_id", "must not start with service:, which names a service in the request log")
		case err != nil || a.Address != r.Email || a.Name != "":
			return bad("email", "must be one email address, user@domain, the one the person signs in with")
		case r.DisplayName == "":
			return bad("display_name", "is empty; it is the name plumbline shows")
		case !slices.Contains(Statuses, r.Status):
			return bad("status", "must be one of "+strings.Join(Statuses, ", ")+", or empty for active")
		case slices.ContainsFunc(r.Groups, func(g string) bool { return strings.TrimSpace(g) == "" || len(g) > 200 }):
			return bad("groups", "each group must be named, in at most 200 characters")
		}
		if o, dup := seen[r.PersonID]; dup {
			return bad("person_id", "is the same as "+place(o)+"'s; each member is listed once")
		}
		if o, dup := emails[strings.ToLower(r.Email)]; dup {
			return bad("email", "is the same as "+place(o)+"'s; each member has an address of their own")
		}
		seen[r.PersonID], emails[strings.ToLower(r.Email)] = *r, *r
	}
	return nil
}

// Report is what an import changed, by person id.
type Report struct {
	Added, Changed, Deactivated []string
	Unchanged                   int
	// KeptBySCIM counts the members the file does not list that SCIM
	// keeps, which the import leaves as they are.
	KeptBySCIM int
}

// Import makes the directory say what rows say, in one transaction, and
// puts each change on record as import: a member the rows list is added or
// changed, and an active member they do not list is deactivated (status
// removed), unless SCIM keeps them. A member who stops being active loses
// their tokens. Run again with the same rows it changes nothing. With dry,
// it only reports what it would change. An address another member (not
// listed) has is refused with the row's place.
func (s *Store) Import(ctx context.Context, file string, rows []Row, dry bool) (Report, error) {
	var rep Report
	errDry := errors.New("dry run")
	err := s.tx(ctx, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock(hashtext('plumbline.members import'))"); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, "SELECT FROM plumbline.members FOR UPDATE"); err != nil {
			return err
		}
		rs, err := tx.Query(ctx, "SELECT "+personColumns+" GROUP BY m.person_id")
		if err != nil {
			return err
		}
		current, err := pgx.CollectRows(rs, func(r pgx.CollectableRow) (Person, error) { return scanPerson(r) })
		if err != nil {
			return err
		}
		byID := map[string]Person{}
		for _, p := range current {
			byID[p.PersonID] = p
		}
		listed := map[string]bool{}
		for _, r := range rows {
			listed[r.PersonID] = true
			was, ok := byID[r.PersonID]
			if !ok {
				_, err := tx.Exec(ctx, `INSERT INTO plumbline.members (person_id, email, display_name, status, kept_by)
					VALUES ($1, lower($2), $3, $4, 'import')`, r.PersonID, r.Email, r.DisplayName, r.Status)
				if err = rowConflict(err, file, r); err != nil {
					return err
				}
				rep.Added = append(rep.Added, r.PersonID)
				if err := record(ctx, tx, "import", "create", r.PersonID, ""); err != nil {
					return err
				}
				if _, err := setGroups(ctx, tx, r.PersonID, nil, r.Groups); err != nil {
					return err
				}
				continue
			}
			p := was
			p.Email, p.DisplayName, p.Status, p.KeptBy = r.Email, r.DisplayName, r.Status, KeptByImport
			if err := rowConflict(write(ctx, tx, "import", was, p), file, r); err != nil {
				return err
			}
			joined, err := setGroups(ctx, tx, r.PersonID, was.Groups, r.Groups)
			if err != nil {
				return err
			}
			if p.fields() == was.fields() && !joined {
				rep.Unchanged++
				continue
			}
			rep.Changed = append(rep.Changed, r.PersonID)
		}
		for _, was := range current {
			switch {
			case listed[was.PersonID] || !was.Active():
			case was.KeptBy == KeptBySCIM:
				rep.KeptBySCIM++
			default:
				p := was
				p.Status = StatusRemoved
				if err := write(ctx, tx, "import", was, p); err != nil {
					return err
				}
				rep.Deactivated = append(rep.Deactivated, was.PersonID)
			}
		}
		if dry {
			return errDry
		}
		return nil
	})
	if errors.Is(err, errDry) {
		err = nil
	}
	return rep, err
}

// rowConflict names the row whose address another member has.
func rowConflict(err error, file string, r Row) error {
	var c *Conflict
	if errors.As(conflict(err), &c) {
		return &RowError{File: file, Place: r.place(file), Column: "email",
			Rule: "another member, whom the file does not list under this person_id, already has this address"}
	}
	return err
}

// setGroups makes a member, who was in the groups was, be in the groups
// named now (any case), making the groups no one has yet, each change on
// record; now nil leaves them as they are. It reports whether anything
// changed.
func setGroups(ctx context.Context, tx pgx.Tx, personID string, was []Ref, now []string) (bool, error) {
	if now == nil {
		return false, nil
	}
	in := func(name string, refs []Ref) bool {
		return slices.ContainsFunc(refs, func(g Ref) bool { return strings.EqualFold(g.Display, name) })
	}
	var want []Ref
	changed := false
	for _, name := range now {
		if in(name, want) {
			continue
		}
		want = append(want, Ref{Display: name})
		if in(name, was) {
			continue
		}
		var id string
		err := tx.QueryRow(ctx, "SELECT group_id::text FROM plumbline.groups WHERE lower(display_name) = lower($1)", name).Scan(&id)
		if errors.Is(err, pgx.ErrNoRows) {
			if err = tx.QueryRow(ctx, "INSERT INTO plumbline.groups (display_name) VALUES ($1) RETURNING group_id::text", name).Scan(&id); err == nil {
				err = record(ctx, tx, "import", "create group", "", id)
			}
		}
		if err != nil {
			return false, err
		}
		if _, err := tx.Exec(ctx, "INSERT INTO plumbline.group_members (group_id, person_id) VALUES ($1, $2)", id, personID); err != nil {
			return false, err
		}
		if err := record(ctx, tx, "import", "join group", personID, id); err != nil {
			return false, err
		}
		changed = true
	}
	for _, g := range was {
		if in(g.Display, want) {
			continue
		}
		if _, err := tx.Exec(ctx, "DELETE FROM plumbline.group_members WHERE group_id = $1 AND person_id = $2", g.ID, personID); err != nil {
			return false, err
		}
		if err := record(ctx, tx, "import", "leave group", personID, g.ID); err != nil {
			return false, err
		}
		changed = true
	}
	return changed, nil
}

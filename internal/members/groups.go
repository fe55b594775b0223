package members

import (
	"context"
	"errors"
	"slices"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
)

// groupColumns are a group's columns, as scanGroup reads them; its members
// come as two arrays, SCIM ids and display names.
const groupColumns = `g.group_id::text, g.display_name, coalesce(g.external_id, ''), g.created_at, g.updated_at,
	coalesce(array_agg(m.scim_id::text ORDER BY m.display_name, m.person_id) FILTER (WHERE m.person_id IS NOT NULL), '{}'),
	coalesce(array_agg(m.display_name ORDER BY m.display_name, m.person_id) FILTER (WHERE m.person_id IS NOT NULL), '{}')
	FROM plumbline.groups g
	LEFT JOIN plumbline.group_members gm ON gm.group_id = g.group_id
	LEFT JOIN plumbline.members m ON m.person_id = gm.person_id`

func scanGroup(row pgx.Row) (Group, error) {
	var g Group
	var ids, names []string
	err := row.Scan(&g.ID, &g.Name, &g.ExternalID, &g.Created, &g.Updated, &ids, &names)
	for i := range ids {
		g.Members = append(g.Members, Ref{ID: ids[i], Display: names[i]})
	}
	if errors.Is(err, pgx.ErrNoRows) {
		err = ErrNotFound
	}
	return g, err
}

// Groups lists every group, by name.
func (s *Store) Groups(ctx context.Context) ([]Group, error) {
	return list(ctx, s, "SELECT "+groupColumns+" GROUP BY g.group_id ORDER BY lower(g.display_name)", scanGroup)
}

// Group returns the group with a SCIM id.
func (s *Store) Group(ctx context.Context, id string) (Group, error) { return one(ctx, s, id, group) }

func group(ctx context.Context, tx pgx.Tx, id string, lock bool) (Group, error) {
	if uuid.Validate(id) != nil {
		return Group{}, ErrNotFound
	}
	if lock {
		if _, err := tx.Exec(ctx, "SELECT FROM plumbline.groups WHERE group_id = $1 FOR UPDATE", id); err != nil {
			return Group{}, err
		}
	}
	return scanGroup(tx.QueryRow(ctx, "SELECT "+groupColumns+" WHERE g.group_id = $1 GROUP BY g.group_id", id))
}

// CreateGroup adds a group with its members and puts it on record as by.
func (s *Store) CreateGroup(ctx context.Context, by string, g Group) (Group, error) {
	var out Group
	err := s.tx(ctx, func(tx pgx.Tx) error {
		err := tx.QueryRow(ctx, `INSERT INTO plumbline.groups (display_name, external_id) VALUES ($1, nullif($2, ''))
			RETURNING group_id::text`, g.Name, g.ExternalID).Scan(&g.ID)
		if err != nil {
			return conflict(err)
		}
		if err := record(ctx, tx, by, "create group", "", g.ID); err != nil {
			return err
		}
		if err := setMembers(ctx, tx, by, g.ID, nil, g.Members); err != nil {
			return err
		}
		out, err = group(ctx, tx, g.ID, false)
		return err
	})
	return out, err
}

// ModifyGroup changes the group with a SCIM id as change says, in one
// transaction with its row locked, and puts it on record as by.
func (s *Store) ModifyGroup(ctx context.Context, by, id string, change func(*Group) error) (Group, error) {
	var out Group
	err := s.tx(ctx, func(tx pgx.Tx) error {
		was, err := group(ctx, tx, id, true)
		if err != nil {
			return err
		}
		g := was
		g.Members = slices.Clone(was.Members)
		if err := change(&g); err != nil {
			return err
		}
		if g.Name != was.Name || g.ExternalID != was.ExternalID {
			if _, err := tx.Exec(ctx, `UPDATE plumbline.groups SET display_name = $2, external_id = nullif($3, ''), updated_at = now()
				WHERE group_id = $1`, id, g.Name, g.ExternalID); err != nil {
				return conflict(err)
			}
			if err := record(ctx, tx, by, "update group", "", id); err != nil {
				return err
			}
		}
		if err := setMembers(ctx, tx, by, id, was.Members, g.Members); err != nil {
			return err
		}
		out, err = group(ctx, tx, id, false)
		return err
	})
	return out, err
}

// setMembers makes a group's members, which were was, be now: it adds and
// removes the difference, each change on record. A member no person has
// the id of is refused.
func setMembers(ctx context.Context, tx pgx.Tx, by, groupID string, was, now []Ref) error {
	ids := func(refs []Ref) []string {
		out := make([]string, len(refs))
		for i, r := range refs {
			out[i] = r.ID
		}
		return out
	}
	before, after := ids(was), ids(now)
	for i, id := range after {
		if slices.Contains(before, id) || slices.Contains(after[:i], id) {
			continue
		}
		var personID string
		err := tx.QueryRow(ctx, `INSERT INTO plumbline.group_members (group_id, person_id)
			SELECT $1, person_id FROM plumbline.members WHERE scim_id = $2 RETURNING person_id`, groupID, nilUUID(id)).Scan(&personID)
		if errors.Is(err, pgx.ErrNoRows) {
			return &UnknownMember{Index: i}
		}
		if err != nil {
			return err
		}
		if err := record(ctx, tx, by, "join group", personID, groupID); err != nil {
			return err
		}
	}
	for _, id := range before {
		if slices.Contains(after, id) {
			continue
		}
		var personID string
		err := tx.QueryRow(ctx, `DELETE FROM plumbline.group_members gm USING plumbline.members m
			WHERE gm.group_id = $1 AND gm.person_id = m.person_id AND m.scim_id = $2 RETURNING gm.person_id`, groupID, id).Scan(&personID)
		if err != nil {
			return err
		}
		if err := record(ctx, tx, by, "leave group", personID, groupID); err != nil {
			return err
		}
	}
	return nil
}

// nilUUID is id if it is a UUID, else the nil UUID, which no person has.
func nilUUID(id string) string {
	if uuid.Validate(id) != nil {
		return uuid.Nil.String()
	}
	return id
}

// DeleteGroup deletes the group with a SCIM id, and puts it on record as
// by.
func (s *Store) DeleteGroup(ctx context.Context, by, id string) error {
	return s.tx(ctx, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, "DELETE FROM plumbline.groups WHERE group_id = $1", nilUUID(id))
		if err != nil {
			return err
		}
		if tag.RowsAffected() == 0 {
			return ErrNotFound
		}
		return record(ctx, tx, by, "delete group", "", id)
	})
}

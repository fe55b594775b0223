package answer

// Roster is roster's answer.
type Roster struct {
	RequestID      string       `json:"request_id"`
	Request        Echo         `json:"request"`
	Day            string       `json:"day"`
	TimeZone       string       `json:"time_zone"`
	Teams          []RosterTeam `json:"teams"`
	Columns        []string     `json:"columns"`
	Rows           [][]any      `json:"rows"`
	Truncated      bool         `json:"truncated"`
	Notes          []string     `json:"notes"`
	CatalogVersion string       `json:"catalog_version"`
}

// RosterTeam is a team's place on the floor on the roster's day, with the
// decision that put it there.
type RosterTeam struct {
	Team      string `json:"team"`
	Name      string `json:"team_name"`
	OnFloor   *bool  `json:"on_floor"`
	Since     string `json:"decided_from,omitempty"`
	DecidedBy string `json:"decided_by,omitempty"`
	Reason    string `json:"reason,omitempty"`
	Agents    int    `json:"agents"`
}

// People is find_people's answer.
type People struct {
	RequestID      string   `json:"request_id"`
	People         []Person `json:"people"`
	Truncated      bool     `json:"truncated"`
	Notes          []string `json:"notes"`
	CatalogVersion string   `json:"catalog_version"`
}

// Person is a directory entry a search matched.
type Person struct {
	AgentKey string `json:"agent_key"`
	Name     string `json:"name"`
	Email    string `json:"email"`
	Team     string `json:"team,omitempty"`
	TeamName string `json:"team_name,omitempty"`
	Hired    string `json:"hired_on"`
	Left     string `json:"left_on,omitempty"`
}

// Freshness is freshness's answer: how far every source runs.
type Freshness struct {
	RequestID      string                      `json:"request_id"`
	Now            string                      `json:"now"`
	Today          string                      `json:"today"`
	TimeZone       string                      `json:"time_zone"`
	Sources        map[string]*SourceFreshness `json:"sources"`
	Notes          []string                    `json:"notes"`
	CatalogVersion string                      `json:"catalog_version"`
}

// SourceFreshness is one source's freshness and today's status.
type SourceFreshness struct {
	Source      string      `json:"source"`
	Description string      `json:"description"`
	Refresh     string      `json:"refresh"`
	Settles     string      `json:"settles"`
	DataThrough DataThrough `json:"data_through"`
	FirstDay    *string     `json:"first_day"`
	Today       string      `json:"today"`
	Metrics     []string    `json:"metrics"`
}

// Definitions is metric_definitions' answer.
type Definitions struct {
	RequestID string                 `json:"request_id"`
	Metrics   map[string]*Definition `json:"metrics"`
	Bases     map[string]*Basis      `json:"bases"`
	// StandingNotes are the texts of every standing note an answer may
	// name by reference (note_refs), by ID.
	StandingNotes  map[string]string `json:"standing_notes"`
	CatalogVersion string            `json:"catalog_version"`
	Notes          []string          `json:"notes"`
}

// Definition is everything the catalogue says about a metric.
type Definition struct {
	Label      string   `json:"label"`
	Unit       string   `json:"unit"`
	Definition string   `json:"definition"`
	Formula    string   `json:"formula"`
	Source     string   `json:"source"`
	Grain      string   `json:"grain"`
	SalesBasis string   `json:"sales_basis,omitempty"`
	Settles    string   `json:"settles"`
	Reports    []string `json:"reports"`
}

// Basis is a counting basis.
type Basis struct {
	Label      string `json:"label"`
	Definition string `json:"definition"`
}

// Health is health's answer.
type Health struct {
	RequestID      string `json:"request_id"`
	Status         string `json:"status"`
	Database       string `json:"database"`
	CatalogVersion string `json:"catalog_version"`
}

// Preview is a redefined metric's summed parts (see [ask.Plan.Span]) for
// the floor over a week, under the old and the new catalogue (plumbline
// check --diff); a part is nil when there is no data.
type Preview struct {
	Old, New []*float64
}

package ask

// Codes for refusals. They are stable: clients and the request log may rely
// on them.
const (
	CodeInvalidArgument = "invalid_argument" // the caller can fix the call
	CodeNotComparable   = "not_comparable"   // a comparison over unfinished days
	CodeUnavailable     = "unavailable"      // the database could not answer; retry later
	CodeBusy            = "busy"             // no connection came free in time; retry later
	CodeTimeout         = "timeout"          // the query ran too long; narrow the call
	CodeRateLimited     = "rate_limited"     // too many calls this minute
	CodeForbidden       = "forbidden"        // the caller's token does not allow the tool
	CodeUnauthenticated = "unauthenticated"  // the caller's token no longer holds; sign in again
	CodeInternal        = "internal"         // a fault on our side
)

// Refusal is plumbline's own teaching error: which argument, the rule it
// broke and the valid choices. It never carries the caller's value.
type Refusal struct {
	Code     string `json:"code"`
	Argument string `json:"argument,omitempty"`
	// Rule reads after the argument's name ("is not a calendar date; …."),
	// or, with no argument, is a sentence of its own; either way it ends
	// with a period and says what to do or lists the choices.
	Rule    string   `json:"rule"`
	Choices []string `json:"choices"`
}

// Error is the refusal's code and its sentence.
func (r *Refusal) Error() string { return r.Code + ": " + r.Sentence() }

// Sentence is the refusal as a model reads it: a rule about an argument
// reads after the argument's name ("who.agent matches no agent; …."), and a
// rule about none is a sentence of its own. Every rule is written so that
// this is a sentence a person would write, ending with a period.
func (r *Refusal) Sentence() string {
	if r.Argument == "" {
		return r.Rule
	}
	return r.Argument + " " + r.Rule
}

// Invalid builds a refusal for a bad argument.
func Invalid(argument, rule string, choices ...string) *Refusal {
	if choices == nil {
		choices = []string{}
	}
	return &Refusal{Code: CodeInvalidArgument, Argument: argument, Rule: rule, Choices: choices}
}

// Unavailable builds a refusal for a fault the caller cannot fix.
func Unavailable(code, rule string) *Refusal {
	return &Refusal{Code: code, Rule: rule, Choices: []string{}}
}

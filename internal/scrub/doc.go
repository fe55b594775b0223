// Package scrub keeps long numbers out of what plumbline sends, as a
// backstop: every run of seven or more digits in a text (a phone number, a
// member id, a policy number) is cut to its last four.
//
// Nothing plumbline sends should hold such a number in the first place (the
// grants keep member data out of reach); scrubbing catches what a mistake
// upstream lets through, say a phone number typed into a team's name.
package scrub

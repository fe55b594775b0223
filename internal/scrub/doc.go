// Package scrub is the backstop that keeps long numbers such as phone
// numbers, member ids and policy numbers out of what plumbline sends: every
// run of seven or more digits in a text is cut to its last four.
//
// Nothing plumbline sends should hold such a number in the first place (the
// grants keep member data out of reach); scrubbing catches what a mistake
// upstream lets through, say a phone number typed into a team's name.
package scrub

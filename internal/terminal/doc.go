// Package terminal prints plumbline's answers and catalogue changes for a
// person at a terminal: figures as aligned tables with their period,
// definitions, freshness, partial figures and notes beneath, and old
// against new text side by side; and what the commands report beside
// them: plumbline check's findings (as text or GitHub annotations), the
// statements explain shows, the tokens token list shows.
package terminal

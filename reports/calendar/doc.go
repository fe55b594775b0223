// Package calendar is the floor's calendar: the days, weeks, months,
// quarters and years of the catalogue's time zone, what a named period
// means on a day, the period a comparison sets another beside, when a day
// is whole, and how a run of days is written. Its functions are pure: they
// read only dates, periods ([ask.Period]) and the catalogue's settings.
//
// Dates are civil dates, held as midnight UTC, so that arithmetic on them
// never meets a clock change; only instants (a call's moment) are
// converted, and they are converted with the floor's zone.
package calendar

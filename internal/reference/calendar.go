package reference

import (
	"fmt"
	"time"
)

// calendar is a run of New York civil days, built by walking forward one day
// at a time from its first: each day numbered from 0, with its year, month,
// day of the month and weekday. Periods are found by walking it, not by date
// arithmetic.
type calendar struct {
	year, month, dom []int
	weekday          []int // 0 Monday … 6 Sunday
	text             []string
	number           map[string]int
}

func daysInMonth(year, month int) int {
	switch month {
	case 2:
		if year%4 == 0 && (year%100 != 0 || year%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

// newCalendar walks from first for n days.
func newCalendar(first time.Time, n int) *calendar {
	c := &calendar{number: map[string]int{}}
	y, m, d := first.Year(), int(first.Month()), first.Day()
	wd := (int(first.Weekday()) + 6) % 7
	for i := 0; i < n; i++ {
		s := fmt.Sprintf("%04d-%02d-%02d", y, m, d)
		c.year, c.month, c.dom = append(c.year, y), append(c.month, m), append(c.dom, d)
		c.weekday, c.text = append(c.weekday, wd), append(c.text, s)
		c.number[s] = i
		wd = (wd + 1) % 7
		if d++; d > daysInMonth(y, m) {
			d = 1
			if m++; m > 12 {
				m = 1
				y++
			}
		}
	}
	return c
}

func (c *calendar) has(i int) bool { return i >= 0 && i < len(c.text) }

// date is day i's date.
func (c *calendar) date(i int) string {
	if c.has(i) {
		return c.text[i]
	}
	return c.firstDate().AddDate(0, 0, i).Format(time.DateOnly)
}

// dayOf finds a written date on the calendar: its number, and whether it is
// a valid date at all. A valid date before the calendar's first day is
// numbered before it, one after its last after it.
func (c *calendar) dayOf(s string) (int, bool) {
	if i, ok := c.number[s]; ok {
		return i, true
	}
	d, err := time.Parse(time.DateOnly, s)
	if err != nil {
		return 0, false
	}
	if s > c.text[len(c.text)-1] {
		return len(c.text), true
	}
	return -int(c.firstDate().Sub(d).Hours() / 24), true
}

func (c *calendar) firstDate() time.Time {
	return time.Date(c.year[0], time.Month(c.month[0]), c.dom[0], 0, 0, 0, 0, time.UTC)
}

// monday walks back from day i to the Monday of its week.
func (c *calendar) monday(i int) int {
	for c.has(i) && c.weekday[i] != 0 {
		i--
	}
	return i
}

// monthStart walks back from day i to the 1st of its month.
func (c *calendar) monthStart(i int) int {
	for c.has(i) && c.dom[i] != 1 {
		i--
	}
	return i
}

// quarterStart walks back from day i to the 1st of its calendar quarter.
func (c *calendar) quarterStart(i int) int {
	for c.has(i) && !(c.dom[i] == 1 && c.month[i]%3 == 1) {
		i--
	}
	return i
}

// yearStart walks back from day i to the 1st of January of its year.
func (c *calendar) yearStart(i int) int {
	for c.has(i) && !(c.dom[i] == 1 && c.month[i] == 1) {
		i--
	}
	return i
}

// backTo walks back from day i to the latest day that is the given day of
// the given month.
func (c *calendar) backTo(i, month, dom int) int {
	for c.has(i) && !(c.month[i] == month && c.dom[i] == dom) {
		i--
	}
	return i
}

// onTo walks forward from day i to the first day that is the given day of
// the given month, or past the calendar's last day.
func (c *calendar) onTo(i, month, dom int) int {
	for c.has(i) && !(c.month[i] == month && c.dom[i] == dom) {
		i++
	}
	return i
}

// monthEnd walks forward from day i to the last day of its month.
func (c *calendar) monthEnd(i int) int {
	for c.has(i+1) && c.dom[i+1] != 1 {
		i++
	}
	return i
}

// span is a run of days, first through last inclusive.
type span struct{ first, last int }

func (s span) days() int { return s.last - s.first + 1 }

func (s span) holds(d int) bool { return d >= s.first && d <= s.last }

// overlap is the days two spans share; ok false when none.
func (s span) overlap(o span) (span, bool) {
	out := span{max(s.first, o.first), min(s.last, o.last)}
	return out, out.first <= out.last
}

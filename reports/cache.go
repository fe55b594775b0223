package reports

import (
	"bytes"
	"container/list"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"plumbline/catalog"
	"plumbline/reports/answer"
	"plumbline/reports/calendar"
	"plumbline/reports/directory"
	"plumbline/reports/grammar"
)

// This file keeps settled answers: an answer none of whose figures can
// still change (nothing partial, nothing left out) is kept, as the JSON
// sent, and a call that would compute it again gets it with its own
// request_id. The call is authorized, limited and put on record like any
// other; its outcome is "cached".
//
// An answer is found by everything it depends on: the catalogue's version,
// the tool and its arguments, the caller's reach (and the caller, when the
// answer depends on who they are), the floor's day, the directory's fingerprint,
// how far each source it reads is loaded and how far each metric is final.
// A moved load watermark, a new catalogue, a changed roster or the next
// settle hour each make a new key; old keys age out of the LRU.

// DefaultCacheBytes bounds the engine's own cache of settled answers.
const DefaultCacheBytes = 16 << 20

// AnswerCache keeps settled answers, least recently used first out, within
// a bound on the bytes of the answers it holds. It is safe for concurrent
// use, and engines may share one.
type AnswerCache struct {
	mu    sync.Mutex
	max   int64
	order *list.List // of *kept, most recently used first
	items map[string]*list.Element
	stats CacheStats
}

// CacheStats says what an AnswerCache holds and how it has done.
type CacheStats struct {
	Entries                 int
	Bytes, MaxBytes         int64
	Hits, Misses, Evictions uint64
}

type kept struct {
	key      string
	body     []byte // the answer's JSON, request_id first
	idLen    int    // the length of the request_id in body
	rows     int
	warnings []string
	typed    any                    // the answer as it was made (never changed once kept), for Rendered
	text     atomic.Pointer[string] // its rendering for a model, once Rendered has made it
}

// NewAnswerCache returns a cache of at most maxBytes of answers; zero keeps
// nothing.
func NewAnswerCache(maxBytes int64) *AnswerCache {
	return &AnswerCache{max: maxBytes, order: list.New(), items: map[string]*list.Element{}}
}

// Stats reports the cache's size and counts.
func (c *AnswerCache) Stats() CacheStats {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := c.stats
	s.Entries, s.MaxBytes = c.order.Len(), c.max
	return s
}

func (c *AnswerCache) get(key string) (*kept, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.items[key]
	if !ok {
		c.stats.Misses++
		return nil, false
	}
	c.stats.Hits++
	c.order.MoveToFront(el)
	return el.Value.(*kept), true
}

func (c *AnswerCache) put(k *kept) {
	size := int64(len(k.body) + len(k.key))
	c.mu.Lock()
	defer c.mu.Unlock()
	if size > c.max {
		return
	}
	if el, ok := c.items[k.key]; ok {
		c.stats.Bytes -= int64(len(el.Value.(*kept).body) + len(k.key))
		c.order.Remove(el)
	}
	c.items[k.key] = c.order.PushFront(k)
	c.stats.Bytes += size
	for c.stats.Bytes > c.max {
		old := c.order.Back()
		v := old.Value.(*kept)
		c.order.Remove(old)
		delete(c.items, v.key)
		c.stats.Bytes -= int64(len(v.body) + len(v.key))
		c.stats.Evictions++
	}
}

// answerKey is what a call's answer depends on, when the tool's answers
// may be kept: its metrics' tools only.
func (e *Engine) answerKey(ctx context.Context, c *call, raw json.RawMessage) (string, bool) {
	if e.answers.max == 0 {
		return "", false
	}
	var metrics []*catalog.Metric
	if rep, ok := e.cat.Report(c.tool); ok {
		metrics = rep.Metrics
	} else if c.tool == grammar.ToolTeamDay || c.tool == grammar.ToolTeamWeeks || c.tool == grammar.ToolLeague {
		metrics = e.allReportMetrics()
	} else {
		return "", false
	}
	args, ok := canonical(raw)
	if !ok {
		return "", false
	}
	dir, err := e.directory(ctx, c.now)
	if err != nil {
		return "", false
	}
	cov, err := e.sourcesCoverage(ctx, metrics)
	if err != nil {
		return "", false
	}
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00%s\x00%s\x00%s\x00", e.cat.Version(), c.tool, args, calendar.Today(c.now, e.cat.Zone()).Format(time.DateOnly), dir.Fingerprint())
	// What the caller may see shapes the answer, and so, when the reach
	// covers their own agent or the call asks for their own team, does who
	// they are: no answer crosses callers of different reach.
	fmt.Fprintf(h, "%s\x00", c.reach)
	if c.reach.Own || bytes.Contains(bytes.ToLower(args), []byte(`"`+directory.MineTeam+`"`)) {
		fmt.Fprintf(h, "%s\x00", c.caller.Person)
	}
	zone := e.cat.Zone()
	for _, m := range metrics {
		th := metricThrough(m, cov, c.now, zone)
		fmt.Fprintf(h, "%s %v %v %v\x00", m.ID, th.first, th.runsTo, th.complete)
	}
	return hex.EncodeToString(h.Sum(nil)), true
}

// canonical writes a call's arguments in one form: keys sorted, no spaces.
func canonical(raw json.RawMessage) ([]byte, bool) {
	if len(bytes.TrimSpace(raw)) == 0 {
		return []byte("{}"), true
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil {
		return nil, false
	}
	b, err := json.Marshal(v)
	return b, err == nil
}

// keep stores a call's answer under key when it is settled: figures, none
// partial.
func (e *Engine) keep(key string, c *call, a *Answer) {
	var settled bool
	switch b := a.Body.(type) {
	case *answer.Report:
		settled = !b.Partial
	case *answer.Canned:
		settled = !b.Partial
	}
	if !settled || a.Refusal != nil {
		return
	}
	body, err := json.Marshal(a.Body)
	if err != nil || !bytes.HasPrefix(body, []byte(`{"request_id":"`+c.id+`"`)) {
		return
	}
	a.kept = &kept{key: key, body: body, idLen: len(c.id), rows: a.Rows, warnings: slices.Clone(a.Warnings), typed: a.Body}
	e.answers.put(a.kept)
}

// answer is a kept answer under a new request_id.
func (k *kept) answer(id string) *Answer {
	prefix := len(`{"request_id":"`)
	body := make([]byte, 0, len(k.body)-k.idLen+len(id))
	body = append(append(append(body, k.body[:prefix]...), id...), k.body[prefix+k.idLen:]...)
	return &Answer{RequestID: id, Body: json.RawMessage(body), Rows: k.rows, Warnings: slices.Clone(k.warnings), Cached: true, kept: k}
}

// Rendered is the answer's body rendered by render (for a model to read).
// A kept answer is rendered once, from the answer as it was made, for
// every call it answers: render must write nothing of the request, so its
// text is the same for each.
func (a *Answer) Rendered(render func(body any) (string, bool)) (string, bool) {
	k := a.kept
	if k == nil {
		return render(a.Body)
	}
	if t := k.text.Load(); t != nil {
		return *t, true
	}
	text, ok := render(k.typed)
	if ok {
		k.text.Store(&text)
	}
	return text, ok
}

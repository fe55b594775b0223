package telemetry

import (
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"
)

// Pool metric names; each series has a pool label naming which of
// plumbline's pools it is (primary, reports, auth, analyst).
const (
	MetricPoolConnections  = "plumbline_db_pool_connections"
	MetricPoolMax          = "plumbline_db_pool_max_connections"
	MetricPoolAcquires     = "plumbline_db_pool_acquires_total"
	MetricPoolWaits        = "plumbline_db_pool_waited_acquires_total"
	MetricPoolWaitSeconds  = "plumbline_db_pool_wait_seconds_total"
	MetricPoolCanceled     = "plumbline_db_pool_canceled_acquires_total"
	MetricPoolNewConns     = "plumbline_db_pool_new_connections_total"
	MetricPoolAcquireTotal = "plumbline_db_pool_acquire_seconds_total"
)

// Pool exports a connection pool's statistics under name, read from the
// pool at each scrape.
func (m *Metrics) Pool(name string, p *pgxpool.Pool) {
	if m == nil {
		return
	}
	labels := prometheus.Labels{"pool": name}
	m.Register(&poolCollector{pool: p,
		conns:    prometheus.NewDesc(MetricPoolConnections, "Connections of the pool by state: acquired, idle or constructing.", []string{"state"}, labels),
		max:      prometheus.NewDesc(MetricPoolMax, "Most connections the pool may hold.", nil, labels),
		acquires: prometheus.NewDesc(MetricPoolAcquires, "Connections acquired from the pool.", nil, labels),
		waits:    prometheus.NewDesc(MetricPoolWaits, "Acquires that had to wait for a connection (none was idle).", nil, labels),
		waited:   prometheus.NewDesc(MetricPoolWaitSeconds, "Time acquires spent waiting for a connection to come free.", nil, labels),
		acquired: prometheus.NewDesc(MetricPoolAcquireTotal, "Time all acquires took, waiting or not.", nil, labels),
		canceled: prometheus.NewDesc(MetricPoolCanceled, "Acquires given up before a connection came free (a busy answer, or a call that went away).", nil, labels),
		newConns: prometheus.NewDesc(MetricPoolNewConns, "Connections the pool opened.", nil, labels),
	})
}

type poolCollector struct {
	pool                                                              *pgxpool.Pool
	conns, max, acquires, waits, waited, acquired, canceled, newConns *prometheus.Desc
}

func (c *poolCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{c.conns, c.max, c.acquires, c.waits, c.waited, c.acquired, c.canceled, c.newConns} {
		ch <- d
	}
}

func (c *poolCollector) Collect(ch chan<- prometheus.Metric) {
	s := c.pool.Stat()
	gauge, counter := prometheus.GaugeValue, prometheus.CounterValue
	ch <- prometheus.MustNewConstMetric(c.conns, gauge, float64(s.AcquiredConns()), "acquired")
	ch <- prometheus.MustNewConstMetric(c.conns, gauge, float64(s.IdleConns()), "idle")
	ch <- prometheus.MustNewConstMetric(c.conns, gauge, float64(s.ConstructingConns()), "constructing")
	ch <- prometheus.MustNewConstMetric(c.max, gauge, float64(s.MaxConns()))
	ch <- prometheus.MustNewConstMetric(c.acquires, counter, float64(s.AcquireCount()))
	ch <- prometheus.MustNewConstMetric(c.waits, counter, float64(s.EmptyAcquireCount()))
	ch <- prometheus.MustNewConstMetric(c.waited, counter, s.EmptyAcquireWaitTime().Seconds())
	ch <- prometheus.MustNewConstMetric(c.acquired, counter, s.AcquireDuration().Seconds())
	ch <- prometheus.MustNewConstMetric(c.canceled, counter, float64(s.CanceledAcquireCount()))
	ch <- prometheus.MustNewConstMetric(c.newConns, counter, float64(s.NewConnsCount()))
}

package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"plumbline/catalog"
	"plumbline/internal/analyst"
	"plumbline/internal/dbcheck"
	"plumbline/internal/grants"
	"plumbline/internal/pgstore"
	"plumbline/reports"
)

// This file holds the flags of the analyst's door and opens it for serve
// and demo.

// analystFlags configure the analyst's door.
type analystFlags struct {
	dsn, grantsDir, workMem *string
	timeout                 *time.Duration
	perMinute               *int
}

func addAnalystFlags(f *flags) *analystFlags {
	return &analystFlags{
		dsn: f.string("analyst-db", "", "PostgreSQL connection `string` signed in as the analyst's door's login (plumbline_agent, "+
			"a member of the analyst role alone); without it there is no analyst's door"),
		grantsDir: addAnalystGrantsFlag(f),
		timeout:   f.duration("analyst-statement-timeout", analyst.DefaultStatementTimeout, "longest a statement of the analyst's door may run"),
		workMem:   f.string("analyst-work-mem", analyst.DefaultWorkMem, "work_mem of each statement of the analyst's door, such as 16MB"),
		perMinute: f.int("analyst-statements-per-minute", analyst.DefaultPerMinute, "statements each service may send through the analyst's door in any minute; 0 for no limit"),
	}
}

// open opens the analyst's door when --analyst-db names its login, after
// the startup guard has checked that login: it may read exactly the
// analyst grants' relations, write nothing and hold no role but the
// analyst. Without --analyst-db it returns nil.
func (af *analystFlags) open(ctx context.Context, audit *pgstore.Store, engine *reports.Engine, cat *catalog.Catalog,
	roles grants.Roles, log *slog.Logger) (*analyst.Door, error) {
	if *af.dsn == "" {
		return nil, nil
	}
	gs, err := loadAnalystGrants(*af.grantsDir)
	if err != nil {
		return nil, err
	}
	perMinute := *af.perMinute
	if perMinute == 0 {
		perMinute = -1
	}
	door, err := analyst.Open(ctx, *af.dsn, audit, gs, &analyst.Options{Role: roles.Analyst, Logger: roles.Logger,
		StatementTimeout: *af.timeout, WorkMem: *af.workMem, PerMinute: perMinute, TimeZone: cat.Zone().String(),
		Reports: engine.Tools(), Log: log})
	if err != nil {
		return nil, fmt.Errorf("the analyst's door: %w", err)
	}
	gctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	rep, err := dbcheck.Inspect(gctx, door.Store().Pool(), dbcheck.AnalystPolicy(roles, gs))
	if err == nil && !rep.OK() {
		err = errors.New(rep.Refusal("the analyst's door's login " + rep.Login))
	}
	if err != nil {
		door.Close()
		return nil, err
	}
	log.Info("startup guard passed: the analyst's door's login reaches only the analyst grants", "login", rep.Login,
		"relations", len(gs))
	return door, nil
}

// Package hostile loads, for tests, the corpus of hostile statements the
// analyst's door must refuse twice over: testdata/analyst/hostile.yaml,
// each with the check that refuses it before the database sees it, and what
// the database alone does with it.
package hostile

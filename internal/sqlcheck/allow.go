package sqlcheck

// This file holds the allow-lists of built-ins: the functions, operators and
// types a statement may use, unqualified or in pg_catalog. Everything else
// is refused, so a function that sleeps, reads or changes a setting, touches
// files or large objects, takes an advisory lock, connects elsewhere or
// reads the catalogue (pg_sleep, set_config, current_setting, pg_read_file,
// lo_import, pg_advisory_lock, dblink, pg_get_viewdef, query_to_xml, ...)
// never passes, and neither does one someone creates later.

// set builds a set from names.
func set(names ...string) map[string]bool {
	m := make(map[string]bool, len(names))
	for _, n := range names {
		m[n] = true
	}
	return m
}

// Functions are the built-in functions a statement may call: aggregates,
// window functions, arithmetic, text, dates and times, arrays and JSON
// building. None reads state beyond its arguments and the clock.
var Functions = set(
	// aggregates
	"count", "sum", "avg", "min", "max", "stddev", "stddev_pop", "stddev_samp", "variance", "var_pop", "var_samp",
	"bool_and", "bool_or", "every", "string_agg", "array_agg", "percentile_cont", "percentile_disc", "mode",
	"corr", "covar_pop", "covar_samp", "regr_avgx", "regr_avgy", "regr_count", "regr_intercept", "regr_r2",
	"regr_slope", "regr_sxx", "regr_sxy", "regr_syy", "json_agg", "jsonb_agg", "json_object_agg", "jsonb_object_agg",
	// window functions
	"row_number", "rank", "dense_rank", "percent_rank", "cume_dist", "ntile", "lag", "lead", "first_value",
	"last_value", "nth_value",
	// arithmetic
	"abs", "ceil", "ceiling", "floor", "round", "trunc", "sign", "sqrt", "cbrt", "power", "exp", "ln", "log",
	"log10", "mod", "div", "width_bucket", "scale", "gcd", "lcm",
	// text
	"lower", "upper", "initcap", "length", "char_length", "character_length", "octet_length", "substr", "substring",
	"btrim", "ltrim", "rtrim", "left", "right", "replace", "concat", "concat_ws", "split_part", "position", "strpos",
	"starts_with", "lpad", "rpad", "reverse", "translate", "format", "overlay", "normalize", "is_normalized",
	"regexp_replace", "regexp_match", "regexp_like", "regexp_count", "regexp_substr", "regexp_instr",
	"to_char", "to_number", "to_date", "to_timestamp", "md5", "similar_to_escape",
	// dates and times
	"date_trunc", "date_part", "extract", "age", "make_date", "make_time", "make_interval", "make_timestamp",
	"make_timestamptz", "date_bin", "now", "timezone", "justify_days", "justify_hours", "justify_interval",
	"isfinite", "overlaps", "statement_timestamp", "transaction_timestamp",
	// arrays and sets of rows
	"array_length", "array_lower", "array_upper", "cardinality", "unnest", "array_to_string", "string_to_array",
	"array_position", "array_positions", "array_append", "array_prepend", "array_cat", "array_remove",
	"generate_series",
	// JSON building and reading
	"json_build_object", "jsonb_build_object", "json_build_array", "jsonb_build_array", "to_json", "to_jsonb",
	"json_array_length", "jsonb_array_length", "jsonb_typeof", "json_typeof", "jsonb_extract_path_text",
	"json_extract_path_text",
	// conditionals and conversions spelt as functions
	"num_nulls", "num_nonnulls",
)

// Operators are the built-in operators a statement may use.
var Operators = set(
	"=", "<>", "!=", "<", ">", "<=", ">=", "+", "-", "*", "/", "%", "^", "||", "|/", "||/", "@", "&", "|", "#",
	"<<", ">>", "~", "~*", "!~", "!~*", "~~", "~~*", "!~~", "!~~*", "@>", "<@", "&&",
	"->", "->>", "#>", "#>>", "?", "?|", "?&",
)

// Types are the types a statement may cast to: numbers, text, truth values,
// dates, times and intervals, and JSON.
var Types = set(
	"int2", "int4", "int8", "smallint", "integer", "int", "bigint", "numeric", "decimal", "float4", "float8", "real",
	"text", "varchar", "bpchar", "char", "bool", "boolean", "date", "time", "timetz", "timestamp", "timestamptz",
	"interval", "json", "jsonb",
)

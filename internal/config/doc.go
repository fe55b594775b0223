// Package config layers a command's settings, one per flag: each takes its
// value from the command line, else from its PLUMBLINE_* environment
// variable, else from the YAML configuration file --config names (keyed by
// the flags' own names), else its default; it records where each value
// came from, refuses an unknown key or a bad value with the file and line
// and the valid choices before anything starts, reads secrets from files
// when asked (NAME-file in the file, $PLUMBLINE_NAME_FILE in the
// environment), and masks them whenever a value is shown.
package config

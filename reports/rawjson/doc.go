// Package rawjson reads JSON in place. It reads the members of an object,
// the elements of an array and the text of a string as encoding/json
// would decode them into maps and slices of raw values, without making
// them.
package rawjson

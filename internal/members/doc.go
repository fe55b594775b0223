// Package members keeps plumbline's directory: who may connect (the
// membership table), the groups they are in, and a record of every change,
// as the company's identity provider provisions them over SCIM 2.0 (package
// scim) or an export `plumbline members import` reads. It also keeps the
// SCIM endpoint's own bearer tokens.
//
// A person who stops being an active member loses their access tokens in
// the same transaction, so they are refused on their next request; the
// token check reads the membership on every request besides.
package members

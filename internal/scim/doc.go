// Package scim is plumbline's SCIM 2.0 service provider (RFC 7643, RFC
// 7644): the company's identity provider (Okta, Microsoft Entra ID, or any
// other SCIM client) creates, updates, deactivates and deletes the members
// of plumbline's directory and its groups at /scim/v2/Users and
// /scim/v2/Groups, with a bearer token of its own (package members keeps
// them).
//
// The protocol (routes, list responses, PATCH paths, filters, the
// discovery documents) is github.com/elimity-com/scim's. What it lacks is
// here: every request is checked first, so that an attribute no schema
// defines is refused rather than dropped and every refusal names the place
// and the rule without repeating a value; and what Microsoft Entra ID sends
// against the standard (booleans as strings, capitalised operations, the
// manager as a bare id) is put right.
package scim

// Package cimd fetches OAuth Client ID Metadata Documents: a client whose
// client_id is an https URL publishes its metadata at that URL, and the
// authorization server fetches it.
//
// Fetching a URL a stranger chose is a server-side request forgery risk, so
// the fetcher follows no redirects, accepts only 200, reads at most
// MaxDocumentBytes, gives up after a short timeout, ignores proxy settings,
// and checks the address it actually dials (after DNS resolution, so a name
// that resolves to a private address is refused too): loopback, private,
// link-local and other special-use addresses are refused unless the
// options allow them for tests. Valid documents are cached as their HTTP
// cache headers allow; errors and invalid documents never are. Each source
// address may have only so many documents fetched a minute (a cached one
// costs nothing), so that the server is no free request reflector.
package cimd

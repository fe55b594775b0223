// Command plumbline is a governed report engine for sales floors, served to
// AI clients over the Model Context Protocol.
//
// Run "plumbline help" for the commands.
package main

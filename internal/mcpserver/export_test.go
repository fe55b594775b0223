package mcpserver

// SetDirect turns direct tool calls on or off, and DirectAnswered counts
// the calls answered directly, for the test that compares them with the
// go-sdk's answers.
func SetDirect(on bool) { directOff.Store(!on) }

// DirectAnswered is the number of calls answered directly so far.
func DirectAnswered() int64 { return directAnswered.Load() }

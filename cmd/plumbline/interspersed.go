package main

// parseInterspersed parses flags that may stand before, between or after
// the positional arguments, as in "plumbline docs DIR -o SITE", and returns
// the positional arguments in order. After "--" everything is positional.
func (f *flags) parseInterspersed(args []string) ([]string, error) {
	var positional []string
	for {
		rest, err := f.parse(args)
		if err != nil {
			return nil, err
		}
		if len(rest) == 0 {
			return positional, nil
		}
		if len(args) > len(rest) && args[len(args)-len(rest)-1] == "--" {
			return append(positional, rest...), nil
		}
		positional, args = append(positional, rest[0]), rest[1:]
	}
}

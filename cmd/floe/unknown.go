package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"
)

// refuseUnknownSubcommands makes every command that only groups others
// (floe, floe bucket, floe token…) refuse an argument that names none of
// them, with exit status 2 and a sentence, instead of printing its help
// and succeeding: `floe bucket lsit` in a script must fail. Given no
// argument such a command prints its help, as before.
func refuseUnknownSubcommands(c *cobra.Command) {
	for _, sub := range c.Commands() {
		refuseUnknownSubcommands(sub)
	}
	if !c.HasSubCommands() || c.Run != nil || c.RunE != nil {
		return
	}
	if c.SuggestionsMinimumDistance <= 0 {
		c.SuggestionsMinimumDistance = 2 // cobra's own default, which SuggestionsFor does not apply
	}
	c.Args = func(cmd *cobra.Command, args []string) error {
		if len(args) == 0 {
			return nil
		}
		var names []string
		for _, s := range cmd.Commands() {
			if s.IsAvailableCommand() {
				names = append(names, s.Name())
			}
		}
		msg := fmt.Sprintf("%q is not a command of %q; its commands are %s", args[0], cmd.CommandPath(), strings.Join(names, ", "))
		if s := cmd.SuggestionsFor(args[0]); len(s) > 0 {
			msg += "; did you mean " + strings.Join(s, " or ") + "?"
		}
		return usageError{msg}
	}
	c.RunE = func(cmd *cobra.Command, _ []string) error { return cmd.Help() }
}

package guest

// The optional feature packages (resources, prompts, completion) each hold
// their own exports, so a plugin links only the exports of the packages it
// imports. What one package needs to know of another goes through here.

var checks, referenceChecks []func() error

// AddCheck registers a load-time check. list_tools, which the host always
// calls first when it loads a plugin, runs every check and fails with the
// first error, so the host refuses the plugin with a message naming the
// mistake instead of serving a plugin that silently lacks something.
func AddCheck(check func() error) { checks = append(checks, check) }

// AddReferenceCheck registers a load-time check of references to what other
// packages declare. Reference checks run after every AddCheck check, so a
// broken declaration is reported as itself rather than as a missing one.
func AddReferenceCheck(check func() error) { referenceChecks = append(referenceChecks, check) }

// Check runs the registered checks and returns the first error.
func Check() error {
	for _, list := range [][]func() error{checks, referenceChecks} {
		for _, c := range list {
			if err := c(); err != nil {
				return err
			}
		}
	}
	return nil
}

// PromptArguments is set by package prompts when a plugin links it: it
// reports whether a prompt is declared, and its arguments' names.
var PromptArguments func(name string) (arguments []string, ok bool)

// TemplateVariables is set by package resources when a plugin links it: it
// reports whether a resource template is declared, and its variables' names.
var TemplateVariables func(uriTemplate string) (variables []string, ok bool)

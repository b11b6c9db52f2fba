package plugin

import (
	"fmt"

	"github.com/mcpwasm/mcpwasm/abi"
	"github.com/mcpwasm/mcpwasm/host/internal/wasmbin"
	"github.com/mcpwasm/mcpwasm/host/plugin/internal/hostenv"
	"github.com/tetratelabs/wazero/api"
)

// servedTypes are the function types of the imports this host serves, by
// namespace and name: the extism:host/user functions and all of
// extism:host/env, from the same tables the host modules are built from.
var servedTypes = func() map[[2]string]wasmbin.FuncType {
	m := map[[2]string]wasmbin.FuncType{}
	add := func(ns, name string, params, results []api.ValueType) {
		m[[2]string{ns, name}] = wasmbin.FuncType{Params: append([]byte(nil), params...), Results: append([]byte(nil), results...)}
	}
	for _, f := range hostFunctions() {
		add(abi.NamespaceUser, f.name, f.params, f.results)
	}
	for _, f := range hostenv.Funcs {
		add(abi.NamespaceKernel, f.Name, f.Params, f.Results)
	}
	return m
}()

// checkServedImports refuses, at load, an import from extism:host/env
// that it does not serve, and an import of a function this host serves
// whose kind or type is not the one served. Without it the module would
// load and fail at its first instantiation.
func checkServedImports(mod *wasmbin.Module) error {
	for _, imp := range mod.Imports {
		want, ok := servedTypes[[2]string{imp.Module, imp.Name}]
		if !ok {
			if imp.Module == abi.NamespaceKernel {
				return fmt.Errorf("imports %s.%s, which the Extism ABI does not define", imp.Module, imp.Name)
			}
			continue
		}
		if imp.Kind != wasmbin.KindFunc {
			return fmt.Errorf("imports %s.%s as a %s; it is a function %s", imp.Module, imp.Name, imp.Kind, want)
		}
		got, ok := mod.ImportType(imp)
		if !ok {
			return fmt.Errorf("imports %s.%s with type index %d, which the module does not define", imp.Module, imp.Name, imp.Type)
		}
		if got.String() != want.String() {
			return fmt.Errorf("imports %s.%s with type %s; mcpwasm provides %s", imp.Module, imp.Name, got, want)
		}
	}
	return nil
}

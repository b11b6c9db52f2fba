package plugin

import (
	"fmt"

	extism "github.com/extism/go-sdk"

	"github.com/mcpwasm/mcpwasm/abi"
	"github.com/mcpwasm/mcpwasm/host/internal/wasmbin"
)

// servedTypes are the function types of the imports this host serves
// itself, by namespace and name: the extism:host/user functions and the
// network functions (imported from extism:host/env, served renamed).
var servedTypes = func() map[[2]string]wasmbin.FuncType {
	m := map[[2]string]wasmbin.FuncType{}
	add := func(ns string, fs []extism.HostFunction) {
		for _, f := range fs {
			var ft wasmbin.FuncType
			for _, v := range f.Params {
				ft.Params = append(ft.Params, byte(v))
			}
			for _, v := range f.Returns {
				ft.Results = append(ft.Results, byte(v))
			}
			m[[2]string{ns, f.Name}] = ft
		}
	}
	add(abi.NamespaceUser, hostFunctions())
	add(abi.NamespaceKernel, netFunctions())
	add(abi.NamespaceKernel, kernelFunctions())
	return m
}()

// checkServedImports refuses, at load, an import of a function this host
// serves whose kind or type is not the one served. Without it the module
// would load and fail at its first instantiation, with a message naming
// the renamed network namespace.
func checkServedImports(mod *wasmbin.Module) error {
	for _, imp := range mod.Imports {
		want, ok := servedTypes[[2]string{imp.Module, imp.Name}]
		if !ok {
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

// Package layout holds the test that keeps the README's Layout table true:
// every Go package of the module has a row (its own, or its parent's for a
// package nested below a listed one), and every row names a path that
// exists.
package layout

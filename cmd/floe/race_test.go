//go:build race

package main

// raceEnabled: the race detector slows the database work of the scale
// tests some thirtyfold, so they use smaller catalogs under it.
const raceEnabled = true

//go:build !race

package tools_test

// raceOn: the race detector slows code several times; timing checks skip.
const raceOn = false

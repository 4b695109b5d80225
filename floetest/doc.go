// Package floetest helps test code that issues floe IDs: a fake [Clock] that
// tests set, step and rewind, and checkers for a stream of IDs (unique,
// strictly increasing).
//
// It is meant for tests, floe's and its users'.
package floetest

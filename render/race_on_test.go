//go:build race

package render_test

// raceDetector is set when the tests run with -race (make test does): long generated suites
// then run fewer cases, the race detector making each several times slower.
const raceDetector = true

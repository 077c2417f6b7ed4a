//go:build !race

package render_test

// raceDetector: see race_on_test.go.
const raceDetector = false

//go:build !race

package testenv

// RaceEnabled：見 race_on.go。 / RaceEnabled: see race_on.go.
const RaceEnabled = false

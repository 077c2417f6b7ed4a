package render

// SetIncludeMemo turns the include memo on or off for a test, and returns a function that
// puts it back.
func SetIncludeMemo(on bool) (restore func()) {
	was := memoOff
	memoOff = !on
	return func() { memoOff = was }
}

// IncludeMemoHits is how many include outputs renders have taken from the memo so far.
func IncludeMemoHits() int64 { return memoHits.Load() }

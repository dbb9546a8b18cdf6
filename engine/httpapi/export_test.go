package httpapi

import "time"

// SetBookmarkInterval shortens the bookmark interval for a test.
func SetBookmarkInterval(d time.Duration) (restore func()) {
	old := bookmarkInterval
	bookmarkInterval = d
	return func() { bookmarkInterval = old }
}

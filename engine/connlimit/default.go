package connlimit

// Reserve is how many connections over the limit are kept for health
// checks.
const Reserve = 16

// DefaultLimit derives a limit from the process's file-descriptor limit
// (which Go raises to the hard limit at start): what is left once a tenth
// of it, at least 128, is kept for the database pool, files and the
// reserve. 0 (no limit) when the limit cannot be read.
func DefaultLimit() int {
	nofile, ok := fileLimit()
	if !ok {
		return 0
	}
	return limitFor(nofile)
}

// limitFor is DefaultLimit for a descriptor limit of nofile.
func limitFor(nofile uint64) int {
	const most = 1 << 30 // RLIM_INFINITY and the like
	n := int64(min(nofile, most))
	return int(max(n-max(n/10, 128)-Reserve, 1))
}

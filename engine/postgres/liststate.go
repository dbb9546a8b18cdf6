package postgres

import (
	"context"
	"strconv"

	"github.com/dynapi/dynapi/engine"
)

// listState is the state a List reads.
type listState struct {
	latest bool  // a consistent read of the newest state: the statement reads the sequence
	w      int64 // with latest: W when the statement was built
	rv     int64 // otherwise: the state's resourceVersion
	// exact and after (a continue token) choose the Expired error when
	// rv is older than the history kept.
	exact bool
	after *continueToken
	// primarySeq, for a list on a replica, is the primary's sequence
	// value at the read's position; nil: the list reads the sequence.
	primarySeq *int64
}

// parseListState reads opts' resourceVersion, resourceVersionMatch and
// continue token with kube-apiserver's semantics. It returns the state and
// the requested resourceVersion, which settle turns into the state's.
// Errors: BadRequest.
func parseListState(opts engine.ListOptions) (listState, int64, error) {
	if opts.Continue != "" {
		if opts.ResourceVersion != "" && opts.ResourceVersion != "0" {
			return listState{}, 0, engine.Errorf(engine.CodeBadRequest, "specifying resource version is not allowed when using continue")
		}
		t, err := decodeContinue(opts.Continue)
		if err != nil {
			return listState{}, 0, err
		}
		return listState{rv: t.RV, after: &t}, 0, nil
	}
	match := opts.ResourceVersionMatch
	switch {
	case match != "" && match != engine.MatchExact && match != engine.MatchNotOlderThan:
		return listState{}, 0, engine.Errorf(engine.CodeBadRequest, "unknown resourceVersionMatch %q", match)
	case opts.ResourceVersion == "":
		// With NotOlderThan too: the watch-list protocol's initial state.
		return listState{latest: true}, 0, nil
	case opts.ResourceVersion == "0" && match == engine.MatchExact:
		return listState{}, 0, engine.Errorf(engine.CodeBadRequest, `resourceVersionMatch "Exact" is forbidden for resourceVersion "0"`)
	}
	rv, err := strconv.ParseInt(opts.ResourceVersion, 10, 64)
	if err != nil || rv < 0 {
		return listState{}, 0, engine.Errorf(engine.CodeBadRequest, "invalid resource version: %q", opts.ResourceVersion)
	}
	// Unset with a limit is Exact: kube-apiserver's legacy paging semantics.
	exact := match == engine.MatchExact || (match == "" && opts.Limit > 0 && rv > 0)
	return listState{exact: exact}, rv, nil
}

// settle waits until the process has resolved the resourceVersions the
// list needs, and sets the state's resourceVersion: requested for Exact,
// W otherwise ("0" and NotOlderThan). Errors: Timeout when requested is
// not reached within freshWait.
//
// A continue token's state was made sure of by the first page; but with
// replicas, that page may have been read on one that showed commits the
// primary did not show yet (see errAheadOfPrimary): the process's
// watermark passing it makes sure the primary shows them too.
func (s *Store) settle(ctx context.Context, st *listState, requested int64) error {
	if st.after != nil && len(s.router.replicas) == 0 {
		return nil
	}
	if st.after != nil {
		requested = st.rv
	}
	w, ok, err := s.poller.await(ctx, requested, s.freshWait)
	switch {
	case err != nil:
		return err
	case !ok:
		return tooLarge(requested, w)
	case st.after != nil:
	case st.latest:
		st.w = w
	case st.exact:
		st.rv = requested
	default:
		st.rv = w
	}
	return nil
}

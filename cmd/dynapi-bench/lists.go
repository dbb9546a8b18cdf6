package main

import (
	"context"
	"fmt"
	"net/url"
	"slices"
	"time"

	"github.com/tidwall/gjson"
)

// Lists run one at a time: their figure is the latency of one list.
const (
	listRepeats   = 5   // whole lists of all objects
	pagedRepeats  = 3   // paged walks through all objects
	selectRepeats = 50  // lists with a label selector matching 1%
	pageLimit     = 500 // objects per page
)

// acceptMetadataList asks for a PartialObjectMetadataList, as client-go's
// metadata client does.
const acceptMetadataList = "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1"

// list reads all objects in one response, then as metadata only, then page by page; the baseline
// SELECTs every body in name order.
func (b *bench) list(ctx context.Context) {
	n, w := b.cfg.Objects, b.widgets
	fmt.Fprintf(b.progress, "list: all %d objects, %d times whole and %d times in pages of %d\n", n, listRepeats, pagedRepeats, pageLimit)
	r := &reader{c: b.load()} // one list at a time
	m := b.measure(ctx, 1, listRepeats, func(ctx context.Context, _ int) (time.Duration, error) {
		start := time.Now()
		out, err := r.get(ctx, w.collection(), "")
		took := time.Since(start)
		if err != nil {
			return took, err
		}
		return took, wantItems(out, n)
	})
	raw := b.baseline(ctx, 1, listRepeats, timed(func(ctx context.Context, _ int) error {
		got, err := b.raw.List(ctx, nil)
		return wantCount(got, err, n)
	}))
	b.add("list all", 1, m, raw)
	meta := b.measure(ctx, 1, listRepeats, func(ctx context.Context, _ int) (time.Duration, error) {
		start := time.Now()
		out, err := r.get(ctx, w.collection(), acceptMetadataList)
		took := time.Since(start)
		if err != nil {
			return took, err
		}
		return took, wantItems(out, n)
	})
	b.add("list all metadata-only", 1, meta, nil)
	var pages pageLog
	paged := b.measure(ctx, 1, pagedRepeats, func(ctx context.Context, _ int) (time.Duration, error) {
		return b.walkPages(ctx, r, &pages)
	})
	b.add(fmt.Sprintf("list paged (limit=%d)", pageLimit), 1, paged, nil)
	b.add(fmt.Sprintf("list paged, each page (limit=%d)", pageLimit), 1, pages.measurement(), nil)
	b.report.PagedRSS = pages.rss
}

// pageLog is what the paged lists' pages took, one at a time, and the
// servers' resident memory read every rssEvery pages: a walk through a
// million objects must go at a steady pace, in flat memory.
type pageLog struct {
	took []time.Duration
	rss  [][]int64
}

// rssEvery is how many pages go between two readings of memory.
const rssEvery = 100

// measurement is the pages as operations of their own.
func (l *pageLog) measurement() measurement {
	m := measurement{Ops: len(l.took), Latencies: slices.Sorted(slices.Values(l.took))}
	for _, d := range l.took {
		m.Elapsed += d
	}
	return m
}

// walkPages lists all objects page by page, logging each page, and
// returns the time the requests took.
func (b *bench) walkPages(ctx context.Context, r *reader, log *pageLog) (time.Duration, error) {
	var took time.Duration
	items := 0
	for token, pages := "", 0; pages <= b.cfg.Objects/pageLimit+1; pages++ {
		q := url.Values{"limit": {fmt.Sprint(pageLimit)}}
		if token != "" {
			q.Set("continue", token)
		}
		start := time.Now()
		out, err := r.get(ctx, b.widgets.collection()+"?"+q.Encode(), "")
		page := time.Since(start)
		took += page
		if err != nil {
			return took, err
		}
		if log.took = append(log.took, page); len(log.took)%rssEvery == 0 {
			log.rss = append(log.rss, b.rss())
		}
		items += int(gjson.GetBytes(out, "items.#").Int())
		if token = gjson.GetBytes(out, "metadata.continue").String(); token == "" {
			return took, wantCount(items, nil, b.cfg.Objects)
		}
	}
	return took, fmt.Errorf("paged list: more than %d pages", b.cfg.Objects/pageLimit+1)
}

// selectLabels lists with labelSelector=bucket=k, which matches 1% of the
// objects, then with shard=k, which matches 0.1%; the baseline SELECTs
// with labels @> {"bucket":k} (or shard), through the same GIN index.
func (b *bench) selectLabels(ctx context.Context) {
	b.selectLabel(ctx, "bucket", "1%")
	b.selectLabel(ctx, "shard", "0.1%")
}

// selectLabel times selectRepeats lists with a selector on label, which
// matches share of the objects.
func (b *bench) selectLabel(ctx context.Context, label, share string) {
	w := b.widgets
	fmt.Fprintf(b.progress, "select: %d lists with a label selector matching %s of %d objects\n", selectRepeats, share, b.cfg.Objects)
	r := &reader{c: b.load()} // one list at a time
	m := b.measure(ctx, 1, selectRepeats, func(ctx context.Context, i int) (time.Duration, error) {
		start := time.Now()
		out, err := r.get(ctx, w.collection()+"?labelSelector="+url.QueryEscape(label+"="+labelValue(label, i)), "")
		took := time.Since(start)
		if err != nil {
			return took, err
		}
		return took, wantItems(out, b.matching(label, i))
	})
	raw := b.baseline(ctx, 1, selectRepeats, timed(func(ctx context.Context, i int) error {
		got, err := b.raw.List(ctx, map[string]string{label: labelValue(label, i)})
		return wantCount(got, err, b.matching(label, i))
	}))
	b.add("list selector "+share, 1, m, raw)
}

// matching is how many objects share object i's value of label.
func (b *bench) matching(label string, i int) int {
	n, values := b.cfg.Objects, labelValues[label]
	if i%values < n%values {
		return n/values + 1
	}
	return n / values
}

// wantItems checks the number of items of a list response.
func wantItems(list []byte, want int) error {
	return wantCount(int(gjson.GetBytes(list, "items.#").Int()), nil, want)
}

// wantCount checks the number of objects a list returned.
func wantCount(got int, err error, want int) error {
	if err != nil {
		return err
	}
	if got != want {
		return fmt.Errorf("list returned %d objects, want %d", got, want)
	}
	return nil
}

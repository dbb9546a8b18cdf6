package registry

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// source is one definition source to load: a file's text, or a
// definition created through the API.
type source struct {
	file   string
	src    []byte
	isJSON bool
	key    sourceKey // what identifies it for reuse; zero: the hash of its text
	err    error     // reading it failed: a problem of the file
}

// compiled is what compiling one source on its own gave.
type compiled struct {
	key    sourceKey
	reused bool
	sub    *loader // nil when reused or unreadable
}

// loadSources loads sources in order, as loadSource one by one would,
// but compiles those the previous snapshot did not build on every core:
// compiling is pure, only the merge of the results needs the order.
func (l *loader) loadSources(sources []source) {
	results := make([]compiled, len(sources))
	var todo []int
	for i, s := range sources {
		if s.err != nil {
			continue
		}
		results[i].key = s.key
		if s.key == (sourceKey{}) {
			results[i].key = keyOf(s.src, s.isJSON)
		}
		b, ok := l.prev.built[s.file]
		results[i].reused = ok && b.key == results[i].key
		if !results[i].reused {
			todo = append(todo, i)
		}
	}
	l.compileAll(sources, results, todo)
	for i, s := range sources {
		l.merge(s, results[i])
	}
}

// compileAll compiles the sources todo names, each in a loader of its own.
func (l *loader) compileAll(sources []source, results []compiled, todo []int) {
	work := make(chan int)
	var wg sync.WaitGroup
	var done atomic.Int64
	if l.opts.Progress != nil {
		l.opts.Progress(0, len(todo))
	}
	for range min(runtime.GOMAXPROCS(0), len(todo)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				sub := newLoader(nil, LoadOptions{RuntimeConfig: l.opts.RuntimeConfig, CompileValidators: l.opts.CompileValidators,
					CheckAdmission: l.opts.CheckAdmission, WithoutBuiltins: true})
				sub.compileSource(sources[i].file, sources[i].src, sources[i].isJSON)
				results[i].sub = sub
				if l.opts.Progress != nil {
					l.opts.Progress(int(done.Add(1)), len(todo))
				}
			}
		}()
	}
	for _, i := range todo {
		work <- i
	}
	close(work)
	wg.Wait()
}

// merge adds one source's outcome, in order.
func (l *loader) merge(s source, c compiled) {
	switch {
	case s.err != nil:
		l.report(Problem{File: s.file, Reason: s.err.Error()})
	case c.reused:
		l.reuse(s.file, c.key)
		l.rememberText(s)
	default:
		first, problems := len(l.candidates), len(l.problems)
		for _, p := range c.sub.problems {
			l.report(p)
		}
		l.candidates = append(l.candidates, c.sub.candidates...)
		l.admission = append(l.admission, c.sub.admission...)
		l.remember(s.file, c.key, first, problems)
	}
}

// Package convert interprets the declarative conversion rules of
// conversions/ on objects held as JSON bytes: an object is never decoded
// into maps; the objects a rule reaches into are indexed once, and the
// rest is copied as it is. It is pure: no I/O, no schemas. The registry
// parses each rules file with Parse, checks it against the kind's schemas
// with Bind, and the request pipeline converts with Convert.
//
// A rules file names a kind, its hub version and, for every other version
// that differs from the hub, the ordered rules that turn an object of that
// version into the hub (toHub). The way back (fromHub) is the toHub rules
// inverted, in reverse order, unless the file spells it out:
//
//	group: plumbing.example.com
//	kind: Pipe
//	hub: v2
//	versions:
//	  v1:
//	    toHub:
//	    - move:      {from: spec.diameter, to: spec.size.diameter}
//	    - mapValues: {path: spec.material, values: {steel: Steel, copper: Copper}}
//	    - wrap:      {from: spec.outlet, to: spec.outlets}
//	    fromHub: [...]   # optional: replaces the derived inverse
//
// Paths are dotted field paths ("spec.size.diameter"); a backslash escapes
// a dot that is part of a key ("metadata.labels.app\.kubernetes\.io/name").
// The rules and their inverses:
//
//	move {from, to}                 move back
//	copy {from, to}                 delete the copy
//	set {path, value}               delete
//	default {path, value}           (only when absent) delete when equal
//	delete {path}                   nothing: what a version drops is kept by the remainder
//	wrap {from, to}                 unwrap: a value into a one-item list
//	unwrap {from, to}               wrap: the first item of a list (the rest is kept by the remainder)
//	mapValues {path, values}        the swapped map (values must be a bijection)
//	split {from, to, separator}     join
//	join {from, to, separator}      split
//	coerce {path, to[, from]}       coerce back to the source type
//	toAnnotation {from, key}        fromAnnotation {key, to}
//	toLabel {from, key}             fromLabel {key, to}
//	forEach {path, rules}           forEach with the nested rules inverted
//
// A rule whose source is absent does nothing. A rule that removes a field
// also removes the objects the removal leaves empty, except the top-level
// ones (spec, status), so that a move out of a nested object leaves nothing
// behind.
//
// What a version cannot hold is not lost: Remainder computes, for an object
// and its projection through a version (Project), what the projection lost;
// the caller stores it beside the object, and Restore puts it back as long
// as the user did not change what they could see. With obj the current
// object in the hub version h (rules.Hub(); for a nil Rules, whose
// versions all have one shape, the storage version), an update through
// version v is:
//
//	seen, _ := rules.Project(obj, h, v, pruneWithVsSchema)
//	kept := convert.Remainder(obj, seen)        // what v did not show
//	next, _ := rules.Convert(written, v, h)
//	next, _ = convert.Restore(next, kept)       // back where the user left it
//
// Storing next in a storage version s keeps Remainder(next, Project(next,
// h, s, pruneWithSsSchema)) beside it, which Restore puts back into the
// stored object converted to h, on every read.
package convert
